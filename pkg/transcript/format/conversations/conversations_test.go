package conversations

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a line holding messages is one; a line wrapping a body too,
// unless it is a record of another log; Gemini's contents and a history
// less surely, as other formats may read them.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"messages", `{"messages":[{"role":"user","content":"hi"}]}`, check.Certain},
		{"traj", `{"task_id":1,"traj":[]}`, check.Certain},
		{"Responses input", `{"model":"m","input":[]}`, check.Certain},
		{"a prompt string", `{"model":"m","input":"hi"}`, check.No},
		{"Batch API input", `{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"messages":[]}}`, check.Likely},
		{"a record with a body", `{"type":"x","body":{}}`, check.No},
		{"Gemini contents", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, check.Possible},
		{"a message", `{"role":"user","content":"hi"}`, check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head + "\n")); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestALineEach: each line is a conversation of its own.
func TestALineEach(t *testing.T) {
	in := checktest.Lines(`{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]}`,
		`{"body":{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":"no"}]},"status":400}`)
	fs, st := checktest.Validate(t, check.Registry{Format}, "c.jsonl", []byte(in), check.Options{})
	if st.Conversations != 2 || st.Messages != 5 || len(fs) != 1 || fs[0].Code != "unanswered-call" || !fs[0].Confirmed() || fs[0].Line != 2 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}
