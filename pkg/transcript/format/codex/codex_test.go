package codex

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a rollout is told by its first line: a payload under one of
// Codex's line types, or the first line of rollouts before Codex CLI 0.30.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"session_meta", `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, check.Certain},
		{"response_item", `{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, check.Certain},
		{"before 0.30", `{"id":"x","timestamp":"t","instructions":null,"git":{}}`, check.Likely},
		{"a payload under another type", `{"type":"event","payload":{}}`, check.No},
		{"a Responses item", `{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`, check.No},
		{"a Claude Code line", `{"type":"user","sessionId":"s","message":{}}`, check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head + "\n")); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealRollouts: real rollouts read with no error, every call counted.
func TestRealRollouts(t *testing.T) {
	for _, tc := range []struct {
		file            string
		messages, calls int
	}{
		{"codex_sample_session.jsonl", 3, 0},
		{"codex_rollout_tools.jsonl", 9, 3},
	} {
		fs, st := checktest.Validate(t, check.Registry{Format}, tc.file, checktest.ReadLog(t, tc.file), check.Options{})
		if len(fs) != 0 || st.Format != Name || st.Messages != tc.messages || st.ToolCalls != tc.calls {
			t.Errorf("%s: %+v\n%s", tc.file, st, checktest.Dump(fs))
		}
	}
}

// TestCodexGhostSnapshot: Codex's record of a git snapshot, never sent, is
// passed over.
func TestCodexGhostSnapshot(t *testing.T) {
	rollout := checktest.ReadLog(t, "codex_rollout_tools.jsonl")
	_, want := checktest.Validate(t, check.Registry{Format}, "rollout.jsonl", rollout, check.Options{})
	ghost := []byte(`{"timestamp":"2026-01-02T03:04:06.000Z","type":"response_item","payload":{"type":"ghost_snapshot","ghost_commit":{"id":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","parent":null,"preexisting_untracked_files":[],"preexisting_untracked_dirs":[]}}}` + "\n")
	fs, got := checktest.Validate(t, check.Registry{Format}, "rollout.jsonl", append(append([]byte(nil), rollout...), ghost...), check.Options{})
	if got != want || len(fs) != 0 {
		t.Fatalf("with a ghost snapshot: %+v %v; without: %+v", got, fs, want)
	}
}

// TestUnknownLineTypes: a line of a type Codex did not write before is
// passed over, counted, and ends nothing: the call before it is still
// answered by the output after it.
func TestUnknownLineTypes(t *testing.T) {
	in := checktest.Lines(`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"}}`,
		`{"timestamp":"t","type":"future_record","payload":{"what":"new"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`)
	fs, st := checktest.Validate(t, check.Registry{Format}, "r.jsonl", []byte(in), check.Options{})
	if len(fs) != 0 || st.Skipped != 1 || st.ToolCalls != 1 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}
