package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

const antKey = "sk-ant-test-0123456789abcdefghijklmnop"

func weatherDef() []agent.ToolSpec {
	return []agent.ToolSpec{{
		Name: "get_weather", Description: "Current weather for a city.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
	}}
}

func runAnt(t *testing.T, steps []fakeapi.Step, ex agent.Executor, configure func(*agent.Loop)) (*agent.Outcome, *fakeapi.Anthropic, []byte, error) {
	t.Helper()
	srv := fakeapi.NewAnthropic(steps, antKey)
	t.Cleanup(srv.Close)
	p, err := anthropic.NewMessages(anthropic.Config{APIKey: antKey, BaseURL: srv.BaseURL(), Model: "claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := p.ToolDefs(weatherDef())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, transcript.NewRedactor(antKey))
	if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: p.Model(), Tools: defs}); err != nil {
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
	if bytes.Contains(buf.Bytes(), []byte(antKey)) {
		t.Error("the API key reached the transcript")
	}
	return out, srv, buf.Bytes(), err
}

func TestAnthropicParallelCalls(t *testing.T) {
	steps := []fakeapi.Step{
		{Text: text("Checking both."), ToolCalls: []fakeapi.ToolCall{
			{ID: "toolu_01", Name: "get_weather", Arguments: `{"city":"Paris"}`},
			{ID: "toolu_02", Name: "get_weather", Arguments: `{"city":"Dublin"}`},
		}, Expect: &fakeapi.Expect{Contains: []string{
			`"system":[{"text":"You are terse.","cache_control":{"type":"ephemeral"},"type":"text"}]`,
			`"cache_control":{"type":"ephemeral"}}]`, // on the last tool
			`"input_schema":{"type":"object","properties":{"city"`,
		}}},
		{Text: text("Paris is warmer."), Usage: map[string]int64{"cache_read_input_tokens": 120, "cache_creation_input_tokens": 7},
			Expect: &fakeapi.Expect{Messages: 3, Results: map[string]string{"toolu_01": "Paris: 19 C", "toolu_02": "Dublin: 12 C"}}},
	}
	out, srv, tr, err := runAnt(t, steps, weatherTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Paris is warmer." || out.Reason != "stop" || out.Steps != 2 {
		t.Errorf("outcome %+v", out)
	}
	if out.Usage.CacheReadInputTokens != 120 || out.Usage.CacheCreationInputTokens != 7 {
		t.Errorf("cache usage not recorded: %+v", out.Usage)
	}
	recs := records(t, tr)
	// header, user, assistant, a result record per call, user(results),
	// assistant, end
	if len(recs) != 8 {
		t.Fatalf("%d records", len(recs))
	}
	if recs[3].Result == nil || recs[4].Result == nil {
		t.Fatalf("records 4 and 5 are not result records: %+v %+v", recs[3], recs[4])
	}
	recs = append(recs[:3:3], recs[5:]...)
	res := recs[3].Message
	if len(res.Results) != 2 || res.Results[0].CallID != "toolu_01" || res.Results[1].CallID != "toolu_02" {
		t.Errorf("results meta %+v", res.Results)
	}
	if !strings.HasPrefix(string(res.Message), `{"content":[{"tool_use_id":"toolu_01"`) && !strings.Contains(string(res.Message), `"role":"user"`) {
		t.Errorf("results message %s", res.Message)
	}
	if recs[4].Message.Usage.CacheReadInputTokens != 120 {
		t.Errorf("usage on the record: %+v", recs[4].Message.Usage)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests", n)
	}
}

func TestAnthropicFailuresAreErrorResults(t *testing.T) {
	ex := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": weatherTools().fns["get_weather"],
		"slow": func(map[string]any) agent.ToolResult {
			return agent.ToolResult{IsError: true, Kind: wire.KindTimeout, ExitCode: -1, Content: "timed out after 1s; the tool's process group was killed"}
		},
		"silent": func(map[string]any) agent.ToolResult { return agent.ToolResult{Content: ""} },
	}}
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "c1", Name: "no_such_tool", Arguments: `{}`},
			{ID: "c2", Name: "get_weather", Arguments: `{"town":"Paris"}`},
			{ID: "c3", Name: "get_weather", Arguments: `{"city":"Atlantis"}`},
			{ID: "c4", Name: "slow", Arguments: `{}`},
			{ID: "c5", Name: "silent", Arguments: `{}`},
		}},
		{Text: text("Done anyway."), Expect: &fakeapi.Expect{
			Errors:  []string{"c1", "c3", "c4"},
			Results: map[string]string{"c1": "unknown tool", "c3": "code 3", "c4": "timed out"},
		}},
	}
	out, _, _, err := runAnt(t, steps, ex, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Done anyway." {
		t.Errorf("answer %q", out.Answer)
	}
}

// A server that does not honour tool choice "none" on the last request
// still gets every call of that turn answered: declined, not run.
func TestAnthropicMaxStepsToolChoiceIgnored(t *testing.T) {
	none := "none"
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "a", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text("One more look."), ToolCalls: []fakeapi.ToolCall{{ID: "b", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			IgnoreToolChoice: true, Expect: &fakeapi.Expect{ToolChoice: &none}},
	}
	ex := weatherTools()
	out, _, tr, err := runAnt(t, steps, ex, func(l *agent.Loop) { l.MaxSteps = 2 })
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != "max_steps" || out.Answer != "One more look." || out.Exhausted != agent.ExhaustedSteps {
		t.Errorf("outcome %+v", out)
	}
	if len(ex.calls) != 1 {
		t.Errorf("calls run: %v, want only a", ex.calls)
	}
	recs := records(t, tr)
	if last := recs[len(recs)-2].Message; last == nil || len(last.Results) != 1 || last.Results[0].CallID != "b" || last.Results[0].Error != wire.KindDeclined {
		t.Errorf("the last call was not answered as declined: %+v", last)
	}
	mustValidate(t, tr)
}

func TestAnthropicRetriesAndUnauthorized(t *testing.T) {
	t.Run("529 then 200", func(t *testing.T) {
		srv := fakeapi.NewAnthropic([]fakeapi.Step{{Status: 529, Error: "Overloaded"}, {Status: 500}, {Text: text("ok")}}, "")
		defer srv.Close()
		p, _ := anthropic.NewMessages(anthropic.Config{BaseURL: srv.BaseURL(), Model: "claude-x", MaxRetries: 2})
		out, err := (&agent.Loop{Provider: p, Tools: weatherTools()}).Prompt(context.Background(), "hi")
		if err != nil || out.Answer != "ok" || len(srv.Requests()) != 3 {
			t.Fatalf("err %v, outcome %+v, %d requests", err, out, len(srv.Requests()))
		}
		if err := srv.Check(); err != nil {
			t.Error(err)
		}
	})
	t.Run("401", func(t *testing.T) {
		srv := fakeapi.NewAnthropic([]fakeapi.Step{{Text: text("never")}}, "right-key-0123456789")
		defer srv.Close()
		p, _ := anthropic.NewMessages(anthropic.Config{APIKey: "sk-ant-wrong-0123456789abcdefghij", BaseURL: srv.BaseURL(), Model: "claude-x", MaxRetries: 3})
		_, err := (&agent.Loop{Provider: p, Tools: weatherTools()}).Prompt(context.Background(), "hi")
		var pe *agent.ProviderError
		if !asProviderError(err, &pe) || pe.Status != http.StatusUnauthorized {
			t.Fatalf("err = %v", err)
		}
		if !strings.Contains(err.Error(), "invalid x-api-key") || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
			t.Errorf("error %q", err)
		}
		if len(srv.Requests()) != 1 {
			t.Errorf("%d requests: a 401 must not be retried", len(srv.Requests()))
		}
	})
}

func TestAnthropicThinkingGoesBackByteIdentical(t *testing.T) {
	steps := []fakeapi.Step{
		{
			Thinking:  []fakeapi.ThinkingBlock{{Thinking: "Two cities <Paris & Dublin>; call twice. Ça va — \"quoted\".", Signature: "EqoBCkgIARABGAIiQG9w+/=="}, {Redacted: "cmVkYWN0ZWQ="}},
			ToolCalls: []fakeapi.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		},
		{Text: text("19 C in Paris.")},
	}
	// The fake server fails the request if the thinking blocks are not in
	// it byte for byte.
	if _, _, _, err := runAnt(t, steps, weatherTools(), nil); err != nil {
		t.Fatal(err)
	}
}

func TestAnthropicStopReasons(t *testing.T) {
	t.Run("refusal runs no calls", func(t *testing.T) {
		ex := weatherTools()
		out, _, _, err := runAnt(t, []fakeapi.Step{{Text: text("I won't."), Finish: "refusal", ToolCalls: []fakeapi.ToolCall{{ID: "t1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}, ex, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != "refusal" || len(ex.calls) != 0 {
			t.Errorf("reason %q, calls %v", out.Reason, ex.calls)
		}
	})
	t.Run("max_tokens is its own reason", func(t *testing.T) {
		out, _, _, err := runAnt(t, []fakeapi.Step{{Text: text("The answer is"), Finish: "max_tokens"}}, weatherTools(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Reason != "max_tokens" || out.Answer != "The answer is" {
			t.Errorf("outcome %+v", out)
		}
	})
	// max_tokens in the middle of a call, streamed: the input's JSON is cut
	// off. The call is not run, its block goes back with an input the API
	// takes (an object), and it is answered, so that the conversation can
	// be resumed.
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("max_tokens mid-call, stream %v", stream), func(t *testing.T) {
			ex := weatherTools()
			var configure func(*agent.Loop)
			if stream {
				configure = func(l *agent.Loop) { l.OnText = func(string) {} }
			}
			out, _, _, err := runAnt(t, []fakeapi.Step{{Text: text("Checking."), Finish: "max_tokens",
				ToolCalls: []fakeapi.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Pa`}}}}, ex, configure)
			if err != nil {
				t.Fatal(err)
			}
			if out.Reason != "max_tokens" || len(ex.calls) != 0 {
				t.Fatalf("reason %q, calls %v", out.Reason, ex.calls)
			}
			if err := fakeapi.CheckAnthropicMessages(out.Messages); err != nil {
				t.Errorf("the conversation would be refused: %v", err)
			}
			if !bytes.Contains(out.Messages[1], []byte(`"input":{}`)) || !bytes.Contains(out.Messages[2], []byte(`"is_error":true`)) {
				t.Errorf("turn %s\nresults %s", out.Messages[1], out.Messages[2])
			}
		})
	}
	// A refusal that closed a text block before any text: the empty block
	// is left out of the turn (the API refuses it back), the call is
	// answered, and the conversation can go on.
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("refusal with an empty text block, stream %v", stream), func(t *testing.T) {
			var configure func(*agent.Loop)
			if stream {
				configure = func(l *agent.Loop) { l.OnText = func(string) {} }
			}
			out, _, _, err := runAnt(t, []fakeapi.Step{{Text: text(""), Finish: "refusal",
				ToolCalls: []fakeapi.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}}}, weatherTools(), configure)
			if err != nil {
				t.Fatal(err)
			}
			if err := fakeapi.CheckAnthropicMessages(out.Messages); err != nil {
				t.Errorf("the conversation would be refused: %v\n%s", err, out.Messages[1])
			}
		})
	}
	t.Run("stop_sequence ends", func(t *testing.T) {
		out, _, _, err := runAnt(t, []fakeapi.Step{{Text: text("Done"), Finish: "stop_sequence"}}, weatherTools(), nil)
		if err != nil || out.Reason != "stop" {
			t.Errorf("outcome %+v, err %v", out, err)
		}
	})
}

func TestAnthropicStreaming(t *testing.T) {
	steps := []fakeapi.Step{
		{Thinking: []fakeapi.ThinkingBlock{{Thinking: "plan: <Paris & Dublin>", Signature: "sig+/=="}}, Text: text("Checking."),
			ToolCalls: []fakeapi.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		{Text: text("Paris: 19 C, clear skies."), Expect: &fakeapi.Expect{Results: map[string]string{"toolu_1": "Paris"}}},
	}
	var streamed strings.Builder
	out, _, _, err := runAnt(t, steps, weatherTools(), func(l *agent.Loop) { l.OnText = func(s string) { streamed.WriteString(s) } })
	if err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Paris: 19 C, clear skies." || !strings.HasSuffix(streamed.String(), out.Answer) {
		t.Errorf("answer %q, streamed %q", out.Answer, streamed.String())
	}
}

// keySets collects, over corpus requests the real API accepted, the keys
// seen at each level: the body, messages, content blocks by type, tools.
func keySets(t *testing.T) map[string]map[string]bool {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/pydantic-ai-anthropic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sets := map[string]map[string]bool{}
	add := func(level string, obj map[string]json.RawMessage) {
		if sets[level] == nil {
			sets[level] = map[string]bool{}
		}
		for k := range obj {
			sets[level][k] = true
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			Status  int                        `json:"status"`
			Request map[string]json.RawMessage `json:"request"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Status != 200 {
			continue
		}
		collectKeys(rec.Request, add)
	}
	return sets
}

func collectKeys(body map[string]json.RawMessage, add func(string, map[string]json.RawMessage)) {
	add("body", body)
	var msgs []map[string]json.RawMessage
	_ = json.Unmarshal(body["messages"], &msgs)
	for _, m := range msgs {
		add("message", m)
		var blocks []map[string]json.RawMessage
		_ = json.Unmarshal(m["content"], &blocks)
		for _, b := range blocks {
			var typ string
			_ = json.Unmarshal(b["type"], &typ)
			add("block:"+typ, b)
		}
	}
	var tls []map[string]json.RawMessage
	_ = json.Unmarshal(body["tools"], &tls)
	for _, tl := range tls {
		add("tool", tl)
	}
	var sys []map[string]json.RawMessage
	_ = json.Unmarshal(body["system"], &sys)
	for _, s := range sys {
		add("system", s)
	}
}

func TestAnthropicRequestShapeMatchesRealAcceptedRequests(t *testing.T) {
	real := keySets(t)
	steps := []fakeapi.Step{
		{Text: text("Checking."), ToolCalls: []fakeapi.ToolCall{{ID: "toolu_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}, {ID: "toolu_2", Name: "nope", Arguments: `{}`}}},
		{Text: text("Done.")},
	}
	_, srv, _, err := runAnt(t, steps, weatherTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]map[string]bool{}
	for _, r := range srv.Requests() {
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		collectKeys(body, func(level string, obj map[string]json.RawMessage) {
			if ours[level] == nil {
				ours[level] = map[string]bool{}
			}
			for k := range obj {
				ours[level][k] = true
			}
		})
	}
	// cache_control is not in the recorded requests (none used prompt
	// caching) but is a field of the SDK's ToolParam and TextBlockParam:
	// the API documents it on tools and system blocks.
	for _, level := range []string{"tool", "system"} {
		if real[level] != nil {
			real[level]["cache_control"] = true
		}
	}
	for level, keys := range ours {
		if real[level] == nil {
			t.Errorf("we send %s objects; no accepted request has one", level)
			continue
		}
		for k := range keys {
			if !real[level][k] {
				var seen []string
				for r := range real[level] {
					seen = append(seen, r)
				}
				sort.Strings(seen)
				t.Errorf("%s key %q appears in no accepted request (seen: %s)", level, k, strings.Join(seen, ", "))
			}
		}
	}
	for _, level := range []string{"body", "message", "block:text", "block:tool_use", "block:tool_result", "tool", "system"} {
		if ours[level] == nil {
			t.Errorf("the test sent no %s", level)
		}
	}
}

// A base URL ending in /v1, as OpenAI-style addresses do, names the same
// server: the SDK adds /v1/messages itself.
func TestAnthropicBaseURLForms(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1/v1":                "http://h:1",
		"http://h:1/v1/":               "http://h:1",
		"http://h:1":                   "http://h:1",
		"http://h:1/proxy/v1":          "http://h:1/proxy",
		"http://h:1/v1?api-key=x":      "http://h:1?api-key=x",
		"http://h:1/v10":               "http://h:1/v10",
		"https://api.anthropic.com/v1": "https://api.anthropic.com",
	} {
		p, err := anthropic.NewMessages(anthropic.Config{BaseURL: in, Model: "m", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.BaseURL(); got != want {
			t.Errorf("base URL %q is used as %q, want %q", in, got, want)
		}
	}
}
