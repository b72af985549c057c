package swe

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a trajectory is told by its trajectory array, or by a history
// of Chat Completions messages. A history of Gemini contents (a Gemini CLI
// checkpoint: {"history": [{"role", "parts"}]}) is not one: read as a
// trajectory, its messages went unchecked under SWE-agent's name.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a trajectory", "{\n  \"trajectory\": [],\n  \"history\": []\n}\n", check.Certain},
		{"history first", "{\n  \"history\": [\n    {\n      \"role\": \"system\",\n      \"content\": \"x\"", check.Likely},
		{"on one line", `{"history":[{"role":"user","content":"x"}]}` + "\n", check.Likely},
		{"Gemini contents under history", "{\n  \"history\": [\n    {\n      \"role\": \"user\",\n      \"parts\": [{\"text\": \"x\"}]\n    }\n  ]\n}\n", check.No},
		{"an empty history", `{"history":[]}` + "\n", check.Possible},
		{"a request body", "{\n  \"messages\": []\n}\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealTrajectory: a real trajectory's history is checked, its calls
// answered in tool messages that name them in tool_call_ids.
func TestRealTrajectory(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "run.traj", checktest.ReadLog(t, "swe-agent_function_calling_simple.traj"), check.Options{})
	for _, f := range fs {
		if f.Severity == check.Error {
			t.Errorf("%v", f)
		}
	}
	if st.Format != Name || st.Conversations != 1 || st.Messages != 12 || st.ToolCalls != 5 {
		t.Errorf("%+v", st)
	}
}
