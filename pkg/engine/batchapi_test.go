package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/wire"
)

// counting is a tool that tells how many of its calls ran at once.
type counting struct{ now, most atomic.Int32 }

func (c *counting) Call(_ context.Context, _, _ string, _ []byte) agent.ToolResult {
	n := c.now.Add(1)
	for {
		m := c.most.Load()
		if n <= m || c.most.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(5 * time.Millisecond)
	c.now.Add(-1)
	return agent.ToolResult{Content: "ok", Kind: wire.KindOK}
}

// Items attached to the rounds send their requests as batches, one a
// round, priced at the Batch API's discount, their tool calls in the
// batch's slots (-j 1: one at a time across the items).
func TestRoundsRunItemsThroughBatches(t *testing.T) {
	text := "done"
	conv := &fakeapi.Conversations{Steps: []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "look", Arguments: `{}`}, {ID: "call_2", Name: "look", Arguments: `{}`}}},
		{Text: &text},
	}}
	srv := fakeapi.NewOpenAIConversations(conv, "test")
	defer srv.Close()
	dir := t.TempDir()
	const n = 3
	r, ctx, err := StartRounds(context.Background(), RoundsOptions{Dir: dir, Poll: time.Millisecond, Jobs: 1}, n)
	if err != nil {
		t.Fatal(err)
	}
	tool := &counting{}
	toolDefs, err := agent.OpenAIDialect{}.ToolDefs([]agent.ToolSpec{{Name: "look", Description: "Looks.", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	outs := make([]*agent.Outcome, n)
	discounts := make([]float64, n)
	prices := make([]agent.Price, n)
	run := r.Run(func(ctx context.Context, task batch.Task) batch.Result {
		i := task.Item.Line - 1
		p, err := openai.NewChat(openai.Config{APIKey: "test", BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini"})
		if err != nil {
			t.Error(err)
			return batch.Result{}
		}
		loop := &agent.Loop{Provider: p, Tools: tool, ToolDefs: toolDefs, MaxSteps: 5, Price: &agent.Price{Input: 2, Output: 8}}
		if discounts[i], err = r.Attach(loop, task.Item.ID, 2); err != nil {
			t.Error(err)
			return batch.Result{}
		}
		prices[i] = *loop.Price
		outs[i], err = loop.Prompt(ctx, fmt.Sprintf("item %d", i+1))
		if err != nil {
			t.Error(err)
		}
		return batch.Result{}
	})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(ctx, batch.Task{Item: batch.Item{ID: fmt.Sprintf("item-%d", i+1), Line: i + 1}})
		}()
	}
	wg.Wait()
	stopped := RoundsStopped(ctx, errors.New("interrupted"))
	r.Wait()
	if stopped != nil {
		t.Errorf("stopped: %v", stopped)
	}
	for i, out := range outs {
		if out == nil || out.Reason != wire.ReasonStop || out.Answer != "done" {
			t.Fatalf("item %d: %+v", i+1, out)
		}
		if discounts[i] != 0.5 || prices[i].Input != 1 || prices[i].Output != 4 {
			t.Errorf("item %d: discount %v, price %+v; want the default discount off", i+1, discounts[i], prices[i])
		}
	}
	if c := srv.BatchCounts(); c.Batches != 2 || c.Requests != 2*n {
		t.Errorf("%d batches of %d requests; want 2 of %d", c.Batches, c.Requests, 2*n)
	}
	if m := tool.most.Load(); m != 1 {
		t.Errorf("%d tool calls at once with one slot", m)
	}
	if _, err := os.Stat(filepath.Join(dir, batchapi.LogName)); err != nil {
		t.Error(err)
	}
	if v := srv.Violations(); len(v) > 0 {
		t.Errorf("the server saw: %s", v[0])
	}
}

func TestRoundsStopped(t *testing.T) {
	interrupted := errors.New("interrupted")
	other := errors.New("the log could not be written")
	for _, tc := range []struct {
		cause, want error
	}{
		{nil, nil},
		{batchapi.ErrMaxRounds, batchapi.ErrMaxRounds},
		{batchapi.ErrCancelled, batchapi.ErrCancelled},
		{interrupted, nil},
		{context.Canceled, nil},
		{other, other},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		if tc.cause != nil {
			cancel(tc.cause)
		}
		if got := RoundsStopped(ctx, interrupted); !errors.Is(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("cause %v: %v, want %v", tc.cause, got, tc.want)
		}
		cancel(nil)
	}
}

func TestLiveCost(t *testing.T) {
	if c := LiveCost(1.5, 0.5); *c != 3 {
		t.Errorf("%v, want 3", *c)
	}
}
