package batchapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

func strp(s string) *string { return &s }

// threeRounds: every item makes two turns of three parallel calls (the
// arguments name the item), then answers: three model calls, three rounds.
func threeRounds() *fakeapi.Conversations {
	var steps []fakeapi.Step
	for s := 1; s <= 2; s++ {
		var calls []fakeapi.ToolCall
		for c := 1; c <= 3; c++ {
			calls = append(calls, fakeapi.ToolCall{ID: fmt.Sprintf("call_%d_%d", s, c), Name: "echo", Arguments: fmt.Sprintf(`{"n":"{{prompt}} %d-%d"}`, s, c)})
		}
		steps = append(steps, fakeapi.Step{ToolCalls: calls})
	}
	return &fakeapi.Conversations{Steps: append(steps, fakeapi.Step{Text: strp("done {{prompt}}")})}
}

// fake is a fake server of one API and what a run needs of it.
type fake interface {
	Violations() []string
	BatchCounts() fakeapi.BatchCounts
	SetBatchPace(fakeapi.BatchPace)
	Close()
}

// fakeServer is a fake and the base URL a provider reaches it at.
type fakeServer struct {
	fake
	url string
}

// api is one API under test: its server and its provider.
type api struct {
	name  string
	serve func(*fakeapi.Conversations) fakeServer
	// codec builds the provider; batches its batch endpoints.
	lane func(t *testing.T, url string) *batchapi.Lane
}

var apis = []api{
	{
		name: "openai",
		serve: func(c *fakeapi.Conversations) fakeServer {
			s := fakeapi.NewOpenAIConversations(c, "test")
			return fakeServer{s, s.URL + "/v1"}
		},
		lane: func(t *testing.T, url string) *batchapi.Lane {
			p, err := openai.NewChat(openai.Config{APIKey: "test", BaseURL: url, Model: "gpt-4o-mini", MaxRetries: 0})
			return newLane(t, "openai "+url, p, err, p.Batches)
		},
	},
	{
		name: "responses",
		serve: func(c *fakeapi.Conversations) fakeServer {
			s := fakeapi.NewResponsesConversations(c, "test")
			return fakeServer{s, s.URL + "/v1"}
		},
		lane: func(t *testing.T, url string) *batchapi.Lane {
			p, err := openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{APIKey: "test", BaseURL: url, Model: "gpt-5-mini"}})
			return newLane(t, "responses "+url, p, err, p.Batches)
		},
	},
	{
		name: "anthropic",
		serve: func(c *fakeapi.Conversations) fakeServer {
			s := fakeapi.NewAnthropicConversations(c, "test")
			return fakeServer{s, s.URL}
		},
		lane: func(t *testing.T, url string) *batchapi.Lane {
			p, err := anthropic.NewMessages(anthropic.Config{APIKey: "test", BaseURL: url, Model: "claude-sonnet-4-5"})
			return newLane(t, "anthropic "+url, p, err, p.Batches)
		},
	},
}

// start serves conv, until the test ends, and returns the server and the
// lane of a provider of it.
func (a api) start(t *testing.T, conv *fakeapi.Conversations) (fakeServer, *batchapi.Lane) {
	t.Helper()
	srv := a.serve(conv)
	t.Cleanup(srv.Close)
	return srv, a.lane(t, srv.url)
}

// newLane is the lane of a provider's batch endpoints; err is what making
// the provider returned.
func newLane[B interface {
	batchapi.Service
	Endpoint() string
}](t *testing.T, key string, p batchapi.Codec, err error, batches func() (B, error)) *batchapi.Lane {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	b, err := batches()
	if err != nil {
		t.Fatal(err)
	}
	return &batchapi.Lane{Codec: p, Service: b, Endpoint: b.Endpoint(), Key: key, MaxRetries: 2}
}

// echo answers a call with its argument.
type echo struct{}

func (echo) Call(_ context.Context, name, _ string, args []byte) agent.ToolResult {
	var a struct{ N string }
	_ = json.Unmarshal(args, &a)
	return agent.ToolResult{Content: "echo " + a.N, Kind: wire.KindOK}
}

func toolDefs(t *testing.T, d agent.Dialect) []agent.Message {
	defs, err := d.ToolDefs([]agent.ToolSpec{{Name: "echo", Description: "Echoes n.", Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// item is one item of a test's run, and how it ended.
type item struct {
	name, prompt string
	maxSteps     int
	state        *agent.State
	out          *agent.Outcome
	err          error
	turns        []*agent.Turn
	// transcript, when not nil, receives the item's transcript.
	transcript *bytes.Buffer
}

// runBatch runs the items' loops through an engine of dir, and returns once
// every item has ended or ctx ends.
func runBatch(ctx context.Context, t *testing.T, lane *batchapi.Lane, dir string, items []*item, opts batchapi.Options) error {
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	opts.Dir = dir
	if opts.Poll == 0 {
		opts.Poll = time.Millisecond
	}
	opts.Interrupt = stop
	e, err := batchapi.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Add(len(items))
	done := make(chan struct{})
	go func() { e.Run(ctx); close(done) }()
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer e.Done()
			l := &agent.Loop{Provider: e.Provider(lane, it.name), Tools: echo{}, ToolDefs: toolDefs(t, lane.Codec), MaxSteps: it.maxSteps,
				OnEvent: func(ev agent.Event) {
					if ev.Kind == agent.EventTurn {
						it.turns = append(it.turns, ev.Turn)
					}
				}}
			if it.transcript != nil {
				w := transcript.NewWriter(it.transcript, nil)
				l.Transcript = w
				if err := w.WriteHeader(transcript.Header{Command: "batch", Provider: lane.Codec.Name(), Model: lane.Codec.Model(), Tools: toolDefs(t, lane.Codec)}); err != nil {
					t.Error(err)
				}
			}
			st := agent.State{Prompt: it.prompt}
			if it.state != nil {
				st = *it.state
			}
			it.out, it.err = l.Run(ctx, st)
		}()
	}
	wg.Wait()
	cause := context.Cause(ctx)
	stop(nil)
	<-done
	return cause
}

// runLive runs the items' loops with the provider itself.
func runLive(t *testing.T, p agent.Provider, items []*item) {
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &agent.Loop{Provider: p, Tools: echo{}, ToolDefs: toolDefs(t, p), MaxSteps: it.maxSteps}
			it.out, it.err = l.Prompt(context.Background(), it.prompt)
		}()
	}
	wg.Wait()
}

// validTranscript validates the transcript an item's loop wrote, as
// agentloop validate does: no finding of any severity.
func validTranscript(t *testing.T, it *item) {
	t.Helper()
	var found []string
	stats, err := transcript.Validate(it.name+".jsonl", bytes.NewReader(it.transcript.Bytes()), transcript.Options{}, func(f transcript.Finding) {
		found = append(found, fmt.Sprintf("line %d: %s %s", f.Line, f.Code, f.Message))
	})
	if err != nil {
		t.Fatalf("%s: %v", it.name, err)
	}
	if len(found) > 0 {
		t.Errorf("%s: the transcript has findings: %s", it.name, strings.Join(found, "; "))
	}
	if stats.ToolCalls != 6 || stats.Unchecked != 0 {
		t.Errorf("%s: the transcript holds %d tool calls (%d conversations unchecked), want 6 checked", it.name, stats.ToolCalls, stats.Unchecked)
	}
}

func makeItems(n int) []*item {
	items := make([]*item, n)
	for i := range items {
		items[i] = &item{name: fmt.Sprintf("item-%d", i+1), prompt: fmt.Sprintf("p%d", i+1)}
	}
	return items
}

func checkClean(t *testing.T, f fakeServer) {
	t.Helper()
	if v := f.Violations(); len(v) > 0 {
		t.Errorf("the server saw %d violations, the first: %s", len(v), v[0])
	}
}

// rerunToTheEnd runs the items again in dir, their batches no longer held
// back, and checks that each answered as threeRounds has it and that the
// server saw nothing amiss.
func rerunToTheEnd(t *testing.T, srv fakeServer, lane *batchapi.Lane, dir string, items []*item) {
	t.Helper()
	srv.SetBatchPace(fakeapi.BatchPace{})
	if err := runBatch(context.Background(), t, lane, dir, items, batchapi.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.err != nil || it.out.Answer != "done "+it.prompt {
			t.Errorf("%s: %q, %v", it.name, it.out.Answer, it.err)
		}
	}
	checkClean(t, srv)
}

// Fifty items of three model calls each, with three parallel calls a turn,
// finish in three rounds of one batch each, every request billed once,
// with the answers a live run of the same items gives.
func TestRoundsAnswerAsLive(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			const n = 50
			srv, lane := a.start(t, threeRounds())
			items := makeItems(n)
			for _, it := range items {
				it.transcript = new(bytes.Buffer)
			}
			var rounds []int
			err := runBatch(context.Background(), t, lane, t.TempDir(), items, batchapi.Options{OnProgress: func(p batchapi.Progress) {
				if len(rounds) == 0 || rounds[len(rounds)-1] != p.Round {
					rounds = append(rounds, p.Round)
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			checkClean(t, srv)
			live, liveLane := a.start(t, threeRounds())
			liveItems := makeItems(n)
			runLive(t, liveLane.Codec, liveItems)
			checkClean(t, live)
			for i, it := range items {
				if it.err != nil {
					t.Fatalf("%s: %v", it.name, it.err)
				}
				if it.out.Answer != liveItems[i].out.Answer || it.out.Answer != "done "+it.prompt {
					t.Errorf("%s: answered %q in batches, %q live", it.name, it.out.Answer, liveItems[i].out.Answer)
				}
				if it.out.Steps != 3 {
					t.Errorf("%s: %d steps, want 3", it.name, it.out.Steps)
				}
				validTranscript(t, it)
				for s, turn := range it.turns {
					if turn.BatchID == "" || turn.CustomID != fmt.Sprintf("%s-s%d", it.name, s+1) {
						t.Errorf("%s: turn %d came from batch %q as %q", it.name, s+1, turn.BatchID, turn.CustomID)
					}
				}
			}
			c := srv.BatchCounts()
			if c.Batches != 3 || c.Billed != 3*n || c.Requests != 3*n {
				t.Errorf("%d batches, %d requests run, %d billed; want 3, %d, %d", c.Batches, c.Requests, c.Billed, 3*n, 3*n)
			}
			if fmt.Sprint(rounds) != "[1 2 3]" {
				t.Errorf("rounds reported %v, want [1 2 3]", rounds)
			}
		})
	}
}

// A run stopped while it waits on a batch (a kill) and run again submits
// nothing twice: it polls the batch in flight and reads those that ended.
func TestStoppedWhilePollingSubmitsNothingTwice(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			const n = 10
			srv, lane := a.start(t, threeRounds())
			// Never moved on by reads: the run waits on round 2 until
			// stopped.
			srv.SetBatchPace(fakeapi.BatchPace{Polls: -1})
			dir := t.TempDir()
			items := makeItems(n)
			// Round 1 goes through at once; the run stops while it
			// polls round 2.
			srv.SetBatchPace(fakeapi.BatchPace{})
			ctx, cancel := context.WithCancel(context.Background())
			_ = runBatch(ctx, t, lane, dir, items, batchapi.Options{OnProgress: func(p batchapi.Progress) {
				if p.Round == 2 && len(p.Batches) > 0 {
					srv.SetBatchPace(fakeapi.BatchPace{Polls: -1})
					cancel()
				}
			}})
			cancel()
			if c := srv.BatchCounts(); c.Batches != 2 || c.Billed != n {
				t.Fatalf("before the rerun: %d batches, %d billed; want 2, %d", c.Batches, c.Billed, n)
			}
			// The rerun goes on from each item's conversation as it was
			// left.
			for _, it := range items {
				if it.out == nil || it.err == nil {
					t.Fatalf("%s: not stopped (%v)", it.name, it.err)
				}
				it.state = &agent.State{Messages: it.out.Messages, Steps: it.out.Steps}
			}
			rerunToTheEnd(t, srv, lane, dir, items)
			if c := srv.BatchCounts(); c.Batches != 3 || c.Billed != 3*n {
				t.Errorf("after the rerun: %d batches, %d billed; want 3, %d", c.Batches, c.Billed, 3*n)
			}
			past, err := batchapi.ReadLog(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(past) != 3 {
				t.Fatalf("the log holds %d batches, want 3", len(past))
			}
			for _, b := range past {
				if b.ID == "" || b.Results == "" {
					t.Errorf("batch %d: id %q, results %q", b.Number, b.ID, b.Results)
				}
			}
		})
	}
}

// A request the batch's window closed on, and one the API answered with a
// 500, go into the next round, each for its own item; a 400 ends its
// item with the API's error; the other items are not held back.
func TestFailedRequestsRetriedPerItem(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			conv := threeRounds()
			conv.Prompts = map[string][]fakeapi.Step{
				"expires": {{BatchExpired: true}, {Text: strp("late answer")}},
				"flaky":   {{Status: 500, Error: "the server had an error"}, {Text: strp("second try")}},
				"refused": {{Status: 400, Error: "bad request body"}},
			}
			srv, lane := a.start(t, conv)
			items := append(makeItems(3),
				&item{name: "expires", prompt: "expires"}, &item{name: "flaky", prompt: "flaky"}, &item{name: "refused", prompt: "refused"})
			if err := runBatch(context.Background(), t, lane, t.TempDir(), items, batchapi.Options{}); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"expires": "late answer", "flaky": "second try"}
			for _, it := range items {
				switch it.name {
				case "refused":
					var pe *agent.ProviderError
					if !errors.As(it.err, &pe) || pe.Status != 400 || !strings.Contains(pe.Message, "bad request body") {
						t.Errorf("refused: %v, want the API's 400", it.err)
					}
				default:
					w := want[it.name]
					if w == "" {
						w = "done " + it.prompt
					}
					if it.err != nil || it.out.Answer != w {
						t.Errorf("%s: %q, %v; want %q", it.name, it.out.Answer, it.err, w)
					}
				}
			}
			for _, v := range srv.Violations() {
				if !strings.Contains(v, "bad request body") && !strings.Contains(v, "500") {
					t.Errorf("violation: %s", v)
				}
			}
		})
	}
}

// A request retried more times than --max-retries allows ends its item
// with what the provider said.
func TestRetriesHaveALimit(t *testing.T) {
	a := apis[0]
	conv := &fakeapi.Conversations{Steps: []fakeapi.Step{{BatchExpired: true}, {BatchExpired: true}, {BatchExpired: true}, {Text: strp("never")}}}
	_, lane := a.start(t, conv)
	items := makeItems(1)
	if err := runBatch(context.Background(), t, lane, t.TempDir(), items, batchapi.Options{}); err != nil {
		t.Fatal(err)
	}
	if it := items[0]; it.err == nil || !strings.Contains(it.err.Error(), "submitted 3 times") {
		t.Errorf("%v, want the request given up after 3 submissions", it.err)
	}
}

// A step budget ends an item in the round it allows: its last request asks
// for an answer without tools, and the item ends with that answer.
func TestBudgetEndsItemInItsRound(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			none := "none"
			conv := threeRounds()
			conv.Prompts = map[string][]fakeapi.Step{
				"short": {
					{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "echo", Arguments: `{"n":"x"}`}}},
					{Text: strp("what I have"), Expect: &fakeapi.Expect{ToolChoice: &none}},
				},
			}
			srv, lane := a.start(t, conv)
			items := append(makeItems(2), &item{name: "short", prompt: "short", maxSteps: 2})
			if err := runBatch(context.Background(), t, lane, t.TempDir(), items, batchapi.Options{}); err != nil {
				t.Fatal(err)
			}
			checkClean(t, srv)
			short := items[2]
			if short.err != nil || short.out.Answer != "what I have" || short.out.Exhausted != agent.ExhaustedSteps || short.out.Steps != 2 {
				t.Errorf("short: %q after %d steps (%s), %v", short.out.Answer, short.out.Steps, short.out.Exhausted, short.err)
			}
			for _, it := range items[:2] {
				if it.err != nil || it.out.Steps != 3 {
					t.Errorf("%s: %d steps, %v", it.name, it.out.Steps, it.err)
				}
			}
		})
	}
}

// --max-rounds stops the run before a round over it is submitted.
func TestMaxRounds(t *testing.T) {
	a := apis[2]
	srv, lane := a.start(t, threeRounds())
	items := makeItems(3)
	err := runBatch(context.Background(), t, lane, t.TempDir(), items, batchapi.Options{MaxRounds: 2})
	if !errors.Is(err, batchapi.ErrMaxRounds) {
		t.Fatalf("%v, want the run stopped by --max-rounds", err)
	}
	if c := srv.BatchCounts(); c.Batches != 2 {
		t.Errorf("%d batches, want 2", c.Batches)
	}
}

// A torn last line of the log (a kill while it was written) is cut off
// and the next record starts a line of its own.
func TestLogTornLine(t *testing.T) {
	dir := t.TempDir()
	l, err := batchapi.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(batchapi.Record{Event: batchapi.EventSubmit, Batch: 1, Round: 1}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	f, _ := os.OpenFile(filepath.Join(dir, batchapi.LogName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"event":"batch","batch":1,"batch_`)
	f.Close()
	if bs, err := batchapi.ReadLog(dir); err != nil || len(bs) != 1 || bs[0].ID != "" {
		t.Fatalf("%v, %v", bs, err)
	}
	l, err = batchapi.OpenLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(batchapi.Record{Event: batchapi.EventBatch, Batch: 1, BatchID: "b1"}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	bs, err := batchapi.ReadLog(dir)
	if err != nil || len(bs) != 1 || bs[0].ID != "b1" {
		t.Fatalf("%+v, %v", bs, err)
	}
}

// A batch cancelled while the run waits on it (batch cancel) stops the
// run; run again, the requests cancelled before they ran go out in a new
// round and the items answer.
func TestCancelledBatchStopsTheRun(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			const n = 3
			srv, lane := a.start(t, threeRounds())
			srv.SetBatchPace(fakeapi.BatchPace{Polls: 3})
			dir := t.TempDir()
			items := makeItems(n)
			var once sync.Once
			err := runBatch(context.Background(), t, lane, dir, items, batchapi.Options{OnProgress: func(p batchapi.Progress) {
				if len(p.Batches) > 0 {
					once.Do(func() {
						if _, err := lane.Service.Cancel(context.Background(), p.Batches[0].ID); err != nil {
							t.Error(err)
						}
					})
				}
			}})
			if !errors.Is(err, batchapi.ErrCancelled) {
				t.Fatalf("%v, want the run stopped by the cancelled batch", err)
			}
			for _, it := range items {
				if it.out == nil || it.out.Reason != wire.ReasonInterrupted {
					t.Fatalf("%s: %+v", it.name, it.out)
				}
				it.state = &agent.State{Messages: it.out.Messages}
			}
			rerunToTheEnd(t, srv, lane, dir, items)
			if c := srv.BatchCounts(); c.Batches != 4 || c.Billed != 3*n {
				t.Errorf("%d batches, %d billed; want 4, %d", c.Batches, c.Billed, 3*n)
			}
		})
	}
}

// A run killed after it created a batch but before it recorded the
// batch's id: run again, it finds the batch (OpenAI by its input file,
// Anthropic by its time and size) and polls it, making none again.
func TestBatchMadeButNotRecordedIsFound(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			const n = 4
			srv, lane := a.start(t, threeRounds())
			srv.SetBatchPace(fakeapi.BatchPace{Polls: -1})
			dir := t.TempDir()
			items := makeItems(n)
			ctx, cancel := context.WithCancel(context.Background())
			_ = runBatch(ctx, t, lane, dir, items, batchapi.Options{OnProgress: func(p batchapi.Progress) {
				if len(p.Batches) > 0 {
					cancel()
				}
			}})
			cancel()
			// The log as a kill before the batch's id was written leaves it.
			path := filepath.Join(dir, batchapi.LogName)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var kept []string
			for _, line := range strings.SplitAfter(string(data), "\n") {
				if !strings.Contains(line, `"event":"batch"`) && !strings.Contains(line, `"event":"status"`) {
					kept = append(kept, line)
				}
			}
			if err := os.WriteFile(path, []byte(strings.Join(kept, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				it.state = &agent.State{Messages: it.out.Messages}
			}
			rerunToTheEnd(t, srv, lane, dir, items)
			if c := srv.BatchCounts(); c.Batches != 3 || c.Billed != 3*n {
				t.Errorf("%d batches, %d billed; want 3, %d", c.Batches, c.Billed, 3*n)
			}
		})
	}
}
