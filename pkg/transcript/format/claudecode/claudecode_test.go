package claudecode

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a session is told by its first line, whatever comes first in
// it; a line that only looks like one is less sure, and other logs' lines
// are not one.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a summary first", `{"type":"summary","summary":"x","leafUuid":"u"}`, check.Certain},
		{"a user line", `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u"}`, check.Certain},
		{"a snapshot first", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`, check.Certain},
		{"a queue operation first", `{"type":"queue-operation","operation":"enqueue"}`, check.Certain},
		{"trimmed of its tree's keys", `{"type":"assistant","message":{"role":"assistant","content":[]}}`, check.Likely},
		{"a bare message", `{"role":"user","content":"hi"}`, check.No},
		{"a codex line", `{"timestamp":"t","type":"session_meta","payload":{}}`, check.No},
		{"a pretty-printed document", "{\n  \"sessionId\": \"s\",\n  \"type\": \"user\"\n}", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head + "\n")); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestRealSessions: real sessions read with no error, every call counted.
func TestRealSessions(t *testing.T) {
	for _, tc := range []struct {
		file  string
		calls int
	}{
		{"claude-code_1af7fc5e.jsonl", 12},
		{"claude-code_5c0375b4_sidechains.jsonl", 21},
	} {
		fs, st := checktest.Validate(t, check.Registry{Format}, tc.file, checktest.ReadLog(t, tc.file), check.Options{})
		for _, f := range fs {
			if f.Severity == check.Error {
				t.Errorf("%v", f)
			}
		}
		if st.Format != Name || st.Messages == 0 || tc.calls > 0 && st.ToolCalls != tc.calls {
			t.Errorf("%s: %+v", tc.file, st)
		}
	}
}

// TestClaudeCodeTree: a rewound session is two branches, each checked; a
// compaction starts a new conversation; lines that send nothing may sit
// between a call and its result; the lines of one message id are one
// message even with its results between them.
func TestClaudeCodeTree(t *testing.T) {
	u := func(uuid, parent, content string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,"message":{"role":"user","content":` + content + `}}`
	}
	a := func(uuid, parent, id, content string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"id":"` + id + `","type":"message","role":"assistant","content":` + content + `,"stop_reason":null}}`
	}
	use := func(id string) string { return `[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]` }
	res := func(id string) string { return `[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]` }
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"one message over lines, results between", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", `[{"type":"text","text":"Two calls."}]`),
			a("a2", "a1", "msg_1", use("t1")),
			u("r1", "a2", res("t1")),
			a("a3", "r1", "msg_1", use("t2")),
			u("r2", "a3", res("t2")),
			a("a4", "r2", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a result missing in the split message", []string{
			u("u1", "", `"go"`),
			a("a2", "u1", "msg_1", use("t1")),
			u("r1", "a2", res("t1")),
			a("a3", "r1", "msg_1", use("t2")),
			a("a4", "a3", "msg_2", `[{"type":"text","text":"done"}]`),
		}, []string{"3 error unanswered-call"}},
		{"progress lines between a call and its result", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			`{"type":"progress","uuid":"p1","parentUuid":"a1","data":{}}`,
			`{"type":"progress","uuid":"p2","parentUuid":"p1","data":{}}`,
			u("r1", "p2", res("t1")),
			a("a2", "r1", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a rewind: the old branch is checked to its end", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			u("r1", "a1", res("t1")),
			a("a2", "r1", "msg_2", `[{"type":"text","text":"first answer"}]`),
			u("u2", "a2", `"now this"`),
			a("a3", "u2", "msg_3", use("t2")),
			u("u2b", "a2", `"no, that"`), // rewound: a branch from a2
			a("a4", "u2b", "msg_4", `[{"type":"text","text":"ok"}]`),
		}, []string{"6 error pending-call"}},
		{"a compaction starts over", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			u("r1", "a1", res("t1")),
			`{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"r1"}`,
			u("s1", "c1", `"Summary of the conversation so far"`),
			a("a2", "s1", "msg_2", `[{"type":"text","text":"continuing"}]`),
		}, nil},
		{"API errors shown as assistant lines are not sent", []string{
			u("u1", "", `"go"`),
			`{"type":"assistant","uuid":"e1","parentUuid":"u1","isApiErrorMessage":true,"message":{"id":"x","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]}}`,
			a("a1", "e1", "msg_1", `[{"type":"text","text":"hello"}]`),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, st := checktest.Validate(t, check.Registry{Format}, "s.jsonl", []byte(checktest.Lines(tc.lines...)), check.Options{})
			if got := checktest.Codes(fs); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %v, want %v\n%s", got, tc.want, checktest.Dump(fs))
			}
			if st.Format != Name {
				t.Errorf("format %q", st.Format)
			}
		})
	}
}
