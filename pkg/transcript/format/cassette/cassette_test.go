package cassette

import (
	"bytes"
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

func readLog(t *testing.T, name string) []byte { return checktest.ReadLog(t, name) }

// TestSniff: a cassette is told by its top-level interactions key, after
// "---", comments and other keys.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"vcrpy", "interactions:\n- request:\n    body: '{}'\n", check.Certain},
		{"go-vcr", "---\nversion: 2\ninteractions:\n- id: 0\n", check.Certain},
		{"Ruby's VCR", "---\nhttp_interactions:\n- request:\n", check.Certain},
		{"LangChain's", "requests:\n- body: !!binary |\n    e30=\n", check.Certain},
		{"a comment first", "# recorded\ninteractions: []\n", check.Certain},
		{"other YAML", "name: get_weather\nrun: ./x.sh\n", check.No},
		{"JSON", `{"interactions":[]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// validateBytes checks data as a cassette.
func validateBytes(t *testing.T, name string, data []byte, opts check.Options) ([]check.Finding, check.Stats) {
	t.Helper()
	var fs []check.Finding
	st, err := check.Validate(context.Background(), check.Registry{Format}, name, bytes.NewReader(data), opts, func(f check.Finding) { fs = append(fs, f) })
	if err != nil {
		t.Fatal(err)
	}
	return fs, st
}

// TestRubyVCRBase64Body: Ruby's VCR writes a body that is not valid UTF-8
// as {encoding: ASCII-8BIT, base64_string: …}; it reads as the same body.
func TestRubyVCRBase64Body(t *testing.T) {
	const name = "ruby-vcr_ruby_llm_anthropic_parallel_tool_calls.yml"
	data := readLog(t, name)
	_, want := validateBytes(t, name, data, check.Options{})
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range mapValue(doc.Content[0], "http_interactions").Content {
		body := mapValue(mapValue(it, "request"), "body")
		k, v := mapEntry(body, "string")
		if k == nil {
			continue
		}
		k.Value, v.Value, v.Style = "base64_string", base64.StdEncoding.EncodeToString([]byte(v.Value)), 0
		mapValue(body, "encoding").Value = "ASCII-8BIT"
		n++
	}
	out, err := yaml.Marshal(&doc)
	if err != nil || n != 2 || !bytes.Contains(out, []byte("base64_string")) {
		t.Fatalf("%d bodies, %v", n, err)
	}
	fs, got := validateBytes(t, name, out, check.Options{})
	if got != want || len(fs) != 0 {
		t.Fatalf("base64 bodies: %+v %v; strings: %+v", got, fs, want)
	}
}

// TestLangChainCassette: LangChain's cassettes list the requests, then the
// responses; each request to Bedrock's Converse is checked in the Bedrock
// shape, named requests[N], without a status (the responses come after).
// The file is langchain-aws's, gzipped as that project keeps it.
func TestLangChainCassette(t *testing.T) {
	fs, st := validateBytes(t, "loop.yaml.gz", readLog(t, "langchain-aws_test_agent_loop.yaml.gz"), check.Options{})
	if len(fs) != 0 || st.Conversations != 2 || st.ToolCalls != 1 || st.Messages != 4 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	// The second body with its toolResult taken out.
	body := `{"messages": [{"role": "user", "content": [{"text": "weather?"}]}, {"role": "assistant", "content": [{"toolUse": {"toolUseId": "tooluse_1", "input": {}, "name": "get_weather"}}]}, {"role": "user", "content": [{"text": "and?"}]}], "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather"}}]}}`
	in := "requests:\n- body: !!binary |\n    " + base64.StdEncoding.EncodeToString([]byte(body)) +
		"\n  method: POST\n  uri: https://bedrock-runtime.us-west-2.amazonaws.com/model/us.anthropic.claude-sonnet-5/converse\nresponses:\n- status:\n    code: 200\n"
	fs, _ = validateBytes(t, "cut.yaml", []byte(in), check.Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Path != "requests[0] messages[2]" || fs[0].Status != 0 {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestEndpointShapes: a body sent to Converse or to Ollama's /api/chat is
// checked in the shape its endpoint takes, whatever it looks like: an
// Ollama body is not taken for a Chat Completions one (whose arguments
// would have to be a string, whose tool messages an id).
func TestEndpointShapes(t *testing.T) {
	ollama := `{"model":"qwen3","messages":[{"role":"user","content":"weather?"},{"role":"assistant","tool_calls":[{"function":{"name":"get_weather","arguments":{}}}]},{"role":"tool","content":"sunny"}]}`
	in := "interactions:\n- request:\n    body: '" + ollama + "'\n    method: POST\n    uri: http://localhost:11434/api/chat\n  response:\n    status:\n      code: 200\n"
	fs, st := validateBytes(t, "ollama.yaml", []byte(in), check.Options{})
	if len(fs) != 0 || st.ToolCalls != 1 || st.Unchecked != 0 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
	// The same body sent to a Chat Completions endpoint is not right there.
	in = strings.Replace(in, "http://localhost:11434/api/chat", "http://localhost:11434/v1/chat/completions", 1)
	fs, _ = validateBytes(t, "openai.yaml", []byte(in), check.Options{})
	if !slices.Contains(checktest.Codes(fs), "3 error arguments-not-string") {
		t.Errorf("%s", checktest.Dump(fs))
	}
}
