package ollama

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: an /api/chat request is known by a key only Ollama takes, or
// by what only its messages hold; a Chat Completions body is not one.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"options", `{"model":"llama3.2","messages":[{"role":"user","content":"hi"}],"options":{"temperature":0}}` + "\n", check.Certain},
		{"keep_alive", "{\n  \"model\": \"qwen3\",\n  \"messages\": [],\n  \"keep_alive\": \"5m\"\n}\n", check.Certain},
		{"tool_name", `{"model":"qwen3","messages":[{"role":"tool","tool_name":"f","content":"22"}]}` + "\n", check.Certain},
		{"arguments as an object", "{\n  \"model\": \"qwen3\",\n  \"messages\": [{\"role\": \"assistant\", \"tool_calls\": [{\"function\": {\"name\": \"f\", \"arguments\": {\"a\": 1}}}]}]\n}\n", check.Certain},
		{"a Chat Completions body", `{"model":"gpt-4o","messages":[{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\": 1}"}}]}],"stream":true}` + "\n", check.No},
		{"no model", `{"messages":[{"role":"tool","tool_name":"f","content":"22"}]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealBodies: Ollama's own documented requests pass, their calls
// counted; every tool message taken out of the one with four results in
// turn leaves a call unanswered.
func TestRealBodies(t *testing.T) {
	for _, name := range []string{"ollama_docs_tool_result.json", "ollama_docs_parallel_tool_results.json"} {
		data := checktest.ReadLog(t, name)
		fs, st := checktest.Validate(t, check.Registry{Format}, name, data, check.Options{})
		if len(fs) != 0 || st.Format != Name || st.ToolCalls == 0 {
			t.Errorf("%s: %+v\n%s", name, st, checktest.Dump(fs))
		}
	}
	data := string(checktest.ReadLog(t, "ollama_docs_parallel_tool_results.json"))
	lines := strings.SplitAfter(data, "\n")
	cut := 0
	for i, l := range lines {
		if !strings.Contains(l, `"role": "tool"`) {
			continue
		}
		rest := slices.Concat(lines[:i], lines[i+1:])
		if i > 0 && !strings.Contains(l, "},") {
			// The last tool message: the comma goes from the line before.
			rest[i-1] = strings.Replace(rest[i-1], "},", "}", 1)
		}
		fs, _ := checktest.Validate(t, check.Registry{Format}, "cut.json", []byte(strings.Join(rest, "")), check.Options{})
		if len(fs) != 1 || fs[0].Code != "pending-call" || fs[0].Severity != check.Error {
			t.Errorf("line %d taken out: %s", i+1, checktest.Dump(fs))
		}
		cut++
	}
	if cut != 4 {
		t.Errorf("%d tool messages taken out, want 4", cut)
	}
}

// TestPairing: results are matched by tool_call_id, else tool_name, else
// order; what matches no call is reported.
func TestPairing(t *testing.T) {
	user := `{"role":"user","content":"weather in Paris and Rome?"}`
	two := `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"temp","arguments":{"city":"Paris"}}},{"function":{"name":"rain","arguments":{"city":"Rome"}}}]}`
	ids := `{"role":"assistant","content":"","tool_calls":[{"id":"call_a","function":{"name":"temp","arguments":{}}},{"id":"call_b","function":{"name":"temp","arguments":{}}}]}`
	body := func(msgs ...string) []byte {
		return []byte(`{"model":"qwen3","messages":[` + strings.Join(msgs, ",") + "]}\n")
	}
	for _, tc := range []struct {
		name string
		in   []byte
		want []string
	}{
		{"by name, out of order", body(user, two, `{"role":"tool","tool_name":"rain","content":"no"}`, `{"role":"tool","tool_name":"temp","content":"20"}`), nil},
		{"by order", body(user, two, `{"role":"tool","content":"20"}`, `{"role":"tool","content":"no"}`), nil},
		{"by id", body(user, ids, `{"role":"tool","tool_call_id":"call_b","content":"1"}`, `{"role":"tool","tool_call_id":"call_a","content":"2"}`), nil},
		{"a name not called", body(user, two, `{"role":"tool","tool_name":"wind","content":"calm"}`, `{"role":"tool","tool_name":"temp","content":"20"}`, `{"role":"tool","tool_name":"rain","content":"no"}`),
			[]string{"1 error unknown-result-id"}},
		{"a name answered twice", body(user, two, `{"role":"tool","tool_name":"temp","content":"20"}`, `{"role":"tool","tool_name":"temp","content":"21"}`, `{"role":"tool","tool_name":"rain","content":"no"}`),
			[]string{"1 error duplicate-result"}},
		{"more results than calls", body(user, two, `{"role":"tool","content":"20"}`, `{"role":"tool","content":"no"}`, `{"role":"tool","content":"?"}`),
			[]string{"1 error orphan-result"}},
		{"an id not called", body(user, ids, `{"role":"tool","tool_call_id":"call_z","content":"1"}`),
			[]string{"1 error unknown-result-id", "1 error pending-call"}},
		{"a user message before the results", body(user, two, `{"role":"tool","tool_name":"temp","content":"20"}`, user, `{"role":"tool","tool_name":"rain","content":"no"}`),
			[]string{"1 error unanswered-call", "1 error orphan-result"}},
	} {
		fs, _ := checktest.Validate(t, check.Registry{Format}, "t.json", tc.in, check.Options{})
		if got := checktest.Codes(fs); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v\n%s", tc.name, got, tc.want, checktest.Dump(fs))
		}
	}
}

// TestWhatOllamaRefuses: Ollama decodes the request into its Go types;
// what does not fit them it refuses with a 400, whose words the finding
// quotes.
func TestWhatOllamaRefuses(t *testing.T) {
	in := checktest.Lines(
		`{"model":"qwen3","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_name":"f","content":"ok"}]}`,
		`{"model":"qwen3","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"options":{"num_ctx":8192}}`,
	)
	fs, st := checktest.Validate(t, check.Registry{Format}, "log.jsonl", []byte(in), check.Options{})
	if st.Conversations != 2 || len(fs) != 2 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	if fs[0].Code != "arguments-not-object" || !strings.Contains(fs[0].Message, "json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments") {
		t.Errorf("%v", fs[0])
	}
	if fs[1].Code != "invalid-message" || !strings.Contains(fs[1].Message, "json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string") {
		t.Errorf("%v", fs[1])
	}
}

// TestLogOfSeveralAPIs: in a log of request bodies one a line, only the
// lines that show they are Ollama's are read in its shape: a Chat
// Completions body after them keeps its own rules, and its arguments,
// a string there, are not taken for Ollama's mistake.
func TestLogOfSeveralAPIs(t *testing.T) {
	in := checktest.Lines(
		`{"model":"qwen3","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_name":"f","content":"ok"}],"keep_alive":"5m"}`,
		`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_1","content":"ok"}]}`,
		`{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"user","content":"?"}]}`,
	)
	fs, st := checktest.Validate(t, check.Registry{Format}, "requests.jsonl", []byte(in), check.Options{})
	if got := checktest.Codes(fs); st.Conversations != 3 || !slices.Equal(got, []string{"3 error unanswered-call"}) {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}
