package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/batch"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// BatchLane is the lane of a run's provider in a batch sent through the
// provider's Batch API (batch --batch-api): its body building and answer
// reading, its batch endpoints, and the retries its requests get. Requests
// of the same API, address and model go in one batch.
func BatchLane(p agent.Provider, maxRetries int) (*batchapi.Lane, error) {
	svc, err := batchService(p)
	if err != nil {
		return nil, err
	}
	codec, ok := p.(batchapi.Codec)
	if !ok {
		return nil, flagf("--batch-api: the %s provider has no Batch API", p.Name())
	}
	return &batchapi.Lane{Codec: codec, Service: svc, Endpoint: endpointOf(svc),
		Key: p.Name() + " " + BaseURLOf(p) + " " + p.Model(), MaxRetries: maxRetries}, nil
}

// BatchService is the Batch API of the provider m names (batch status,
// batch cancel).
func BatchService(m Model, net Net) (batchapi.Service, error) {
	p, err := NewProvider(m, net, nil)
	if err != nil {
		return nil, err
	}
	return batchService(p)
}

// batchEndpoints is what each provider's batch endpoints are, past the
// Service they all are.
type batchEndpoints interface {
	batchapi.Service
	Endpoint() string
}

func endpointOf(s batchapi.Service) string { return s.(batchEndpoints).Endpoint() }

func batchService(p agent.Provider) (batchapi.Service, error) {
	var (
		s   batchEndpoints
		err error
	)
	switch p := p.(type) {
	case *openai.Chat:
		s, err = p.Batches()
	case *openai.Responses:
		s, err = p.Batches()
	case *anthropic.Messages:
		s, err = p.Batches()
	default:
		return nil, flagf("--batch-api: the %s provider has no Batch API", p.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	return s, nil
}

// RoundsOptions are a batch's settings of its rounds (batch --batch-api).
type RoundsOptions struct {
	// Dir is OUTDIR, which keeps the log of rounds.
	Dir       string
	Poll      time.Duration
	MaxRounds int
	// Jobs caps the tool calls running at once across the items (-j):
	// after a round every item's calls would start together.
	Jobs       int
	OnProgress func(batchapi.Progress)
	// Config gives each model's discount at the Batch API; nil, the
	// default one.
	Config *config.Config
}

// Rounds is a batch's engine of rounds, and what its items share.
type Rounds struct {
	eng   *batchapi.Engine
	cfg   *config.Config
	slots chan struct{}
	stop  context.CancelCauseFunc
	done  chan struct{}
}

// StartRounds opens OUTDIR's log of rounds and starts the engine for n
// items; the context returned is the batch's, which the engine stops
// when it must (--max-rounds, a batch cancelled). Wait ends it.
func StartRounds(ctx context.Context, o RoundsOptions, n int) (*Rounds, context.Context, error) {
	runCtx, stop := context.WithCancelCause(ctx)
	eng, err := batchapi.New(batchapi.Options{
		Dir: o.Dir, Run: "agentloop batch " + filepath.Base(o.Dir), Poll: o.Poll, MaxRounds: o.MaxRounds,
		Interrupt: stop, OnProgress: o.OnProgress,
	})
	if err != nil {
		stop(nil)
		return nil, nil, fmt.Errorf("-d %s: %w", o.Dir, err)
	}
	eng.Add(n)
	r := &Rounds{eng: eng, cfg: o.Config, slots: make(chan struct{}, max(o.Jobs, 1)), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		eng.Run(runCtx)
	}()
	return r, runCtx, nil
}

// Wait stops the engine and waits for its reads of batches to end.
func (r *Rounds) Wait() {
	r.stop(nil)
	<-r.done
	_ = r.eng.Close()
}

// Run wraps batch.Options.Run: the item runs, and the engine is told
// when it is done.
func (r *Rounds) Run(run func(context.Context, batch.Task) batch.Result) func(context.Context, batch.Task) batch.Result {
	return func(ctx context.Context, t batch.Task) batch.Result {
		defer r.eng.Done()
		return run(ctx, t)
	}
}

// Attach makes the loop of the item with this id send its requests into
// the rounds, priced at the Batch API's price, its tools in the batch's
// slots. It returns the discount, to tell the live cost from the one
// paid.
func (r *Rounds) Attach(loop *agent.Loop, id string, maxRetries int) (float64, error) {
	lane, err := BatchLane(loop.Provider, maxRetries)
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
	loop.Provider = r.eng.Provider(lane, batch.FileName(id))
	loop.Tools = slotted{exec: loop.Tools, slots: r.slots}
	return discount, nil
}

// LiveCost is what a cost paid at a discount would have been live.
func LiveCost(paid, discount float64) *float64 {
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

// RoundsStopped says why the engine stopped a batch, when it did: the
// cause of ctx, unless that is a cancel (an interrupt's, or interrupted
// itself).
func RoundsStopped(ctx context.Context, interrupted error) error {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, batchapi.ErrMaxRounds), errors.Is(cause, batchapi.ErrCancelled):
		return cause
	case cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, interrupted):
		return cause
	}
	return nil
}
