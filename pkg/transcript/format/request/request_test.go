package request

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a whole-file document is one, surest with a request's keys; a
// JSON line is not.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"pretty-printed", "{\n  \"model\": \"m\",\n  \"messages\": []\n}\n", check.Likely},
		{"an array of messages", "[\n  {\"role\": \"user\", \"content\": \"hi\"}\n]\n", check.Likely},
		{"Gemini contents", "{\n  \"contents\": []\n}\n", check.Possible},
		{"another document", "{\n  \"name\": \"x\"\n}\n", check.Fallback},
		{"a JSON line", `{"model":"m","messages":[]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestStreamed: a pretty-printed body is read a message at a time, each
// finding at the line of its message.
func TestStreamed(t *testing.T) {
	body := "{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"},\n" +
		"    {\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"call_1\", \"type\": \"function\", \"function\": {\"name\": \"f\", \"arguments\": \"{}\"}}]},\n" +
		"    {\"role\": \"user\", \"content\": \"no\"}\n  ]\n}\n"
	fs, st := checktest.Validate(t, check.Registry{Format}, "r.json", []byte(body), check.Options{})
	if st.Format != "openai-request" || len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 6 || fs[0].Path != "messages[2]" {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}
