package agent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// longSteps are n turns of one weather call each (ids c01, c02, …), then
// an answer; the last step's request must carry the results of the calls
// named cleared.
func longSteps(n int, cleared ...string) []fakeapi.Step {
	var steps []fakeapi.Step
	for i := 1; i <= n; i++ {
		steps = append(steps, fakeapi.Step{ToolCalls: []fakeapi.ToolCall{{ID: fmt.Sprintf("c%02d", i), Name: "get_weather", Arguments: `{"city":"Paris"}`}}})
	}
	return append(steps, fakeapi.Step{Text: text("Mild all week."), Expect: &fakeapi.Expect{Cleared: cleared}})
}

// Old tool results are cleared from what is sent once a request would pass
// the context limit: the oldest first, never the last Keep, in batches; the
// fake servers check that each request repeats the last but for results
// replaced by a placeholder, and the transcript keeps every result whole
// and says what each request cleared.
func TestContextClearing(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			policy := &agent.ContextPolicy{Limit: 3500, Keep: 2, ClearAtLeast: 1500}
			out, reqs, tr, err := runWith(t, provider, longSteps(8, "c01", "c02", "c03", "c04"), bigWeather(), func(l *agent.Loop) {
				l.Context, l.MaxSteps = policy, 20
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != wire.ReasonStop || out.Answer != "Mild all week." {
				t.Fatalf("reason %q answer %q", out.Reason, out.Answer)
			}
			// Every request within the limit, as the fakes count tokens.
			for _, r := range out.Requests {
				if r.InputTokens > policy.Limit {
					t.Errorf("step %d carried %d input tokens, over the limit of %d", r.Step, r.InputTokens, policy.Limit)
				}
			}
			// The last two results are whole in the last request.
			last := string(reqs[len(reqs)-1].Body)
			if strings.Count(last, "[cleared to save context:") < 4 || strings.Count(last, "sunny and mild, sunny") < 2 {
				t.Errorf("the last request carries %d placeholders and %d whole results", strings.Count(last, "[cleared"), strings.Count(last, "sunny and mild, sunny"))
			}
			// Batches: fewer clearings than cleared results.
			batches, cleared := 0, 0
			recs := records(t, tr)
			seen := map[string]bool{}
			for _, rec := range recs {
				m := rec.Message
				if m == nil {
					continue
				}
				if len(m.Cleared) > 0 {
					batches++
				}
				for _, c := range m.Cleared {
					cleared++
					if seen[c.CallID] {
						t.Errorf("%s cleared twice", c.CallID)
					}
					seen[c.CallID] = true
					if !strings.HasPrefix(c.Placeholder, "[cleared to save context: 3.") || c.Name != "get_weather" || c.Bytes < 3200 {
						t.Errorf("cleared entry %+v", c)
					}
					if held := recs[c.Seq].Message; held == nil || !bytes.Contains(held.Message, []byte(c.CallID)) {
						t.Errorf("seq %d does not hold the result of %s", c.Seq, c.CallID)
					}
				}
			}
			if cleared < 4 || batches >= cleared {
				t.Errorf("%d results cleared in %d batches", cleared, batches)
			}
			// The transcript keeps every result whole.
			if n := bytes.Count(tr, []byte("sunny and mild, sunny")); n < 8 {
				t.Errorf("the transcript holds %d whole results, want 8", n)
			}
			mustValidate(t, tr)
		})
	}
}

// When clearing cannot keep the next request under the limit, the last
// request that fits asks for an answer and the run ends as the limit's.
func TestContextLimitFinalAnswer(t *testing.T) {
	out, m, tr := runObedient(t, func(l *agent.Loop) {
		l.Context = &agent.ContextPolicy{Limit: 4000, Keep: 3}
	})
	if out.Reason != wire.ReasonContext || out.Exhausted != agent.ExhaustedContext || out.Answer != "Mild." {
		t.Fatalf("reason %q exhausted %q answer %q", out.Reason, out.Exhausted, out.Answer)
	}
	if !m.reqs[len(m.reqs)-1].ToolChoiceNone {
		t.Error("the last request did not ask for an answer")
	}
	for i, size := range m.sizes {
		if size/4 > 4000 {
			t.Errorf("request %d: %d tokens, over the limit", i+1, size/4)
		}
	}
	recs := records(t, tr)
	if end := recs[len(recs)-1].End; end == nil || end.Reason != "context" {
		t.Errorf("end %+v", end)
	}
}

// A prompt over the limit by itself is not sent.
func TestContextLimitTooSmall(t *testing.T) {
	out, m, _ := runObedient(t, func(l *agent.Loop) { l.Context = &agent.ContextPolicy{Limit: 10, Keep: 3} })
	if len(m.reqs) != 0 || out.Reason != wire.ReasonContext || out.Estimate == "" {
		t.Errorf("%d requests, reason %q, estimate %q", len(m.reqs), out.Reason, out.Estimate)
	}
}

// A resumed conversation starts with the results the recorded run cleared
// cleared again, so its first request is the one the run would have sent.
func TestResumeKeepsClearedResults(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			policy := &agent.ContextPolicy{Limit: 3500, Keep: 2, ClearAtLeast: 1500}
			// Stopped after six steps, answered.
			_, _, tr, err := runWith(t, provider, longSteps(6)[:6], bigWeather(), func(l *agent.Loop) {
				l.Context, l.MaxSteps, l.NoFinalAnswer = policy, 6, true
			})
			if err != nil {
				t.Fatal(err)
			}
			conv, err := transcript.ReadConversations(bytes.NewReader(tr))
			if err != nil {
				t.Fatal(err)
			}
			st := agent.State{}
			var cleared []string
			for _, rec := range conv[0].Messages {
				st.Messages = append(st.Messages, rec.Message)
				st.Cleared = append(st.Cleared, rec.Cleared...)
				for _, c := range rec.Cleared {
					cleared = append(cleared, c.CallID)
				}
			}
			if len(cleared) == 0 {
				t.Fatal("the first run cleared nothing")
			}
			steps := []fakeapi.Step{{Text: text("Done."), Expect: &fakeapi.Expect{Cleared: cleared}}}
			p, srv := fakeProvider(t, provider, steps)
			defs, _ := p.ToolDefs(weatherDef())
			out, err := (&agent.Loop{Provider: p, Tools: bigWeather(), ToolDefs: defs, Context: policy}).Run(context.Background(), st)
			if err != nil || out.Answer != "Done." {
				t.Fatalf("err %v, answer %q", err, out.Answer)
			}
			if err := srv.(interface{ Check() error }).Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

// context_editing: server sends the API's own clearing instead, with its
// beta header, and records what the API says it cleared.
func TestServerClearing(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) { testServerClearing(t, stream) })
	}
}

func testServerClearing(t *testing.T, stream bool) {
	srv := fakeapi.NewAnthropic(longSteps(6), "")
	defer srv.Close()
	policy := &agent.ContextPolicy{Limit: 3000, Keep: 2, ClearAtLeast: 500}
	p, err := anthropic.NewMessages(anthropic.Config{BaseURL: srv.BaseURL(), Model: "claude-x", ServerClearing: policy})
	if err != nil {
		t.Fatal(err)
	}
	defs, _ := p.ToolDefs(weatherDef())
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	w.WriteHeader(transcript.Header{Provider: "anthropic", Model: "claude-x", Tools: defs})
	l := &agent.Loop{Provider: p, Tools: bigWeather(), ToolDefs: defs, Transcript: w}
	if stream {
		l.OnText = func(string) {}
	}
	out, err := l.Prompt(context.Background(), "weather?")
	if err != nil || out.Answer != "Mild all week." {
		t.Fatalf("err %v, outcome reason %q", err, out.Reason)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	req := srv.Requests()[0]
	if !strings.Contains(req.Header.Get("Anthropic-Beta"), "context-management-2025-06-27") {
		t.Errorf("beta header %q", req.Header.Get("Anthropic-Beta"))
	}
	if !bytes.Contains(req.Body, []byte(`"context_management":{"edits":[{"clear_at_least":{"type":"input_tokens","value":500},"exclude_tools":null,"keep":{"type":"tool_uses","value":2},"trigger":{"type":"input_tokens","value":3000},"type":"clear_tool_uses_20250919"}]}`)) &&
		!bytes.Contains(req.Body, []byte(`"clear_tool_uses_20250919"`)) {
		t.Errorf("no context management in %s", req.Body)
	}
	// Nothing is cleared by agentloop: every request holds every result.
	if last := srv.Requests()[len(srv.Requests())-1].Body; bytes.Contains(last, []byte("[cleared")) {
		t.Error("agentloop cleared results itself")
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"context_management":{"applied_edits":[{"cleared_input_tokens":`)) {
		t.Errorf("the API's clearing is not recorded:\n%s", buf.Bytes())
	}
	mustValidate(t, buf.Bytes())
}

// A resumed transcript whose cleared entry names a message that holds no
// such result cannot be continued as it was sent: nothing is sent.
func TestResumeClearedMismatch(t *testing.T) {
	m := &obedient{Dialect: agent.OpenAIDialect{}}
	msgs := []agent.Message{
		agent.Message(`{"role":"user","content":"weather?"}`),
		agent.Message(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`),
		agent.Message(`{"role":"tool","tool_call_id":"c1","content":"sunny"}`),
	}
	st := agent.State{Messages: msgs, Steps: 1, Cleared: []transcript.Cleared{{CallID: "c1", Name: "get_weather", Seq: 2, Bytes: 7, Placeholder: "[cleared]"}}}
	out, err := (&agent.Loop{Provider: m, Tools: bigWeather(), Context: &agent.ContextPolicy{Limit: 1000, Keep: 1}}).Run(context.Background(), st)
	if !errors.Is(err, agent.ErrResume) || len(m.reqs) != 0 || out.Reason != wire.ReasonError {
		t.Errorf("err %v, %d requests, reason %q", err, len(m.reqs), out.Reason)
	}
}

// With --store the server holds what it was sent; once a clearing changes
// those items, the request goes whole (and smaller), without
// previous_response_id, and the fake server checks it is the conversation
// it held but for the cleared outputs.
func TestClearingWithStore(t *testing.T) {
	srv := fakeapi.NewResponses(longSteps(7, "c01", "c02"), "")
	defer srv.Close()
	p, err := openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: srv.BaseURL(), Model: "m"}, Store: true})
	if err != nil {
		t.Fatal(err)
	}
	defs, _ := p.ToolDefs(weatherDef())
	policy := &agent.ContextPolicy{Limit: 3500, Keep: 2, ClearAtLeast: 1500}
	out, err := (&agent.Loop{Provider: p, Tools: bigWeather(), ToolDefs: defs, Context: policy, MaxSteps: 20}).Prompt(context.Background(), "weather?")
	if err != nil || out.Answer != "Mild all week." {
		t.Fatalf("err %v, reason %q", err, out.Reason)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	var whole, after int
	cleared := false
	for _, r := range srv.Requests() {
		hasPrev := bytes.Contains(r.Body, []byte(`"previous_response_id"`))
		if bytes.Contains(r.Body, []byte("[cleared")) && !cleared {
			cleared = true
			if hasPrev {
				t.Error("the request that first clears results leans on the server's copy of them")
			}
			whole++
			continue
		}
		if cleared && hasPrev {
			after++
		}
	}
	if !cleared || whole != 1 || after == 0 {
		t.Errorf("cleared %v; the clearing request sent whole %d time(s); %d later requests went on from the stored response", cleared, whole, after)
	}
}

// Results no request has carried yet are the model's to read: a clearing
// takes the ones it has read first, and never clears an unread one to make
// up its batch. Here a turn of three calls follows one of one; the request
// after them must free a little (the first result is enough), in a batch
// the older result alone cannot fill.
func TestClearingSparesUnreadResults(t *testing.T) {
	for _, provider := range providers {
		t.Run(provider, func(t *testing.T) {
			call := func(id string) fakeapi.ToolCall {
				return fakeapi.ToolCall{ID: id, Name: "get_weather", Arguments: `{"city":"Paris"}`}
			}
			whole := "sunny and mild, sunny"
			steps := []fakeapi.Step{
				{ToolCalls: []fakeapi.ToolCall{call("c01")}},
				{ToolCalls: []fakeapi.ToolCall{call("c02"), call("c03"), call("c04")}},
				{Text: text("Mild."), Expect: &fakeapi.Expect{Cleared: []string{"c01"},
					Results: map[string]string{"c02": whole, "c03": whole, "c04": whole}}},
			}
			policy := &agent.ContextPolicy{Limit: 3000, Keep: 1, ClearAtLeast: 2500}
			out, _, tr, err := runWith(t, provider, steps, bigWeather(), func(l *agent.Loop) { l.Context = policy })
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "Mild." {
				t.Fatalf("reason %q answer %q", out.Reason, out.Answer)
			}
			assertClearedOnlyRead(t, tr)
			mustValidate(t, tr)
		})
	}
}

// assertClearedOnlyRead fails when a request carries cleared a result that
// no earlier request carried: one the model never read.
func assertClearedOnlyRead(t *testing.T, tr []byte) {
	t.Helper()
	prevAssistant := 0 // the seq of the assistant message before the request
	for _, rec := range records(t, tr) {
		m := rec.Message
		if m == nil || m.Step == 0 {
			continue
		}
		if len(m.Cleared) > 0 || m.Usage != nil {
			for _, c := range m.Cleared {
				if c.Seq > prevAssistant {
					t.Errorf("step %d cleared %s (seq %d), which no request had carried", m.Step, c.CallID, c.Seq)
				}
			}
			if m.Usage != nil {
				prevAssistant = m.Seq
			}
		}
	}
}
