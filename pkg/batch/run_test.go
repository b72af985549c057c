package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

func tasks(n int) []Task {
	ts := make([]Task, n)
	for i := range ts {
		ts[i] = Task{Item: Item{ID: fmt.Sprint(i), Line: i + 1, Prompt: "p"}}
	}
	return ts
}

func TestPlan(t *testing.T) {
	items := []Item{{ID: "new"}, {ID: "done"}, {ID: "failed"}, {ID: "budget"}, {ID: "retried-ok"}}
	done := []Result{
		result("done", "stop", 0), result("failed", "error", 4), result("budget", "max_steps", 3),
		result("retried-ok", "error", 4), result("retried-ok", "stop", 0), result("gone", "stop", 0), result("gone", "error", 4),
	}
	p := NewPlan(items, done, PlanOptions{})
	if len(p.Tasks) != 1 || p.Tasks[0].Item.ID != "new" || len(p.Finished) != 4 || p.Retried != 0 {
		t.Errorf("plain rerun: %+v", p)
	}
	if len(p.Unknown) != 1 || p.Unknown[0].ID != "gone" || p.Unknown[0].Reason != "error" {
		t.Errorf("unknown: %+v", p.Unknown)
	}
	p = NewPlan(items, done, PlanOptions{RetryFailed: true})
	if len(p.Tasks) != 2 || p.Tasks[1].Item.ID != "failed" || p.Tasks[1].Prior == nil || p.Tasks[1].Prior.ExitCode != 4 || p.Retried != 1 {
		t.Errorf("--retry-failed: %+v", p.Tasks)
	}
	// The shards of a plan partition it.
	total := 0
	for k := range 3 {
		p := NewPlan(items, nil, PlanOptions{Shard: Shard{K: k, N: 3}})
		total += len(p.Tasks)
		if len(p.Tasks)+p.OtherShards != len(items) {
			t.Errorf("shard %d: %d tasks, %d elsewhere", k, len(p.Tasks), p.OtherShards)
		}
	}
	if total != len(items) {
		t.Errorf("shards ran %d of %d items", total, len(items))
	}
}

// TestRunJobs: every task runs once, never more than Jobs at a time, and
// every result is recorded.
func TestRunJobs(t *testing.T) {
	var running, peak atomic.Int32
	gate := make(chan struct{})
	var once sync.Once
	var mu sync.Mutex
	var recorded []string
	seen := map[string]int{}
	rep := Run(context.Background(), tasks(20), Options{
		Jobs: 3,
		Run: func(ctx context.Context, tk Task) Result {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			if n == 3 {
				once.Do(func() { close(gate) })
			}
			<-gate // the first three wait for each other: all three run at once
			running.Add(-1)
			mu.Lock()
			seen[tk.Item.ID]++
			mu.Unlock()
			return Result{ID: tk.Item.ID, Reason: wire.ReasonStop}
		},
		Record: func(r Result) error {
			mu.Lock()
			defer mu.Unlock()
			recorded = append(recorded, r.ID)
			return nil
		},
	})
	if peak.Load() != 3 {
		t.Errorf("peak %d jobs, want 3", peak.Load())
	}
	if len(rep.Finished) != 20 || len(recorded) != 20 || len(seen) != 20 || rep.NotStarted != 0 || rep.Err != nil {
		t.Errorf("report %d finished, %d recorded, %d seen, %d not started, err %v", len(rep.Finished), len(recorded), len(seen), rep.NotStarted, rep.Err)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s ran %d times", id, n)
		}
	}
}

// TestRunInterrupted: a cancelled batch starts nothing more; what the
// running items return as interrupted is not recorded.
func TestRunInterrupted(t *testing.T) {
	for _, jobs := range []int{1, 3} {
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan struct{})
		var recorded atomic.Int32
		rep := Run(ctx, tasks(10), Options{
			Jobs: jobs,
			Run: func(ctx context.Context, tk Task) Result {
				if tk.Item.ID == "0" {
					cancel()
					close(stopped)
				}
				<-stopped // the items running with the first are interrupted too
				if ctx.Err() != nil {
					return Result{ID: tk.Item.ID, Reason: wire.ReasonInterrupted}
				}
				return Result{ID: tk.Item.ID, Reason: wire.ReasonStop}
			},
			Record: func(Result) error { recorded.Add(1); return nil },
		})
		cancel()
		if int(recorded.Load()) != len(rep.Finished) {
			t.Errorf("-j %d: recorded %d, finished %d", jobs, recorded.Load(), len(rep.Finished))
		}
		if len(rep.Finished) != 0 || len(rep.Unfinished)+rep.NotStarted != 10 || rep.NotStarted < 10-jobs {
			t.Errorf("-j %d: finished %d, unfinished %d, not started %d", jobs, len(rep.Finished), len(rep.Unfinished), rep.NotStarted)
		}
		for _, r := range rep.Unfinished {
			if r.Finished() {
				t.Errorf("%+v among the unfinished", r)
			}
		}
	}
}

// TestRunRecordFails: when a result cannot be written the batch stops:
// the items running are interrupted, nothing more starts, and the error
// is reported.
func TestRunRecordFails(t *testing.T) {
	full := errors.New("no space left on device")
	started := make(chan struct{}, 10)
	rep := Run(context.Background(), tasks(10), Options{
		Jobs: 2,
		Run: func(ctx context.Context, tk Task) Result {
			started <- struct{}{}
			if tk.Item.ID == "0" {
				<-started
				<-started // both items run
				return Result{ID: "0", Reason: wire.ReasonStop}
			}
			<-ctx.Done() // runs until the batch stops it
			return Result{ID: tk.Item.ID, Reason: wire.ReasonInterrupted}
		},
		Record: func(Result) error { return full },
	})
	if !errors.Is(rep.Err, full) {
		t.Errorf("err %v", rep.Err)
	}
	if len(rep.Finished) != 0 || len(rep.Unfinished) != 2 || rep.NotStarted != 8 {
		t.Errorf("finished %d, unfinished %d, not started %d", len(rep.Finished), len(rep.Unfinished), rep.NotStarted)
	}
}

// TestRunKeepsNoAnswers: what a batch keeps of each finished item, for its
// summary, is without the item's answer and metadata, which the results
// file has: a batch of many items with long answers must not hold them
// all until it ends. The results file (Record) still gets them whole, and
// the results read back from OUTDIR are kept brief too.
func TestRunKeepsNoAnswers(t *testing.T) {
	answer := string(make([]byte, 8<<10))
	var recorded []Result
	var mu sync.Mutex
	rep := Run(context.Background(), tasks(20), Options{Jobs: 4,
		Run: func(_ context.Context, t Task) Result {
			return Result{ID: t.Item.ID, Reason: wire.ReasonStop, Answer: answer, Metadata: []byte(`{"k":1}`), Steps: 2, DurationMS: 7}
		},
		Record: func(r Result) error {
			mu.Lock()
			defer mu.Unlock()
			recorded = append(recorded, r)
			return nil
		}})
	if len(rep.Finished) != 20 || len(recorded) != 20 {
		t.Fatalf("%d finished, %d recorded", len(rep.Finished), len(recorded))
	}
	for i := range rep.Finished {
		if r := rep.Finished[i]; r.Answer != "" || r.Metadata != nil || r.Steps != 2 || r.DurationMS != 7 || r.Reason != wire.ReasonStop {
			t.Fatalf("kept %d bytes of answer, metadata %q: %+v", len(r.Answer), r.Metadata, r.Brief())
		}
		if r := recorded[i]; r.Answer != answer || string(r.Metadata) != `{"k":1}` {
			t.Fatalf("recorded without its answer or metadata: %+v", r.Brief())
		}
	}
	done := []Result{{ID: "a", Reason: wire.ReasonStop, Answer: answer, Metadata: []byte(`{}`), Transcript: "a.jsonl"}}
	p := NewPlan([]Item{{ID: "a"}}, done, PlanOptions{})
	if len(p.Finished) != 1 || p.Finished[0].Answer != "" || p.Finished[0].Metadata != nil || p.Finished[0].Transcript != "a.jsonl" {
		t.Errorf("plan keeps: %+v", p.Finished)
	}
}

// An item whose run could not be recorded (its transcript did not fit on
// the disk) has no outcome: a plain rerun runs it, as it runs a new one,
// and --retry-failed does not count it as a retry. A later line of its id
// that answers is what counts.
func TestPlanRunsUnrecorded(t *testing.T) {
	items := []Item{{ID: "full"}, {ID: "full-then-ok"}, {ID: "done"}}
	done := []Result{
		result("full", ReasonUnrecorded, 1), result("full-then-ok", ReasonUnrecorded, 1), result("full-then-ok", "stop", 0), result("done", "stop", 0),
	}
	for _, retry := range []bool{false, true} {
		p := NewPlan(items, done, PlanOptions{RetryFailed: retry})
		if len(p.Tasks) != 1 || p.Tasks[0].Item.ID != "full" || p.Tasks[0].Prior != nil || len(p.Finished) != 2 || p.Retried != 0 {
			t.Errorf("retry-failed %v: %+v", retry, p)
		}
	}
}
