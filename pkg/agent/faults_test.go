package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// A streamed answer that stops before the message is finished is a
// provider error, never a shorter answer: the partial turn is neither
// printed as final nor appended to the conversation.
func TestStreamStoppingEarlyIsAnError(t *testing.T) {
	const answer = "It is warmer in Paris today."
	for _, provider := range []string{"openai", "anthropic"} {
		// Events: OpenAI sends a role chunk, 4 text chunks, the finish
		// reason, the usage and [DONE]; Anthropic message_start, a block
		// start, 5 deltas, the block stop, message_delta and message_stop.
		cuts := map[string][]int{"openai": {1, 3, 5}, "anthropic": {1, 4, 8}}[provider]
		for _, cut := range cuts {
			t.Run(provider, func(t *testing.T) {
				steps := []fakeapi.Step{{Text: text(answer), StreamStop: cut}}
				onText := func(l *agent.Loop) { l.OnText = func(string) {} }
				var out *agent.Outcome
				var tr []byte
				var err error
				if provider == "openai" {
					out, _, tr, err = run(t, steps, weatherTools(), onText)
				} else {
					out, _, tr, err = runAnt(t, steps, weatherTools(), onText)
				}
				var pe *agent.ProviderError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), "the stream ended before the message was complete") {
					t.Fatalf("cut after %d events: err = %v, want a provider error", cut, err)
				}
				if out.Answer != "" || out.Reason != wire.ReasonError || len(out.Messages) != 1 {
					t.Errorf("outcome %+v", out)
				}
				recs := records(t, tr)
				// header, user, end
				if len(recs) != 3 || recs[2].End == nil || recs[2].End.Reason != wire.ReasonError {
					t.Errorf("transcript:\n%s", tr)
				}
			})
		}
	}
}

// failAfter is a transcript sink that takes n writes, then fails every
// write as a full disk does.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, syscall.ENOSPC
	}
	f.n--
	return len(p), nil
}

// countingProvider counts the model requests a Scripted provider answers.
type countingProvider struct {
	*agent.Scripted
	requests atomic.Int32
}

func (c *countingProvider) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	c.requests.Add(1)
	return c.Scripted.Complete(ctx, req)
}

// When the transcript cannot be written, the run stops at that record with
// the write error: no tool runs and no request goes out that the
// transcript would not show.
func TestTranscriptWriteErrorStopsTheRun(t *testing.T) {
	d := agent.OpenAIDialect{}
	call := json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"c2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Dublin\"}"}}]}`)
	final := json.RawMessage(`{"role":"assistant","content":"Paris is warmer."}`)
	turns := func() []*agent.Turn {
		var out []*agent.Turn
		for _, m := range []json.RawMessage{call, final} {
			tu, err := d.ParseAssistant(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, tu)
		}
		return out
	}
	// Records: 1 header, 2 user, 3 assistant with calls, 4 and 5 the
	// result records of the calls as they finish, 6 and 7 the results,
	// 8 the answer, 9 end.
	for n := 1; n <= 8; n++ {
		sink := &failAfter{n: n}
		w := transcript.NewWriter(sink, nil)
		if err := w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"}); err != nil {
			t.Fatal(err)
		}
		prov := &countingProvider{Scripted: agent.NewScripted(d, "m", turns())}
		ex := weatherTools()
		// One call at a time, so that a result record that fails stops
		// the next call from starting.
		out, err := (&agent.Loop{Provider: prov, Tools: ex, Transcript: w, Parallel: 1}).Prompt(context.Background(), "weather?")
		if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "write transcript (stream): no space left on device") {
			t.Fatalf("fail after %d records: err = %v", n, err)
		}
		if out.Reason != wire.ReasonError {
			t.Errorf("fail after %d records: reason %q", n, out.Reason)
		}
		wantRequests, wantCalls := 0, 0
		if n >= 2 { // the prompt is on record: the model may be asked
			wantRequests = 1
		}
		if n >= 3 { // the calls are on record: they may run
			wantCalls = 1
		}
		if n >= 4 { // the first call's result is on record: the next may run
			wantCalls = 2
		}
		if n >= 7 { // their results are on record: the model may be asked again
			wantRequests = 2
		}
		if got := int(prov.requests.Load()); got != wantRequests {
			t.Errorf("fail after %d records: %d model requests, want %d", n, got, wantRequests)
		}
		if got := len(ex.calls); got != wantCalls {
			t.Errorf("fail after %d records: %d tool calls ran, want %d", n, got, wantCalls)
		}
	}
}

// An executor that panics is a bug; the run survives it, the model is told,
// and the transcript stays whole.
func TestExecutorPanicIsAnObservation(t *testing.T) {
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": func(map[string]any) agent.ToolResult { panic("index out of range") },
	}}
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text("The tool broke."), Expect: &fakeapi.Expect{Errors: []string{"c1"}, Results: map[string]string{"c1": "internal error running get_weather: index out of range"}}},
	}
	out, _, tr, err := run(t, steps, ex, nil)
	if err != nil || out.Answer != "The tool broke." {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	if !bytes.Contains(tr, []byte(`"error":"panic"`)) {
		t.Errorf("the result is not recorded as a panic:\n%s", tr)
	}
}
