package messages

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: any file of JSON lines is one, as a last resort; a whole-file
// document, or text with no JSON line, is not.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a message", `{"role":"user","content":"hi"}` + "\n", check.Fallback},
		{"after a line of text", "hello\n" + `{"role":"user","content":"hi"}` + "\n", check.Fallback},
		{"a number", "5\n", check.Fallback},
		{"an array", "[\n" + `{"role":"user","content":"hi"}` + "\n]\n", check.No},
		{"pretty-printed", "{\n  \"role\": \"user\"\n}\n", check.No},
		{"text", "hello\nworld\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestOneConversation: the lines are one conversation, its shape told by
// its messages.
func TestOneConversation(t *testing.T) {
	in := checktest.Lines(`{"role":"user","content":"hi"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"user","content":"never mind"}`)
	fs, st := checktest.Validate(t, check.Registry{Format}, "m.jsonl", []byte(in), check.Options{})
	if st.Format != "openai-messages" || st.Conversations != 1 || st.Messages != 3 || len(fs) != 1 || fs[0].Code != "unanswered-call" {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}
