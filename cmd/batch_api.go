package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
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

// batchRounds is a batch's engine of rounds, and what its items share.
type batchRounds struct {
	eng *batchapi.Engine
	cfg *config.Config
	// slots caps the tool calls running at once across the items (-j):
	// after a round every item's calls would start together.
	slots chan struct{}
}

// startRounds opens OUTDIR's log of rounds and starts the engine for n
// items; the context returned is the batch's, which the engine stops
// when it must (--max-rounds, a batch cancelled). wait waits for the
// engine's reads of batches to end.
func startRounds(ctx context.Context, opts *BatchOptions, prog *runview.Batch, n int) (r *batchRounds, runCtx context.Context, wait func(), err error) {
	runCtx, stop := context.WithCancelCause(ctx)
	eng, err := batchapi.New(batchapi.Options{
		Dir: opts.Dir, Run: "agentloop batch " + filepath.Base(opts.Dir), Poll: opts.API.Poll, MaxRounds: opts.API.MaxRounds,
		Interrupt: stop, OnProgress: prog.Rounds,
	})
	if err != nil {
		stop(nil)
		return nil, nil, nil, fmt.Errorf("-d %s: %w", opts.Dir, err)
	}
	eng.Add(n)
	done := make(chan struct{})
	go func() {
		defer close(done)
		eng.Run(runCtx)
	}()
	r = &batchRounds{eng: eng, cfg: opts.config, slots: make(chan struct{}, opts.Jobs)}
	wait = func() {
		stop(nil)
		<-done
		_ = eng.Close()
	}
	return r, runCtx, wait, nil
}

// run is batch.Options.Run: the item runs, and the engine is told when
// it is done.
func (r *batchRounds) run(run func(context.Context, batch.Task) batch.Result) func(context.Context, batch.Task) batch.Result {
	return func(ctx context.Context, t batch.Task) batch.Result {
		defer r.eng.Done()
		return run(ctx, t)
	}
}

// attach makes an item's loop send its requests into the rounds, priced
// at the Batch API's price, its tools in the batch's slots. It returns
// the discount, to tell the live cost from the one paid.
func (r *batchRounds) attach(loop *agent.Loop, it batch.Item, maxRetries int) (float64, error) {
	lane, err := engine.BatchLane(loop.Provider, maxRetries)
	if err != nil {
		return 0, err
	}
	discount := config.DefaultBatchDiscount
	if r.cfg != nil {
		discount = r.cfg.BatchDiscountOf(loop.Provider.Model())
	}
	if loop.Price != nil {
		p := loop.Price.Discounted(discount)
		loop.Price = &p
	}
	loop.Provider = r.eng.Provider(lane, batch.FileName(it.ID))
	loop.Tools = slotted{exec: loop.Tools, slots: r.slots}
	return discount, nil
}

// liveCost is what a cost paid at a discount would have been live.
func liveCost(paid, discount float64) *float64 {
	c := paid / (1 - discount)
	return &c
}

// slotted runs a call when one of the batch's slots is free.
type slotted struct {
	exec  agent.Executor
	slots chan struct{}
}

func (s slotted) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return s.exec.Call(ctx, name, callID, args)
	}
	defer func() { <-s.slots }()
	return s.exec.Call(ctx, name, callID, args)
}

// roundsStopped says why the engine stopped a batch, when it did.
func roundsStopped(ctx context.Context) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, batchapi.ErrMaxRounds), errors.Is(cause, batchapi.ErrCancelled):
		return cause
	case cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, errInterrupted):
		return cause
	}
	return nil
}
