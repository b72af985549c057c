package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

const respKey = "sk-test-resp-0123456789abcdefghijk"

func newResponses(t *testing.T, srv *fakeapi.Responses, cfg openai.ResponsesConfig) *openai.Responses {
	t.Helper()
	cfg.APIKey, cfg.BaseURL = respKey, srv.BaseURL()
	if cfg.Model == "" {
		cfg.Model = "o4-mini"
	}
	p, err := openai.NewResponses(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runResp runs a loop against a fake Responses server and returns the
// outcome, the server and the transcript, which must validate.
func runResp(t *testing.T, steps []fakeapi.Step, ex agent.Executor, cfg openai.ResponsesConfig, configure func(*agent.Loop)) (*agent.Outcome, *fakeapi.Responses, []byte, error) {
	t.Helper()
	srv := fakeapi.NewResponses(steps, respKey)
	t.Cleanup(srv.Close)
	p := newResponses(t, srv, cfg)
	defs, err := p.ToolDefs(weatherDef())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, transcript.NewRedactor(respKey))
	if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: p.Model(), Tools: defs, System: "You are terse."}); err != nil {
		t.Fatal(err)
	}
	l := &agent.Loop{Provider: p, Tools: ex, Transcript: w, ToolDefs: defs, System: "You are terse."}
	if configure != nil {
		configure(l)
	}
	out, err := l.Prompt(context.Background(), "Is it warmer in Paris or Dublin right now?")
	if v := srv.Check(); v != nil {
		t.Error(v)
	}
	if bytes.Contains(buf.Bytes(), []byte(respKey)) {
		t.Error("the API key reached the transcript")
	}
	fs, verr := transcript.Validate("t.jsonl", bytes.NewReader(buf.Bytes()), transcript.Options{AllowPending: true}, nil)
	if verr != nil || fs.Errors > 0 {
		var found []string
		_, _ = transcript.Validate("t.jsonl", bytes.NewReader(buf.Bytes()), transcript.Options{AllowPending: true}, func(f transcript.Finding) { found = append(found, f.String()) })
		t.Errorf("the transcript does not validate: %v %v\n%s", verr, found, buf.Bytes())
	}
	return out, srv, buf.Bytes(), err
}

// inputOf is the input items of a request body.
func inputOf(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var req struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req.Input
}

func itemType(raw json.RawMessage) string {
	var it struct {
		Type, Role string
	}
	_ = json.Unmarshal(raw, &it)
	if it.Type == "" {
		return it.Role
	}
	return it.Type
}

func TestResponsesParallelCallsWithReasoning(t *testing.T) {
	steps := []fakeapi.Step{
		{Reasoning: []fakeapi.Reasoning{{Summary: "Two cities: two calls."}}, Text: text("Checking both."),
			ToolCalls: []fakeapi.ToolCall{
				{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Dublin"}`},
			},
			Expect: &fakeapi.Expect{Messages: 1, Contains: []string{
				`"store":false`, `"include":["reasoning.encrypted_content"]`, `"instructions":"You are terse."`,
				`"parallel_tool_calls":true`,
				`"tools":[{"type":"function","name":"get_weather","description":"Current weather for a city.","parameters":{"type":"object","properties":{"city"`,
				`"strict":false}]`,
			}, Absent: []string{"previous_response_id", "max_output_tokens"}}},
		{Text: text("Paris is warmer."), Usage: map[string]int64{"cached_tokens": 64, "reasoning_tokens": 12},
			Expect: &fakeapi.Expect{Messages: 7, Results: map[string]string{"call_1": "Paris: 19 C", "call_2": "Dublin: 12 C"}}},
	}
	out, srv, tr, err := runResp(t, steps, weatherTools(), openai.ResponsesConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Paris is warmer." || out.Reason != wire.ReasonStop || out.Steps != 2 {
		t.Errorf("outcome %+v", out)
	}
	if out.Usage.CacheReadInputTokens != 64 || out.Usage.ReasoningTokens != 12 || out.Usage.InputTokens == 0 {
		t.Errorf("usage %+v", out.Usage)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var kinds []string
	for _, it := range inputOf(t, reqs[1].Body) {
		kinds = append(kinds, itemType(it))
	}
	// The output items as returned, then one output per call in call order.
	if got := strings.Join(kinds, " "); got != "user reasoning message function_call function_call function_call_output function_call_output" {
		t.Errorf("second request's items: %s", got)
	}
	in := inputOf(t, reqs[1].Body)
	if !strings.Contains(string(in[5]), `"call_id":"call_1"`) || !strings.Contains(string(in[6]), `"call_id":"call_2"`) {
		t.Errorf("outputs out of call order: %s %s", in[5], in[6])
	}

	var recs []*transcript.Record
	for _, r := range records(t, tr) {
		if r.Result == nil { // the result record of each call as it finished
			recs = append(recs, r)
		}
	}
	// header, user, 4 output items, 2 outputs, answer, end
	if len(recs) != 10 {
		t.Fatalf("%d records", len(recs))
	}
	for i := 2; i <= 5; i++ {
		m := recs[i].Message
		if m.Step != 1 {
			t.Errorf("record %d: step %d", i, m.Step)
		}
		if (m.Usage != nil) != (i == 5) {
			t.Errorf("record %d: usage %v; the turn's usage belongs on its last item", i, m.Usage)
		}
	}
	if recs[5].Message.FinishReason != "tool_calls" {
		t.Errorf("finish reason %q", recs[5].Message.FinishReason)
	}
	if r := recs[6].Message.Results; len(r) != 1 || r[0].CallID != "call_1" || r[0].Name != "get_weather" {
		t.Errorf("results %+v", r)
	}
}

func TestResponsesFailuresAreObservations(t *testing.T) {
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": weatherTools().fns["get_weather"],
		"slow": func(map[string]any) agent.ToolResult {
			return agent.ToolResult{IsError: true, Kind: "timeout", ExitCode: -1, Content: "timed out after 1s; the tool's process group was killed"}
		},
	}}
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "c1", Name: "no_such_tool", Arguments: `{}`},
			{ID: "c2", Name: "get_weather", Arguments: `{"city": 5`},
			{ID: "c3", Name: "get_weather", Arguments: `{"city":"Atlantis"}`},
			{ID: "c4", Name: "slow", Arguments: `{}`},
		}},
		{Text: text("Done anyway."), Expect: &fakeapi.Expect{
			Errors:  []string{"c1", "c2", "c3", "c4"},
			Results: map[string]string{"c1": "unknown tool", "c2": "not valid JSON", "c3": "code 3", "c4": "timed out"},
		}},
	}
	out, _, _, err := runResp(t, steps, ex, openai.ResponsesConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Done anyway." {
		t.Errorf("answer %q", out.Answer)
	}
}

// The stream's reasoning item comes three times, with three ciphertexts:
// cut short when added, whole when done, whole again (other bytes) in the
// completed response. The completed one goes back, once.
func TestResponsesStreamKeepsTheCompletedItems(t *testing.T) {
	for _, omit := range []bool{false, true} {
		name := "completed output"
		if omit {
			name = "completed without output"
		}
		t.Run(name, func(t *testing.T) {
			steps := []fakeapi.Step{
				{Reasoning: []fakeapi.Reasoning{{Summary: "Look it up."}}, Text: text("Let me look."), OmitCompletedOutput: omit,
					ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
				{Text: text("19 C in Paris."), Expect: &fakeapi.Expect{Results: map[string]string{"call_1": "Paris: 19 C"}}},
			}
			var streamed strings.Builder
			out, srv, tr, err := runResp(t, steps, weatherTools(), openai.ResponsesConfig{}, func(l *agent.Loop) {
				l.OnText = func(s string) { streamed.WriteString(s) }
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "19 C in Paris." || streamed.String() != "Let me look.19 C in Paris." {
				t.Errorf("answer %q, streamed %q", out.Answer, streamed.String())
			}
			second := inputOf(t, srv.Requests()[1].Body)
			n := 0
			for _, it := range second {
				if itemType(it) == "reasoning" {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d reasoning items went back, want 1", n)
			}
			// The first request's stream, for the ciphertext of each form.
			if !bytes.Contains(tr, second[1][bytes.Index(second[1], []byte("gAAAA")):bytes.Index(second[1], []byte("gAAAA"))+20]) {
				t.Errorf("the transcript does not hold the reasoning item that went back: %s", second[1])
			}
		})
	}
}

func TestResponsesStoreSendsOnlyNewItems(t *testing.T) {
	steps := []fakeapi.Step{
		{Reasoning: []fakeapi.Reasoning{{}}, ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			Expect: &fakeapi.Expect{Contains: []string{`"store":true`, `"include":["reasoning.encrypted_content"]`}, Absent: []string{"previous_response_id"}}},
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Dublin"}`}},
			Expect: &fakeapi.Expect{Messages: 1, Contains: []string{`"previous_response_id":"resp_`, `"instructions":"You are terse."`, `"tools":[`}, Results: map[string]string{"call_1": "Paris"}}},
		{Text: text("Paris is warmer."),
			Expect: &fakeapi.Expect{Messages: 1, Contains: []string{`"previous_response_id":"resp_`}, Results: map[string]string{"call_2": "Dublin"}}},
	}
	out, srv, tr, err := runResp(t, steps, weatherTools(), openai.ResponsesConfig{Store: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Paris is warmer." {
		t.Errorf("answer %q", out.Answer)
	}
	// The transcript still holds every item.
	recs := records(t, tr)
	if len(recs) != 9 { // header, user, rs, fc, out, fc, out, answer, end
		t.Errorf("%d records", len(recs))
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests", n)
	}
	// A conversation that does not go on from the last response (the
	// loop left an item out, say) is sent whole.
	srv2 := fakeapi.NewResponses([]fakeapi.Step{{Text: text("one")}, {Text: text("two")}}, respKey)
	defer srv2.Close()
	p := newResponses(t, srv2, openai.ResponsesConfig{Store: true})
	d := agent.ResponsesDialect{}
	if _, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{d.UserMessage("a")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{d.UserMessage("b"), d.UserMessage("c")}}); err != nil {
		t.Fatal(err)
	}
	if body := srv2.Requests()[1].Body; bytes.Contains(body, []byte("previous_response_id")) || len(inputOf(t, body)) != 2 {
		t.Errorf("a new conversation was sent as the continuation of another: %s", body)
	}
}

func TestResponsesEndings(t *testing.T) {
	tests := []struct {
		name   string
		step   fakeapi.Step
		reason string
		answer string
		items  int // output items appended
	}{
		{"cut off", fakeapi.Step{Reasoning: []fakeapi.Reasoning{{}}, Text: text("The answer is"), Finish: "max_output_tokens"}, wire.ReasonMaxTokens, "The answer is", 2},
		{"cut off in the reasoning", fakeapi.Step{Reasoning: []fakeapi.Reasoning{{}}, Finish: "max_output_tokens"}, wire.ReasonMaxTokens, "", 0},
		{"content filter", fakeapi.Step{Text: text(""), Finish: "content_filter"}, wire.ReasonRefusal, "", 0},
		{"refusal", fakeapi.Step{Refusal: "I can't help with that."}, wire.ReasonRefusal, "I can't help with that.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, tr, err := runResp(t, []fakeapi.Step{tt.step}, weatherTools(), openai.ResponsesConfig{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != tt.reason || out.Answer != tt.answer {
				t.Errorf("outcome %+v", out)
			}
			if n := len(records(t, tr)) - 3; n != tt.items { // header, prompt, end
				t.Errorf("%d items appended, want %d", n, tt.items)
			}
		})
	}
}

// Items the SDK does not model (and those it does) go back as received.
func TestResponsesUnknownItemsGoBackByteForByte(t *testing.T) {
	search := `{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"Paris weather"},"extra_field":{"nested":[1,2.50,"x"]}}`
	widget := `{"type":"widget_call","id":"wg_1","payload":{"z":1,"a":[true,null]}}`
	steps := []fakeapi.Step{
		{Items: []json.RawMessage{json.RawMessage(search), json.RawMessage(widget)},
			ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`, Extra: map[string]any{"namespace_hint": "x"}}}},
		{Text: text("19 C."), Expect: &fakeapi.Expect{Contains: []string{search, widget, `"namespace_hint":"x"`}}},
	}
	if _, _, _, err := runResp(t, steps, weatherTools(), openai.ResponsesConfig{}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestResponsesRequestSettings(t *testing.T) {
	temp := 0.5
	steps := []fakeapi.Step{{Text: text("ok"), Expect: &fakeapi.Expect{Contains: []string{`"max_output_tokens":300`, `"temperature":0.5`, `"model":"gpt-5-mini"`}}}}
	cfg := openai.ResponsesConfig{Config: openai.Config{Model: "gpt-5-mini", MaxTokens: 300, Temperature: &temp}}
	if _, _, _, err := runResp(t, steps, weatherTools(), cfg, nil); err != nil {
		t.Fatal(err)
	}
}

func TestResponsesErrors(t *testing.T) {
	t.Run("retried 5xx", func(t *testing.T) {
		srv := fakeapi.NewResponses([]fakeapi.Step{
			{Status: 500, Error: "boom", Headers: map[string]string{"Retry-After-Ms": "10"}},
			{Text: text("recovered")},
		}, respKey)
		defer srv.Close()
		p := newResponses(t, srv, openai.ResponsesConfig{Config: openai.Config{MaxRetries: 1}})
		turn, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
		if err != nil || turn.Text != "recovered" {
			t.Fatalf("turn %+v, err %v", turn, err)
		}
	})
	t.Run("401", func(t *testing.T) {
		srv := fakeapi.NewResponses([]fakeapi.Step{{Text: text("never")}}, "the-right-key-123456")
		defer srv.Close()
		p := newResponses(t, srv, openai.ResponsesConfig{Config: openai.Config{MaxRetries: 3}})
		_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
		var pe *agent.ProviderError
		if !asProviderError(err, &pe) || pe.Status != http.StatusUnauthorized || pe.Provider != "responses" ||
			!strings.Contains(pe.Error(), "check OPENAI_API_KEY") {
			t.Fatalf("err %v", err)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("a 401 was retried: %d requests", n)
		}
	})
	t.Run("400 from the grammar", func(t *testing.T) {
		srv := fakeapi.NewResponses([]fakeapi.Step{{Text: text("never")}}, respKey)
		defer srv.Close()
		p := newResponses(t, srv, openai.ResponsesConfig{})
		d := agent.ResponsesDialect{}
		_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{d.UserMessage("hi"),
			agent.Message(`{"type":"function_call_output","call_id":"call_9","output":"x"}`)}})
		if err == nil || err.Error() != "responses: 400 Bad Request: No tool call found for function call output with call_id call_9." {
			t.Errorf("err %v", err)
		}
	})
	t.Run("stream cut short", func(t *testing.T) {
		srv := fakeapi.NewResponses([]fakeapi.Step{{Text: text("a long answer, cut"), StreamStop: 5}}, respKey)
		defer srv.Close()
		p := newResponses(t, srv, openai.ResponsesConfig{})
		_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}, OnText: func(string) {}})
		if err == nil || !strings.Contains(err.Error(), "the stream ended before the response was complete") {
			t.Errorf("err %v", err)
		}
	})
	t.Run("failed response", func(t *testing.T) {
		srv := fakeapi.NewResponses([]fakeapi.Step{{Body: json.RawMessage(`{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"The model failed."},"output":[]}`)}}, respKey)
		defer srv.Close()
		p := newResponses(t, srv, openai.ResponsesConfig{})
		_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
		if err == nil || err.Error() != "responses: server_error: The model failed." {
			t.Errorf("err %v", err)
		}
	})
	// A completed response with no output items, and one that is not
	// finished (queued, as a background response is): neither is an
	// answer.
	for name, body := range map[string]string{
		"empty output": `{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":5,"output_tokens":0}}`,
		"queued":       `{"id":"resp_1","object":"response","status":"queued","output":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakeapi.NewResponses([]fakeapi.Step{{Body: json.RawMessage(body)}}, respKey)
			defer srv.Close()
			p := newResponses(t, srv, openai.ResponsesConfig{})
			_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
			want := map[string]string{
				"empty output": "responses: the response has no content: neither text nor tool calls",
				"queued":       "responses: the response is queued, not complete",
			}[name]
			var pe *agent.ProviderError
			if !asProviderError(err, &pe) || err.Error() != want {
				t.Errorf("err %v, want %q", err, want)
			}
		})
	}
}

// A conversation stopped with calls pending (an interrupt, --max-steps)
// resumes: the calls of the last turn, all its function_call items, are
// answered first.
func TestResponsesResumeAnswersPendingCalls(t *testing.T) {
	d := agent.ResponsesDialect{}
	msgs := []agent.Message{
		d.UserMessage("weather?"),
		agent.Message(`{"type":"reasoning","id":"rs_a","summary":[],"encrypted_content":"gAAAAABresume"}`),
		agent.Message(`{"type":"function_call","id":"fc_a","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}`),
		agent.Message(`{"type":"function_call","id":"fc_b","call_id":"call_2","name":"get_weather","arguments":"{\"city\":\"Dublin\"}","status":"completed"}`),
		agent.Message(`{"type":"function_call_output","call_id":"call_1","output":"Paris: 19 C, clear"}`),
	}
	srv := fakeapi.NewResponses([]fakeapi.Step{{Text: text("Paris is warmer."),
		Expect: &fakeapi.Expect{Messages: 6, Results: map[string]string{"call_2": "Dublin: 12 C"}}}}, respKey)
	defer srv.Close()
	ex := weatherTools()
	out, err := (&agent.Loop{Provider: newResponses(t, srv, openai.ResponsesConfig{}), Tools: ex}).Run(context.Background(), agent.State{Messages: msgs, Steps: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	if out.Answer != "Paris is warmer." || out.Steps != 2 {
		t.Errorf("outcome %+v", out)
	}
	if len(ex.calls) != 1 || ex.calls[0] != "call_2" {
		t.Errorf("calls run %v, want only the pending call_2", ex.calls)
	}
}

func TestResponsesTurns(t *testing.T) {
	d := agent.ResponsesDialect{}
	msgs := []agent.Message{
		d.UserMessage("q"),
		agent.Message(`{"type":"reasoning","id":"rs_1","summary":[]}`),
		agent.Message(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]}`),
		agent.Message(`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`),
		agent.Message(`{"type":"function_call_output","call_id":"c1","output":"ok"}`),
		agent.Message(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}`),
		d.UserMessage("and?"),
		agent.Message(`{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"No."}]}`),
	}
	spans := agent.Turns(d, msgs)
	if len(spans) != 3 || spans[0] != (agent.TurnSpan{Start: 1, End: 4}) || spans[1] != (agent.TurnSpan{Start: 5, End: 6}) || spans[2] != (agent.TurnSpan{Start: 7, End: 8}) {
		t.Fatalf("spans %+v", spans)
	}
	first, err := agent.ParseTurn(d, msgs[1:4])
	if err != nil || first.Text != "Checking." || len(first.Calls) != 1 || first.Stop != agent.StopToolUse || len(first.Messages) != 3 {
		t.Errorf("first turn %+v, %v", first, err)
	}
	last, _ := agent.ParseTurn(d, msgs[7:8])
	if last.Stop != agent.StopRefusal || last.Text != "No." {
		t.Errorf("refusal turn %+v", last)
	}
	// The other dialects: each assistant message is a turn.
	o := agent.OpenAIDialect{}
	two := []agent.Message{o.UserMessage("q"), agent.Message(`{"role":"assistant","content":"a"}`), agent.Message(`{"role":"assistant","content":"b"}`)}
	if spans := agent.Turns(o, two); len(spans) != 2 {
		t.Errorf("openai spans %+v", spans)
	}
	if rs := d.ParseResults(agent.Message(`{"type":"function_call_output","call_id":"c9","output":"{\"error\":\"boom\"}"}`)); len(rs) != 1 || !rs[0].IsError || rs[0].CallID != "c9" {
		t.Errorf("results %+v", rs)
	}
}
