package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Bedrock Converse and Ollama messages, for the cases below.
const (
	bUser    = `{"role":"user","content":[{"text":"weather?"}]}`
	bCall1   = `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":{"city":"Paris"}}}]}`
	bRes1    = `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"sunny"}],"status":"success"}}]}`
	bDone    = `{"role":"assistant","content":[{"text":"It is sunny."}]}`
	bTools   = `"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","inputSchema":{"json":{"type":"object"}}}}]}`
	oUserMsg = `{"role":"user","content":"weather?"}`
	oCallMsg = `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Paris"}}}]}`
	oToolMsg = `{"role":"tool","tool_name":"get_weather","content":"sunny"}`
)

// converse is a Converse request body of msgs, with a toolConfig.
func converse(msgs ...string) string {
	return `{"messages":[` + strings.Join(msgs, ",") + `],` + bTools + "}\n"
}

// ollamaChat is an /api/chat request body of msgs.
func ollamaChat(msgs ...string) string {
	return `{"model":"qwen3","messages":[` + strings.Join(msgs, ",") + `],"stream":false}` + "\n"
}

// shapeCases hold each rule of ShapeRules to what the checker does: the
// bad input gets the rule's code with the severity the shape gives it; the
// fixed one gets no error and not that code.
var shapeCases = []struct {
	shape, code string
	bad, fixed  string
}{
	{"bedrock", "unanswered-call", converse(bUser, bCall1, bUser), converse(bUser, bCall1, bRes1)},
	{"bedrock", "orphan-result", converse(bRes1), converse(bUser, bCall1, bRes1)},
	{"bedrock", "role-order", converse(bUser, bUser, bCall1, bRes1), converse(bUser, bCall1, bRes1)},
	{"bedrock", "first-not-user", converse(bDone, bUser, bCall1, bRes1), converse(bUser, bCall1, bRes1)},
	{"bedrock", "error-result-empty",
		converse(bUser, bCall1, `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[],"status":"error"}}]}`),
		converse(bUser, bCall1, `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"timed out"}],"status":"error"}}]}`)},
	{"bedrock", "invalid-tool-name",
		converse(bUser, `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"get.weather","input":{}}}]}`, bRes1),
		converse(bUser, bCall1, bRes1)},
	{"bedrock", "invalid-call-id",
		converse(bUser, `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tool use 1","name":"get_weather","input":{}}}]}`,
			`{"role":"user","content":[{"toolResult":{"toolUseId":"tool use 1","content":[{"text":"sunny"}]}}]}`),
		// Kimi K2's ids, which Bedrock answered 200.
		converse(bUser, `{"role":"assistant","content":[{"toolUse":{"toolUseId":"functions.get_weather:0","name":"get_weather","input":{}}}]}`,
			`{"role":"user","content":[{"toolResult":{"toolUseId":"functions.get_weather:0","content":[{"text":"sunny"}]}}]}`)},
	{"bedrock", "missing-tool-config",
		`{"inferenceConfig":{},"messages":[` + bUser + `,` + bCall1 + `,` + bRes1 + "]}\n",
		`{"inferenceConfig":{},"messages":[` + bUser + `,` + bCall1 + `,` + bRes1 + "]," + bTools + "}\n"},
	{"bedrock", "empty-content",
		converse(bUser, bCall1, bRes1, `{"role":"assistant","content":[{"text":" "}]}`, bUser),
		converse(bUser, bCall1, bRes1, bDone, bUser)},
	{"bedrock", "invalid-message",
		converse(`{"role":"system","content":[{"text":"be brief"}]}`, bUser, bCall1, bRes1),
		`{"system":[{"text":"be brief"}],"messages":[` + bUser + `,` + bCall1 + `,` + bRes1 + `],` + bTools + "}\n"},
	{"bedrock", "result-not-first",
		converse(bUser, bCall1, `{"role":"user","content":[{"text":"here:"},{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"sunny"}]}}]}`),
		// Text after the results: accepted (pydantic-ai's
		// test_bedrock_llama_tool_result_followed_by_text_accepted).
		converse(bUser, bCall1, `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"sunny"}]}},{"text":"and now?"}]}`)},
	{"bedrock", "text-beside-results",
		converse(bUser, bCall1, `{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"sunny"}]}},{"text":"and now?"}]}`),
		converse(bUser, bCall1, bRes1, bDone, `{"role":"user","content":[{"text":"and now?"}]}`)},
	{"bedrock", "input-not-object",
		converse(bUser, `{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"get_weather","input":"Paris"}}]}`, bRes1),
		converse(bUser, bCall1, bRes1)},
	{"bedrock", "reused-call-id",
		converse(bUser, bCall1, bRes1, bCall1, bRes1),
		converse(bUser, bCall1, bRes1)},
	{"ollama", "arguments-not-object",
		ollamaChat(oUserMsg, `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, oToolMsg),
		ollamaChat(oUserMsg, oCallMsg, oToolMsg)},
	{"ollama", "invalid-message",
		ollamaChat(`{"role":"user","content":[{"type":"text","text":"weather?"}]}`, oCallMsg, oToolMsg),
		ollamaChat(oUserMsg, oCallMsg, oToolMsg)},
	{"ollama", "unanswered-call", ollamaChat(oUserMsg, oCallMsg, oUserMsg), ollamaChat(oUserMsg, oCallMsg, oToolMsg, oUserMsg)},
	{"ollama", "orphan-result", ollamaChat(oUserMsg, oToolMsg), ollamaChat(oUserMsg, oCallMsg, oToolMsg)},
	{"ollama", "pending-call", ollamaChat(oUserMsg, oCallMsg), ollamaChat(oUserMsg, oCallMsg, oToolMsg)},
}

// TestShapeRules: every rule of the Bedrock Converse and Ollama shapes has
// a case, and its code comes with the severity the shape gives it.
func TestShapeRules(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range shapeCases {
		covered[tc.shape+" "+tc.code] = true
	}
	for _, r := range ShapeRules {
		if !covered[r.Shape+" "+r.Code] {
			t.Errorf("rule %s %s has no case", r.Shape, r.Code)
		}
	}
	for _, tc := range shapeCases {
		t.Run(tc.shape+"/"+tc.code, func(t *testing.T) {
			want := shapeSeverity(t, tc.shape, tc.code)
			fs, st := validateBytes(t, "t.json", []byte(tc.bad), Options{})
			if st.Format != tc.shape {
				t.Errorf("read as %s, want %s", st.Format, tc.shape)
			}
			found := false
			for _, f := range fs {
				found = found || f.Code == tc.code && f.Severity == want
			}
			if !found {
				t.Errorf("bad input: want a %s [%s], got:\n%s", want, tc.code, dump(fs))
			}
			fs, _ = validateBytes(t, "t.json", []byte(tc.fixed), Options{})
			for _, f := range fs {
				if f.Code == tc.code || f.Severity == Error {
					t.Errorf("fixed input: unexpected %v", f)
				}
			}
		})
	}
}

// shapeSeverity is the severity a code has in a shape: the shape's own
// where its rule gives one, else that of the shape whose rules it runs
// (Anthropic's for Bedrock, OpenAI's for Ollama).
func shapeSeverity(t *testing.T, shape, code string) Severity {
	for _, r := range ShapeRules {
		if r.Shape == shape && r.Code == code && r.Severity != 0 {
			return r.Severity
		}
	}
	c, ok := LookupCode(code)
	if !ok {
		t.Fatalf("no code %s", code)
	}
	if shape == "bedrock" {
		return c.Anthropic
	}
	return c.OpenAI
}

// TestBedrockCorpusDroppedResult: in each Bedrock body of the corpus the
// API accepted, a toolResult block taken out is found.
func TestBedrockCorpusDroppedResult(t *testing.T) {
	n := 0
	for _, r := range loadCorpus(t) {
		if !r.accepted() || !bytes.Contains(r.Body, []byte(`"toolResult"`)) {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		msgs, _ := body["messages"].([]any)
		for i, m := range msgs {
			msg := m.(map[string]any)
			if msg["role"] != "user" {
				continue
			}
			content, _ := msg["content"].([]any)
			for j, b := range content {
				if _, ok := b.(map[string]any)["toolResult"]; !ok {
					continue
				}
				msg["content"] = append(append([]any{}, content[:j]...), content[j+1:]...)
				cut, _ := json.Marshal(body)
				msg["content"] = content
				fs, _ := validateBytes(t, r.name(), cut, Options{Input: InputRequest})
				if !hasError(fs, "unanswered-call") {
					t.Errorf("%s: messages[%d].content[%d] taken out, want an unanswered-call, got:\n%s", r.name(), i, j, dump(fs))
				}
				n++
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d results taken out", n)
	}
}

// TestLangChainCassetteDroppedResult: LangChain's cassette of a Bedrock
// agent loop keeps its bodies base64-encoded in a gzipped file; the
// toolResult taken out of the second request is found, at that request.
func TestLangChainCassetteDroppedResult(t *testing.T) {
	zr, err := gzip.NewReader(bytes.NewReader(readLog(t, "langchain-aws_test_agent_loop.yaml.gz")))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		t.Fatal(err)
	}
	reqs := yamlValue(doc.Content[0], "requests")
	body := yamlValue(reqs.Content[1], "body")
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body.Value), ""))
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	msgs := req["messages"].([]any)
	msgs[2].(map[string]any)["content"] = []any{map[string]any{"text": "what now?"}}
	raw, _ = json.Marshal(req)
	body.Value = base64.StdEncoding.EncodeToString(raw)
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	fs, st := validateBytes(t, "cut.yaml", out, Options{})
	if st.Format != InputVCR || !hasError(fs, "unanswered-call") || fs[0].Path != "requests[1] messages[2]" {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
}

// yamlValue is the value of key in a YAML mapping.
func yamlValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// TestTypelessText: a text block without a type is valid in Converse
// alone, but not proof of it: a conversation whose calls show another
// shape is checked in that one, and one that never shows its shape is
// taken for Converse, without a finding on the type its blocks lack.
func TestTypelessText(t *testing.T) {
	in := lines(`{"role":"user","content":[{"text":"weather?"}]}`,
		`{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"call_1","content":"sunny"}`)
	fs, st := validateBytes(t, "t.jsonl", []byte(in), Options{})
	if len(fs) != 0 || st.Format != "openai-messages" {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
	body := `{"messages":[` + bUser + `,` + bDone + `],"system":[{"text":"be brief"}]}` + "\n"
	fs, st = validateBytes(t, "t.jsonl", []byte(body), Options{})
	if len(fs) != 0 || st.Format != "bedrock-conversations" {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
}

// TestBedrockMessageLog: a log of Converse messages, one a line, as an
// application keeps its history, is read as messages in the Bedrock
// shape; a toolResult left out is found.
func TestBedrockMessageLog(t *testing.T) {
	fs, st := validateBytes(t, "history.jsonl", []byte(lines(bUser, bCall1, bRes1, bDone)), Options{})
	if len(fs) != 0 || st.Format != "bedrock-messages" || st.ToolCalls != 1 {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
	fs, _ = validateBytes(t, "history.jsonl", []byte(lines(bUser, bCall1, bDone, bUser)), Options{})
	if got := codesAt(fs); !slices.Equal(got, []string{"3 error role-order", "4 error unanswered-call"}) ||
		!strings.Contains(fs[0].Message, "A conversation must alternate between user and assistant roles") {
		t.Errorf("%s", dump(fs))
	}
	// Two user messages before any block says the shape: held as the
	// Anthropic rules see them (a warning: the API merges them), said as
	// Bedrock's once the toolUse shows it.
	fs, _ = validateBytes(t, "history.jsonl", []byte(lines(bUser, bUser, bCall1, bRes1)), Options{})
	if got := codesAt(fs); !slices.Equal(got, []string{"2 error role-order"}) || !strings.Contains(fs[0].Message, "Bedrock refuses it") {
		t.Errorf("%s", dump(fs))
	}
}
