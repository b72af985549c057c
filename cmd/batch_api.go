package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/engine"
)

// batchAPIOptions are batch's settings of the providers' Batch APIs.
type batchAPIOptions struct {
	// On sends the items' model requests through the provider's Batch
	// API, a round at a time (--batch-api, batch_api).
	On        bool
	Poll      time.Duration
	MaxRounds int
}

func addBatchAPIFlags(f *pflag.FlagSet, o *batchAPIOptions) {
	f.BoolVar(&o.On, "batch-api", false, "send the model requests through the provider's Batch API, one batch a round, at its price (see docs/batch.md)")
	f.DurationVar(&o.Poll, "poll", batchapi.DefaultPoll, "with --batch-api: read a batch's status every `TIME` at first, less often (to ten times that) as it waits")
	f.IntVar(&o.MaxRounds, "max-rounds", 0, "with --batch-api: submit at most `N` rounds, then stop as an interrupt does (run again to go on); 0: no cap")
}

// checkBatchAPI takes batch_api from the configuration and checks the
// settings that go with it.
func (o *BatchOptions) checkBatchAPI(c *cobra.Command, cfg *config.Config) error {
	o.API.On = cfg.BatchAPI
	if !o.API.On {
		for _, name := range []string{"poll", "max-rounds"} {
			if c.Flags().Changed(name) {
				return flagErrorf("--%s applies to --batch-api only", name)
			}
		}
		return nil
	}
	switch {
	case o.API.Poll <= 0:
		return flagErrorf("--poll %s: must be positive", o.API.Poll)
	case o.API.MaxRounds < 0:
		return flagErrorf("--max-rounds %d: must be 0 (no cap) or more", o.API.MaxRounds)
	case o.Model.Store:
		return flagErrorf("--store keeps a response on the server for the next request to go on from, which the requests of a batch cannot: leave it out with --batch-api")
	}
	return nil
}

// startRounds starts the engine of rounds of a batch of n items.
func startRounds(ctx context.Context, opts *BatchOptions, prog *runview.Batch, n int) (*engine.Rounds, context.Context, error) {
	return engine.StartRounds(ctx, engine.RoundsOptions{
		Dir: opts.Dir, Poll: opts.API.Poll, MaxRounds: opts.API.MaxRounds, Jobs: opts.Jobs, OnProgress: prog.Rounds, Config: opts.config,
	}, n)
}
