package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/format/cassette"
	"github.com/agentloop/agentloop/pkg/transcript/format/conversations"
	"github.com/agentloop/agentloop/pkg/transcript/format/messages"
	"github.com/agentloop/agentloop/pkg/transcript/format/request"
	"github.com/agentloop/agentloop/pkg/transcript/format/swe"
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: Gemini's contents are told by a contents array, or a history
// (an array, or under "history") of contents with parts.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a body", "{\n  \"contents\": [\n    {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n  ]\n}\n", check.Certain},
		{"a body, contents not in view", "{\n  \"contents\": []\n}\n", check.Likely},
		{"a body on a line", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}` + "\n", check.Certain},
		{"a checkpoint", "[\n  {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n]\n", check.Certain},
		{"a history", "{\n  \"history\": [\n    {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n  ]\n}\n", check.Certain},
		{"contents a line", `{"role":"user","parts":[{"text":"hi"}]}` + "\n", check.Likely},
		{"an array of messages", "[\n  {\"role\": \"user\", \"content\": \"hi\"}\n]\n", check.No},
		{"a trajectory's history", "{\n  \"history\": [\n    {\"role\": \"user\", \"content\": \"x\"}\n  ]\n}\n", check.No},
		{"an OpenAI body", `{"model":"m","messages":[]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWinsTheSniff: with every format that could take them, Gemini's files
// go to this one: a history under "history" was a SWE-agent trajectory's,
// and passed unchecked.
func TestWinsTheSniff(t *testing.T) {
	reg := check.Registry{messages.Format, conversations.Format, request.Format, swe.Format, Format}
	for _, head := range []string{
		"{\n  \"contents\": [\n    {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n  ]\n}\n",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}` + "\n",
		"{\n  \"history\": [\n    {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n  ]\n}\n",
		"[\n  {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n]\n",
		`{"role":"user","parts":[{"text":"hi"}]}` + "\n",
	} {
		if f, _ := reg.Sniff(checktest.Head(head)); f != Format {
			t.Errorf("%q: read as %s", head, f.Info().Name)
		}
	}
}

const body = `{
  "contents": [
    {"role": "user", "parts": [{"text": "Weather in Paris and the time?"}]},
    {"role": "model", "parts": [
      {"functionCall": {"id": "a1", "name": "get_weather", "args": {"city": "Paris"}}},
      {"functionCall": {"id": "b2", "name": "get_time", "args": {}}}
    ]},
    {"role": "user", "parts": [
      {"functionResponse": {"id": "b2", "name": "get_time", "response": {"t": "noon"}}},
      {"functionResponse": {"id": "a1", "name": "get_weather", "response": {"sky": "sunny"}}}
    ]},
    {"role": "model", "parts": [{"text": "Sunny, at noon."}]}
  ],
  "tools": [{"functionDeclarations": [{"name": "get_weather"}, {"name": "get_time"}]}],
  "generationConfig": {"temperature": 0}
}
`

// TestBody: a body's parallel calls with ids are answered in any order; a
// response taken out is caught at the turn that lacks it, with the count
// the API's error speaks of.
func TestBody(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "r.json", []byte(body), check.Options{})
	if len(fs) != 0 || st.Format != Name || st.ToolCalls != 2 || st.Messages != 4 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	dropped := strings.Replace(body, `      {"functionResponse": {"id": "b2", "name": "get_time", "response": {"t": "noon"}}},
`, "", 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "r.json", []byte(dropped), check.Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 8 || fs[0].Path != "contents[2]" ||
		!strings.Contains(fs[0].Message, "it answers 1 of the 2 calls") || len(fs[0].IDs) != 1 || fs[0].IDs[0] != "b2" {
		t.Errorf("%s", checktest.Dump(fs))
	}
	// A body ends with its calls unanswered: the API refuses it.
	ends := strings.Replace(body, `,
    {"role": "user", "parts": [
      {"functionResponse": {"id": "b2", "name": "get_time", "response": {"t": "noon"}}},
      {"functionResponse": {"id": "a1", "name": "get_weather", "response": {"sky": "sunny"}}}
    ]},
    {"role": "model", "parts": [{"text": "Sunny, at noon."}]}`, "", 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "r.json", []byte(ends), check.Options{})
	if len(fs) != 1 || fs[0].Code != "pending-call" || fs[0].Severity != check.Error {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestByName: calls without ids are answered by name, in order; a
// response naming a function not called is caught.
func TestByName(t *testing.T) {
	lines := checktest.Lines(
		`{"role":"user","parts":[{"text":"Paris and Rome?"}]}`,
		`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{}}},{"functionResponse":{"name":"get_weather","response":{}}}]}`,
		`{"role":"model","parts":[{"text":"Both sunny."}]}`,
	)
	fs, st := checktest.Validate(t, check.Registry{Format}, "c.jsonl", []byte(lines), check.Options{})
	if len(fs) != 0 || st.ToolCalls != 2 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	wrong := strings.Replace(lines, `{"functionResponse":{"name":"get_weather","response":{}}}]`, `{"functionResponse":{"name":"get_time","response":{}}}]`, 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "c.jsonl", []byte(wrong), check.Options{})
	if got := strings.Join(checktest.Codes(fs), "; "); got != "3 error unknown-result-id; 3 error unanswered-call" {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestRealBodies: real request bodies the Gemini API answered 200 pass
// with no error, and a functionResponse taken out of each is caught.
func TestRealBodies(t *testing.T) {
	for _, tc := range []struct {
		file, cut, want string
	}{
		{"pydantic-ai_tool_call_id_wire_format.yaml",
			"      - parts:\n        - functionResponse:\n            id: call_openai_xyz\n            name: get_answer\n            response:\n              return_value: 42\n        role: user\n",
			"error unanswered-call"},
		{"pydantic-ai_instructions_only_with_tool_calls_EXCERPT.yaml",
			"        - functionResponse:\n            id: pyd_ai_102eb2f935364e77bac26307e3428e2b\n            name: generate_topic\n            response:\n              return_value: penguins\n",
			"error unanswered-call"},
		{"pydantic-ai_cross_provider_capability_replay_EXCERPT.yaml",
			"        - functionResponse:\n            id: auto_load_97d4a2341e6817ea\n            name: search_tools\n            response:\n              discovered_tools:\n              - name: lookup_refund_policy\n",
			"error unanswered-call"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		reg := check.Registry{cassette.Format, Format}
		fs, st := checktest.Validate(t, reg, tc.file, data, check.Options{})
		if st.Errors != 0 || st.Unchecked != 0 || st.ToolCalls == 0 {
			t.Errorf("%s: %+v\n%s", tc.file, st, checktest.Dump(fs))
		}
		cut := strings.Replace(string(data), tc.cut, "", 1)
		if cut == string(data) {
			t.Fatalf("%s: nothing cut", tc.file)
		}
		fs, _ = checktest.Validate(t, reg, tc.file, []byte(cut), check.Options{})
		found := false
		for _, f := range fs {
			found = found || f.Severity.String()+" "+f.Code == tc.want
		}
		if !found {
			t.Errorf("%s, a response cut: want %s, got\n%s", tc.file, tc.want, checktest.Dump(fs))
		}
	}
}
