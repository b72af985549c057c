package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeTools is an Executor whose tools are Go functions.
type fakeTools struct {
	fns     map[string]func(args map[string]any) agent.ToolResult
	running atomic.Int32
	peak    atomic.Int32
	mu      sync.Mutex
	calls   []string
}

func (f *fakeTools) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		p := f.peak.Load()
		if n <= p || f.peak.CompareAndSwap(p, n) {
			break
		}
	}
	f.mu.Lock()
	f.calls = append(f.calls, callID)
	f.mu.Unlock()
	fn, ok := f.fns[name]
	if !ok {
		return agent.ToolResult{IsError: true, Kind: wire.KindUnknownTool, ExitCode: -1, Content: fmt.Sprintf("unknown tool %q", name)}
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return agent.ToolResult{IsError: true, Kind: wire.KindBadArguments, ExitCode: -1, Content: "arguments are not valid JSON: " + err.Error()}
	}
	if ctx.Err() != nil {
		return agent.ToolResult{IsError: true, Kind: wire.KindCanceled, ExitCode: -1, Content: "canceled"}
	}
	return fn(m)
}

func weatherTools() *fakeTools {
	return &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": func(a map[string]any) agent.ToolResult {
			temps := map[string]string{"Paris": "19 C, clear", "Dublin": "12 C, rain", "Zürich": "8 C, fog"}
			city, _ := a["city"].(string)
			t, ok := temps[city]
			if !ok {
				return agent.ToolResult{IsError: true, Kind: wire.KindExit, ExitCode: 3, Content: "tool exited with code 3\ncity not found: " + city}
			}
			return agent.ToolResult{Content: city + ": " + t}
		},
	}}
}

func newOpenAI(t *testing.T, srv *fakeapi.OpenAI, retries int) *openai.Chat {
	t.Helper()
	p, err := openai.NewChat(openai.Config{APIKey: "sk-test-key-0123456789abcdefghij", BaseURL: srv.BaseURL(), Model: "gpt-4o-mini", MaxRetries: retries})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func text(s string) *string { return &s }

// run runs a loop against a fake OpenAI server and returns the outcome and
// the transcript written.
func run(t *testing.T, steps []fakeapi.Step, ex agent.Executor, configure func(*agent.Loop)) (*agent.Outcome, *fakeapi.OpenAI, []byte, error) {
	t.Helper()
	srv := fakeapi.NewOpenAI(steps, "sk-test-key-0123456789abcdefghij")
	t.Cleanup(srv.Close)
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, transcript.NewRedactor("sk-test-key-0123456789abcdefghij"))
	p := newOpenAI(t, srv, 0)
	if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: p.Model()}); err != nil {
		t.Fatal(err)
	}
	l := &agent.Loop{Provider: p, Tools: ex, Transcript: w}
	if configure != nil {
		configure(l)
	}
	out, err := l.Prompt(context.Background(), "Is it warmer in Paris or Dublin right now?")
	if v := srv.Check(); v != nil {
		t.Error(v)
	}
	return out, srv, buf.Bytes(), err
}

func records(t *testing.T, b []byte) []*transcript.Record {
	t.Helper()
	r := transcript.NewReader(bytes.NewReader(b))
	var out []*transcript.Record
	for {
		rec, err := r.Next()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("transcript: %v", err)
		}
		out = append(out, rec)
	}
}

func TestParallelCallsEachAnsweredUnderItsID(t *testing.T) {
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Dublin"}`},
		}},
		{Text: text("It is warmer in Paris."), Expect: &fakeapi.Expect{
			Messages: 4, Results: map[string]string{"call_1": "Paris: 19 C", "call_2": "Dublin: 12 C"},
		}},
	}
	out, srv, tr, err := run(t, steps, weatherTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "It is warmer in Paris." || out.Reason != wire.ReasonStop || out.Steps != 2 {
		t.Errorf("outcome = %+v", out)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	recs := records(t, tr)
	// header, user, assistant, a result record per call as it finished
	// (in any order), tool, tool, assistant, end
	if len(recs) != 9 {
		t.Fatalf("%d records, want 9", len(recs))
	}
	recorded := map[string]string{}
	for _, r := range recs[3:5] {
		if r.Result == nil || r.Result.Step != 1 || r.Result.Name != "get_weather" || r.Result.IsError || r.Result.ExitCode != 0 {
			t.Fatalf("record %d = %+v, want a result record", r.Line, r)
		}
		recorded[r.Result.CallID] = r.Result.Content
	}
	if recorded["call_1"] != "Paris: 19 C, clear" || recorded["call_2"] != "Dublin: 12 C, rain" {
		t.Errorf("result records hold %q", recorded)
	}
	recs = append(recs[:3:3], recs[5:]...)
	for i, id := range []string{"call_1", "call_2"} {
		m := recs[3+i].Message
		if len(m.Results) != 1 || m.Results[0].CallID != id || m.Results[0].Name != "get_weather" || m.Results[0].IsError {
			t.Errorf("record %d results = %+v", 3+i, m.Results)
		}
		if !strings.Contains(string(m.Message), `"tool_call_id":"`+id+`"`) {
			t.Errorf("record %d message = %s", 3+i, m.Message)
		}
	}
	if recs[2].Message.Usage == nil || recs[2].Message.Usage.InputTokens == 0 || recs[2].Message.FinishReason != "tool_calls" {
		t.Errorf("assistant record = %+v", recs[2].Message)
	}
	end := recs[6].End
	if end == nil || end.Reason != "stop" || end.Steps != 2 || end.Usage.InputTokens == 0 {
		t.Errorf("end = %+v", end)
	}
	if bytes.Contains(tr, []byte("sk-test-key")) {
		t.Error("the API key reached the transcript")
	}
}

func TestTenStepsResultsInOrderAndRequestsGrowByTheTurn(t *testing.T) {
	var steps []fakeapi.Step
	for i := 1; i <= 10; i++ {
		st := fakeapi.Step{ToolCalls: []fakeapi.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "counter", Arguments: fmt.Sprintf(`{"n":%d}`, i)}}}
		if i > 1 {
			st.Expect = &fakeapi.Expect{Messages: 1 + 2*(i-1), Results: map[string]string{fmt.Sprintf("call_%d", i-1): fmt.Sprintf("count %d", i-1)}}
		}
		steps = append(steps, st)
	}
	steps = append(steps, fakeapi.Step{Text: text("done"), Expect: &fakeapi.Expect{Messages: 21}})
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"counter": func(a map[string]any) agent.ToolResult {
			return agent.ToolResult{Content: fmt.Sprintf("count %v", a["n"])}
		},
	}}
	out, srv, _, err := run(t, steps, ex, func(l *agent.Loop) { l.MaxSteps = 11 })
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "done" || out.Steps != 11 {
		t.Errorf("outcome = %+v", out)
	}
	// Each request is the previous one plus exactly the assistant turn and
	// its result (the fake server checks the content; here the counts).
	reqs := srv.Requests()
	prev := 0
	for i, r := range reqs {
		var body struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if i > 0 && len(body.Messages) != prev+2 {
			t.Errorf("request %d has %d messages, want %d", i+1, len(body.Messages), prev+2)
		}
		prev = len(body.Messages)
	}
}

func TestFailuresAreObservations(t *testing.T) {
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": weatherTools().fns["get_weather"],
		"slow": func(map[string]any) agent.ToolResult {
			return agent.ToolResult{IsError: true, Kind: wire.KindTimeout, ExitCode: -1, Content: "timed out after 1s; the tool's process group was killed"}
		},
	}}
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "c1", Name: "no_such_tool", Arguments: `{}`},
			{ID: "c2", Name: "get_weather", Arguments: `{not json`},
			{ID: "c3", Name: "get_weather", Arguments: `{"city":"Atlantis"}`},
			{ID: "c4", Name: "slow", Arguments: `{}`},
		}},
		{Text: text("Some tools failed, but here is an answer."), Expect: &fakeapi.Expect{
			Errors:  []string{"c1", "c2", "c3", "c4"},
			Results: map[string]string{"c1": "unknown tool", "c2": "not valid JSON", "c3": "code 3", "c4": "timed out"},
		}},
	}
	out, _, tr, err := run(t, steps, ex, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != "stop" || out.Answer == "" {
		t.Errorf("outcome = %+v", out)
	}
	kinds := map[string]string{}
	for _, r := range records(t, tr) {
		if r.Message != nil {
			for _, res := range r.Message.Results {
				if !res.IsError {
					t.Errorf("%s not marked as an error", res.CallID)
				}
				kinds[res.CallID] = res.Error
			}
		}
	}
	want := map[string]string{"c1": "unknown_tool", "c2": "bad_arguments", "c3": "exit", "c4": "timeout"}
	for id, k := range want {
		if kinds[id] != k {
			t.Errorf("%s: error kind %q, want %q", id, kinds[id], k)
		}
	}
}

// Without a last request for an answer, a run that reaches --max-steps
// ends after its last turn's calls are answered.
func TestMaxStepsEndsWithEveryCallAnswered(t *testing.T) {
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{ToolCalls: []fakeapi.ToolCall{{ID: "b", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
	}
	out, srv, tr, err := run(t, steps, weatherTools(), func(l *agent.Loop) { l.MaxSteps, l.NoFinalAnswer = 2, true })
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonMaxSteps || out.Steps != 2 {
		t.Errorf("outcome = %+v", out)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d requests, want 2", len(srv.Requests()))
	}
	recs := records(t, tr)
	last := recs[len(recs)-1]
	if last.End == nil || last.End.Reason != "max_steps" {
		t.Errorf("last record = %+v", last)
	}
	// The last turn's call was answered: the conversation can go on.
	if prev := recs[len(recs)-2].Message; prev == nil || len(prev.Results) != 1 || prev.Results[0].CallID != "b" {
		t.Errorf("the last call was not answered: %+v", recs[len(recs)-2])
	}
}

func TestRetriesThenSuccess(t *testing.T) {
	steps := []fakeapi.Step{
		{Status: 500, Error: "boom"},
		{Status: 500, Error: "boom"},
		{Text: text("fine")},
	}
	srv := fakeapi.NewOpenAI(steps, "")
	defer srv.Close()
	p, err := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "m", MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&agent.Loop{Provider: p, Tools: weatherTools()}).Prompt(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "fine" || len(srv.Requests()) != 3 {
		t.Errorf("answer %q after %d requests", out.Answer, len(srv.Requests()))
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}

func TestUnauthorizedIsNotRetried(t *testing.T) {
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: text("never")}}, "the-right-key-123456")
	defer srv.Close()
	p, err := openai.NewChat(openai.Config{APIKey: "sk-wrong-key-abcdefghijklmnop", BaseURL: srv.BaseURL(), Model: "m", MaxRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	out, err := (&agent.Loop{Provider: p, Tools: weatherTools(), Transcript: w}).Prompt(context.Background(), "hi")
	var pe *agent.ProviderError
	if !asProviderError(err, &pe) || pe.Status != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 ProviderError", err)
	}
	if !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "OPENAI_API_KEY") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error text %q should name the status and the key, on one line", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (no retry on 401)", n)
	}
	if out.Reason != wire.ReasonError {
		t.Errorf("reason = %q", out.Reason)
	}
	if !bytes.Contains(buf.Bytes(), []byte(`"type":"end","time"`)) || !bytes.Contains(buf.Bytes(), []byte(`"reason":"error"`)) {
		t.Errorf("no end record with reason error:\n%s", buf.Bytes())
	}
}

func asProviderError(err error, pe **agent.ProviderError) bool {
	for err != nil {
		if p, ok := err.(*agent.ProviderError); ok {
			*pe = p
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

func TestUnmodelledFieldsGoBackUnchanged(t *testing.T) {
	steps := []fakeapi.Step{
		{
			Text:  text("Let me look that up."),
			Extra: map[string]any{"reasoning_content": "The user wants weather; call the tool.", "provider_specific": map[string]any{"x": 1}},
			ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`,
				Extra: map[string]any{"extra_content": map[string]any{"google": map[string]any{"thought_signature": "c2lnbmF0dXJl"}}}}},
		},
		{Text: text("19 C"), Expect: &fakeapi.Expect{Contains: []string{
			`"reasoning_content":"The user wants weather; call the tool."`,
			`"thought_signature":"c2lnbmF0dXJl"`,
			`"content":"Let me look that up."`,
		}}},
	}
	// Streamed too (the default on a terminal): the fields arrive in the
	// deltas, the message's as reasoning_content pieces, the call's with
	// its first delta.
	for _, streamed := range []bool{false, true} {
		t.Run(fmt.Sprintf("streamed=%v", streamed), func(t *testing.T) {
			var configure func(*agent.Loop)
			if streamed {
				configure = func(l *agent.Loop) { l.OnText = func(string) {} }
			}
			out, _, _, err := run(t, steps, weatherTools(), configure)
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "19 C" {
				t.Errorf("answer %q", out.Answer)
			}
		})
	}
}

func TestToolCallWithoutTypeStillAnswered(t *testing.T) {
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "get_weather", Arguments: `{"city":"Paris"}`, OmitType: true}}},
		{Text: text("ok"), Expect: &fakeapi.Expect{Results: map[string]string{"c1": "Paris"}}},
	}
	if _, _, _, err := run(t, steps, weatherTools(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestParallelCapAndConcurrency(t *testing.T) {
	var calls []fakeapi.ToolCall
	for i := range 6 {
		calls = append(calls, fakeapi.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "sleep", Arguments: `{}`})
	}
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"sleep": func(map[string]any) agent.ToolResult {
			time.Sleep(50 * time.Millisecond)
			return agent.ToolResult{Content: "slept"}
		},
	}}
	steps := []fakeapi.Step{{ToolCalls: calls}, {Text: text("done"), Expect: &fakeapi.Expect{Messages: 8}}}
	if _, _, _, err := run(t, steps, ex, func(l *agent.Loop) { l.Parallel = 3 }); err != nil {
		t.Fatal(err)
	}
	if p := ex.peak.Load(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
}

func TestInterruptDuringToolsLeavesCallsPending(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"block": func(map[string]any) agent.ToolResult {
			cancel()
			return agent.ToolResult{IsError: true, Kind: wire.KindCanceled, ExitCode: -1, Content: "canceled"}
		},
	}}
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "block", Arguments: `{}`}}}}, "")
	defer srv.Close()
	p, _ := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "m"})
	var buf bytes.Buffer
	out, err := (&agent.Loop{Provider: p, Tools: ex, Transcript: transcript.NewWriter(&buf, nil)}).Prompt(ctx, "go")
	if err == nil || out.Reason != wire.ReasonInterrupted {
		t.Fatalf("reason %q, err %v", out.Reason, err)
	}
	recs := records(t, buf.Bytes())
	// user, assistant (calls pending), end
	if len(recs) != 3 || recs[2].End == nil || recs[2].End.Reason != "interrupted" {
		for _, r := range recs {
			t.Logf("%+v", r)
		}
		t.Fatalf("unexpected records")
	}
}

func TestResumeAnswersPendingCallsFirst(t *testing.T) {
	d := agent.OpenAIDialect{}
	asst := json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"c2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Dublin\"}"}}]}`)
	answered, _ := d.ResultMessages([]agent.CallResult{{Call: agent.Call{ID: "c1", Name: "get_weather"}, Result: agent.ToolResult{Content: "Paris: 19 C, clear"}}})
	msgs := []agent.Message{d.UserMessage("weather?"), asst, answered[0].Message}
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: text("Paris is warmer."), Expect: &fakeapi.Expect{Messages: 4, Results: map[string]string{"c1": "Paris", "c2": "Dublin"}}}}, "")
	defer srv.Close()
	p, _ := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "m"})
	ex := weatherTools()
	out, err := (&agent.Loop{Provider: p, Tools: ex}).Run(context.Background(), agent.State{Messages: msgs, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Paris is warmer." || out.Steps != 2 {
		t.Errorf("outcome %+v", out)
	}
	if len(ex.calls) != 1 || ex.calls[0] != "c2" {
		t.Errorf("ran %v, want only the pending c2", ex.calls)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}

func TestRefusalEndsWithoutRunningCalls(t *testing.T) {
	d := agent.OpenAIDialect{}
	turn := &agent.Turn{Messages: []agent.Message{json.RawMessage(`{"role":"assistant","content":"I can't help with that.","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`)},
		Text: "I can't help with that.", Calls: []agent.Call{{ID: "c1", Name: "get_weather", Arguments: []byte(`{}`)}}, Stop: agent.StopRefusal}
	ex := weatherTools()
	out, err := (&agent.Loop{Provider: agent.NewScripted(d, "m", []*agent.Turn{turn}), Tools: ex}).Prompt(context.Background(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != wire.ReasonRefusal || len(ex.calls) != 0 {
		t.Errorf("reason %q, calls run %v", out.Reason, ex.calls)
	}
	// The call is still answered, so the conversation stays valid.
	if rs := d.ParseResults(out.Messages[len(out.Messages)-1]); len(rs) != 1 || rs[0].CallID != "c1" || !rs[0].IsError {
		t.Errorf("last message %s", out.Messages[len(out.Messages)-1])
	}
}

func TestStreamingAppendsTheAccumulatedTurn(t *testing.T) {
	steps := []fakeapi.Step{
		{Text: text("Checking."), Extra: map[string]any{"reasoning_content": "think"}, ToolCalls: []fakeapi.ToolCall{
			{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Dublin"}`},
		}},
		{Text: text("It is warmer in Paris today."), Expect: &fakeapi.Expect{Messages: 4, Results: map[string]string{"call_1": "Paris", "call_2": "Dublin"}}},
	}
	var streamed strings.Builder
	out, _, _, err := run(t, steps, weatherTools(), func(l *agent.Loop) { l.OnText = func(s string) { streamed.WriteString(s) } })
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "It is warmer in Paris today." {
		t.Errorf("answer %q", out.Answer)
	}
	if !strings.HasSuffix(streamed.String(), "It is warmer in Paris today.") {
		t.Errorf("streamed %q", streamed.String())
	}
}
