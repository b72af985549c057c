package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// slowAndMark is the report's pair of tools: wait runs until the run is
// interrupted (or, once released, answers at once); mark has a side effect
// and finishes at once, and the run is interrupted the moment it has.
type slowAndMark struct {
	interrupt context.CancelFunc
	released  bool

	mu    sync.Mutex
	ran   []string // call ids, in the order they started
	marks int      // mark's side effects
}

func (x *slowAndMark) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	x.mu.Lock()
	x.ran = append(x.ran, callID)
	x.mu.Unlock()
	switch name {
	case "mark":
		x.mu.Lock()
		x.marks++
		x.mu.Unlock()
		if x.interrupt != nil {
			x.interrupt()
		}
		return agent.ToolResult{Content: "marked"}
	case "wait":
		if !x.released {
			<-ctx.Done()
			return agent.ToolResult{IsError: true, Kind: wire.KindCanceled, ExitCode: -1, Content: "canceled before the tool finished"}
		}
		return agent.ToolResult{Content: "waited"}
	}
	return agent.ToolResult{IsError: true, Kind: wire.KindUnknownTool, ExitCode: -1, Content: "unknown tool " + name}
}

func (x *slowAndMark) calls() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return slices.Clone(x.ran)
}

// fakeServer is a fake API of either shape and a provider that talks to it.
type fakeServer interface {
	Check() error
	Requests() []fakeapi.Request
	Close()
}

// defsOf defines tools that take no arguments, in the provider's wire
// form: the Messages API wants the tools of a conversation with tool calls
// in it defined.
func defsOf(t *testing.T, d agent.Dialect, names ...string) []json.RawMessage {
	t.Helper()
	specs := make([]agent.ToolSpec, len(names))
	for i, n := range names {
		specs[i] = agent.ToolSpec{Name: n, Description: n + ".", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	}
	defs, err := d.ToolDefs(specs)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

func fakeProvider(t *testing.T, shape string, steps []fakeapi.Step) (agent.Provider, fakeServer) {
	t.Helper()
	var (
		p   agent.Provider
		srv fakeServer
		err error
	)
	switch shape {
	case "openai":
		s := fakeapi.NewOpenAI(steps, "")
		srv = s
		p, err = openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m"})
	case "anthropic":
		s := fakeapi.NewAnthropic(steps, "")
		srv = s
		p, err = anthropic.NewMessages(anthropic.Config{BaseURL: s.BaseURL(), Model: "m"})
	case "responses":
		s := fakeapi.NewResponses(steps, "")
		srv = s
		p, err = openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: s.BaseURL(), Model: "m"}})
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return p, srv
}

// An interrupt while one call of a turn still runs keeps the result of the
// call that finished: it is recorded as a result record, the resume
// answers it from there without running it again, runs only the call cut
// short, and sends every result where the API wants it (one tool message
// each for OpenAI, one user message for Anthropic).
func TestInterruptKeepsFinishedCallsAndResumeRunsOnlyTheOthers(t *testing.T) {
	for _, shape := range []string{"openai", "anthropic"} {
		t.Run(shape, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ex := &slowAndMark{interrupt: cancel}
			calls := []fakeapi.ToolCall{
				{ID: "call_wait", Name: "wait", Arguments: `{}`},
				{ID: "call_mark", Name: "mark", Arguments: `{}`},
			}
			p, srv := fakeProvider(t, shape, []fakeapi.Step{{ToolCalls: calls}})
			var buf bytes.Buffer
			w := transcript.NewWriter(&buf, nil)
			if err := w.WriteHeader(transcript.Header{Provider: shape, Model: "m"}); err != nil {
				t.Fatal(err)
			}
			out, err := (&agent.Loop{Provider: p, Tools: ex, Transcript: w, ToolDefs: defsOf(t, p, "wait", "mark")}).Prompt(ctx, "wait, and mark")
			if err == nil || out.Reason != wire.ReasonInterrupted {
				t.Fatalf("reason %q, err %v", out.Reason, err)
			}
			if err := srv.Check(); err != nil {
				t.Error(err)
			}

			// The transcript: the prompt, the turn, mark's result record,
			// no message answering either call, the end.
			var results []*transcript.CallResult
			for _, r := range records(t, buf.Bytes()) {
				if r.Result != nil {
					results = append(results, r.Result)
				}
				if r.Message != nil && len(r.Message.Results) > 0 {
					t.Errorf("line %d answers calls: %s", r.Line, r.Message.Message)
				}
			}
			if len(results) != 1 || results[0].CallID != "call_mark" || results[0].Name != "mark" ||
				results[0].Content != "marked" || results[0].IsError || results[0].Step != 1 {
				t.Fatalf("result records %+v, want mark's alone", results)
			}
			validate(t, buf.Bytes(), transcript.Options{AllowPending: true}, nil)
			validate(t, buf.Bytes(), transcript.Options{}, []string{"pending-call"})

			// Resumed: the model sees both results; only wait runs.
			convs, err := transcript.ReadConversations(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			conv := convs[0]
			if len(conv.Finished) != 1 {
				t.Fatalf("conversation's finished calls: %+v", conv.Finished)
			}
			msgs := 4 // user, assistant, two tool messages
			if shape == "anthropic" {
				msgs = 3 // user, assistant, one user message of results
			}
			expect := &fakeapi.Expect{Messages: msgs, Results: map[string]string{"call_wait": "waited", "call_mark": "marked"}}
			p2, srv2 := fakeProvider(t, shape, []fakeapi.Step{{Text: text("done"), Expect: expect}})
			ex2 := &slowAndMark{released: true}
			var events []agent.Event
			var buf2 bytes.Buffer
			w2 := transcript.NewWriter(&buf2, nil)
			if err := w2.WriteHeader(transcript.Header{Provider: shape, Model: "m"}); err != nil {
				t.Fatal(err)
			}
			for _, m := range conv.Messages {
				if err := w2.WriteMessage(m); err != nil {
					t.Fatal(err)
				}
			}
			st := agent.State{Messages: messagesOf(conv), Finished: agent.FinishedFromRecords(conv.Finished), Steps: 1}
			loop := &agent.Loop{Provider: p2, Tools: ex2, Transcript: w2, ToolDefs: defsOf(t, p2, "wait", "mark"), OnEvent: func(e agent.Event) {
				if e.Kind == agent.EventCallDone {
					events = append(events, e)
				}
			}}
			out, err = loop.Run(context.Background(), st)
			if err != nil || out.Answer != "done" {
				t.Fatalf("resume: %v, %+v", err, out)
			}
			if err := srv2.Check(); err != nil {
				t.Error(err)
			}
			if got := ex2.calls(); !slices.Equal(got, []string{"call_wait"}) || ex2.marks != 0 {
				t.Errorf("resume ran %v (%d marks), want only call_wait", got, ex2.marks)
			}
			recorded := 0
			for _, e := range events {
				if e.Recorded {
					recorded++
					if e.Call.ID != "call_mark" || e.Result.Content != "marked" {
						t.Errorf("recorded event %+v", e)
					}
				}
			}
			if recorded != 1 || len(events) != 2 {
				t.Errorf("%d call events, %d of them recorded; want 2 and 1", len(events), recorded)
			}
			// The results message keeps call order and the recorded
			// metadata of the call that was not run again.
			var answered []transcript.Result
			for _, r := range records(t, buf2.Bytes()) {
				if r.Message != nil {
					answered = append(answered, r.Message.Results...)
				}
			}
			if len(answered) != 2 || answered[0].CallID != "call_wait" || answered[1].CallID != "call_mark" || answered[1].Name != "mark" {
				t.Errorf("results recorded on resume: %+v", answered)
			}
			validate(t, buf2.Bytes(), transcript.Options{}, nil)
		})
	}
}

// When every call of the turn finished before the interrupt took hold, the
// results are appended (nothing is lost, nothing pending) and the run
// stops before the next request.
func TestInterruptAfterEveryCallFinishedKeepsTheResults(t *testing.T) {
	for _, shape := range []string{"openai", "anthropic"} {
		t.Run(shape, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			interrupted := errors.New("interrupted")
			ex := &slowAndMark{interrupt: func() { cancel(interrupted) }}
			p, srv := fakeProvider(t, shape, []fakeapi.Step{
				{ToolCalls: []fakeapi.ToolCall{{ID: "call_mark", Name: "mark", Arguments: `{}`}}},
				{Text: text("never asked")},
			})
			var buf bytes.Buffer
			w := transcript.NewWriter(&buf, nil)
			if err := w.WriteHeader(transcript.Header{Provider: shape, Model: "m"}); err != nil {
				t.Fatal(err)
			}
			out, err := (&agent.Loop{Provider: p, Tools: ex, Transcript: w, ToolDefs: defsOf(t, p, "wait", "mark")}).Prompt(ctx, "mark")
			// The error is the cause, which tells the caller an interrupt
			// (exit 130) from another end.
			if !errors.Is(err, interrupted) || out.Reason != wire.ReasonInterrupted {
				t.Fatalf("reason %q, err %v", out.Reason, err)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
			answered := 0
			for _, r := range records(t, buf.Bytes()) {
				if r.Message != nil {
					answered += len(r.Message.Results)
				}
			}
			if answered != 1 {
				t.Errorf("%d calls answered in the transcript, want 1", answered)
			}
			validate(t, buf.Bytes(), transcript.Options{}, nil)
		})
	}
}

// A result in State.Finished for a call that is not pending (already
// answered, or of another turn) is ignored: it neither answers a call
// twice nor keeps a pending call from running.
func TestFinishedResultsOfOtherCallsAreIgnored(t *testing.T) {
	d := agent.AnthropicDialect{}
	asst := []byte(`{"role":"assistant","content":[{"type":"tool_use","id":"call_wait","name":"wait","input":{}}]}`)
	p, srv := fakeProvider(t, "anthropic", []fakeapi.Step{{Text: text("done"), Expect: &fakeapi.Expect{
		Messages: 3, Results: map[string]string{"call_wait": "waited"},
	}}})
	ex := &slowAndMark{released: true}
	st := agent.State{
		Messages: []agent.Message{d.UserMessage("go"), asst},
		Finished: []agent.CallResult{{Call: agent.Call{ID: "call_old", Name: "mark"}, Result: agent.ToolResult{Content: "marked"}}},
		Steps:    1,
	}
	if _, err := (&agent.Loop{Provider: p, Tools: ex, ToolDefs: defsOf(t, p, "wait", "mark")}).Run(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if got := ex.calls(); !slices.Equal(got, []string{"call_wait"}) {
		t.Errorf("ran %v", got)
	}
}

func messagesOf(conv *transcript.Conversation) []agent.Message {
	out := make([]agent.Message, len(conv.Messages))
	for i, m := range conv.Messages {
		out[i] = m.Message
	}
	return out
}

// validate checks a transcript and compares the codes found with want.
func validate(t *testing.T, data []byte, opts transcript.Options, want []string) {
	t.Helper()
	var got []string
	if _, err := transcript.Validate("t.jsonl", bytes.NewReader(data), opts, func(f transcript.Finding) {
		got = append(got, f.Code)
		t.Logf("%s", f)
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("validate %+v: codes %v, want %v\n%s", opts, got, want, data)
	}
}
