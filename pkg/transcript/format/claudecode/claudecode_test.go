package claudecode

import (
	"bytes"
	"encoding/json"
	"slices"
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

// sessions are the real Claude Code sessions of testdata/logs (sources in
// testdata/README.md), with the calls each makes. Those of Claude Code 2.1
// write each tool_result under the line of its own call (parallel calls'
// results are sibling branches of the tree, out of call order at times,
// progress lines between), some with a compaction and sub-agents; those of
// 1.0 and 2.0 chain every line to the one before, with sub-agents' lines
// inline.
var sessions = []struct {
	file  string
	calls int
}{
	{"claude-code_1af7fc5e.jsonl", 12},
	{"claude-code_5c0375b4_sidechains.jsonl", 21},
	{"claude-code_fe5e1c67_inline-sidechains.jsonl", 167},
	{"claude-code_ai-sessions_pomodoro.jsonl", 37},
	{"claude-code_spotter_short.jsonl", 2},
	{"claude-code_spotter_tool_heavy.jsonl", 6},
	{"claude-code_spotter_subagent.jsonl", 16},
	{"claude-code_spotter_8463c716.jsonl", 177},
	{"claude-code_spotter_8463c716_agent-a7be2f0.jsonl", 19},
	{"claude-code_spotter_8463c716_agent-acompact-f46190.jsonl", 0},
	{"claude-code_spotter_4d5611e5_agent-a2898e3.jsonl", 33},
	{"claude-code_spotter_6c2214d7_agent-afc096d.jsonl", 48},
}

// TestRealSessions: real sessions read with no error and no missing line,
// every call counted.
func TestRealSessions(t *testing.T) {
	for _, tc := range sessions {
		t.Run(tc.file, func(t *testing.T) {
			fs, st := checktest.Validate(t, check.Registry{Format}, tc.file, checktest.ReadLog(t, tc.file), check.Options{})
			for _, f := range fs {
				if f.Severity == check.Error || f.Code == "missing-parent" {
					t.Errorf("%v", f)
				}
			}
			if st.Format != Name || st.Messages == 0 || st.ToolCalls != tc.calls {
				t.Errorf("%+v, want %d calls", st, tc.calls)
			}
		})
	}
}

// TestDeletedResult: a tool_result taken out of a real session is found,
// whichever it is: each line holding one is deleted in turn, and the call
// it answered must be named in an error. Deleting a line also leaves the
// lines that named it as their parent without it.
func TestDeletedResult(t *testing.T) {
	for _, tc := range sessions {
		t.Run(tc.file, func(t *testing.T) {
			data := checktest.ReadLog(t, tc.file)
			lines := bytes.SplitAfter(data, []byte("\n"))
			n := 0
			for i, line := range lines {
				ids := resultIDs(line)
				if len(ids) == 0 {
					continue
				}
				n++
				cut := bytes.Join(append(slices.Clone(lines[:i]), lines[i+1:]...), nil)
				fs, _ := checktest.Validate(t, check.Registry{Format}, tc.file, cut, check.Options{})
				if !slices.ContainsFunc(fs, func(f check.Finding) bool {
					return f.Severity == check.Error && slices.ContainsFunc(f.IDs, func(id string) bool { return slices.Contains(ids, id) })
				}) {
					t.Errorf("line %d (%v) deleted: no error names its call\n%s", i+1, ids, checktest.Dump(fs))
				}
			}
			if n == 0 && tc.calls > 0 {
				t.Fatal("no tool_result line")
			}
		})
	}
}

// resultIDs are the calls a Claude Code user line answers.
func resultIDs(line []byte) []string {
	var l struct {
		Type    string
		Message struct {
			Content json.RawMessage
		}
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "user" {
		return nil
	}
	var blocks []struct {
		Type      string
		ToolUseID string `json:"tool_use_id"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return nil
	}
	var ids []string
	for _, b := range blocks {
		if b.Type == "tool_result" {
			ids = append(ids, b.ToolUseID)
		}
	}
	return ids
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
		// Claude Code 2.1 writes each result under its own call's line:
		// the results of one message are sibling branches, out of call
		// order at times, and the next line hangs off the last written.
		{"parallel results under their own calls, out of order", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			`{"type":"progress","uuid":"p1","parentUuid":"a1","data":{}}`,
			a("a2", "p1", "msg_1", use("t2")),
			a("a3", "a2", "msg_1", use("t3")),
			u("r3", "a3", res("t3")),
			u("r1", "a1", res("t1")),
			u("r2", "a2", res("t2")),
			a("a4", "r2", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a result missing among siblings", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			a("a2", "a1", "msg_1", use("t2")),
			u("r2", "a2", res("t2")),
			a("a4", "r2", "msg_2", `[{"type":"text","text":"done"}]`),
		}, []string{"4 error unanswered-call"}},
		{"a call hangs under the result of the one before", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			a("a2", "a1", "msg_1", use("t2")),
			u("r1", "a1", res("t1")),
			a("a3", "r1", "msg_1", use("t3")),
			u("r3", "a3", res("t3")),
			u("r2", "a2", res("t2")),
			a("a4", "r2", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a rewind to an earlier turn is a branch", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			u("r1", "a1", res("t1")),
			a("a2", "r1", "msg_2", `[{"type":"text","text":"first answer"}]`),
			u("u2", "a2", `"now this"`),
			a("a3", "u2", "msg_3", use("t2")),
			u("r2", "a3", res("t2")),
			a("a4", "r2", "msg_4", use("t3")),
			u("u2b", "a2", `"no, that"`),
			a("a5", "u2b", "msg_5", `[{"type":"text","text":"ok"}]`),
		}, []string{"8 error pending-call"}},
		{"a compaction's summary is sent", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", `[{"type":"text","text":"hi"}]`),
			`{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"a1"}`,
			`{"type":"user","uuid":"s1","parentUuid":"c1","isVisibleInTranscriptOnly":true,"isCompactSummary":true,"message":{"role":"user","content":"Summary"}}`,
			a("a2", "s1", "msg_2", `[{"type":"text","text":"continuing"}]`),
		}, nil},
		{"a line taken out of a sidechain goes on in the sidechain", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			`{"type":"user","isSidechain":true,"uuid":"s1","parentUuid":null,"message":{"role":"user","content":"sub-task"}}`,
			`{"type":"assistant","isSidechain":true,"uuid":"s2","parentUuid":"s1","message":{"id":"msg_s1","role":"assistant","content":` + use("t9") + `}}`,
			u("r1", "a1", res("t1")),
			`{"type":"assistant","isSidechain":true,"uuid":"s4","parentUuid":"s3","message":{"id":"msg_s2","role":"assistant","content":[{"type":"text","text":"done"}]}}`,
			a("a2", "r1", "msg_2", `[{"type":"text","text":"done"}]`),
		}, []string{"6 warning missing-parent", "6 warning role-order", "6 error pending-call"}},
		{"a compaction's summariser copies lines of the session", []string{
			`{"type":"user","isSidechain":true,"agentId":"acompact-1","uuid":"x1","parentUuid":"elsewhere1","message":{"role":"user","content":"hook output"}}`,
			`{"type":"user","isSidechain":true,"agentId":"acompact-1","uuid":"x2","parentUuid":"elsewhere2","message":{"role":"user","content":"Summarise."}}`,
			`{"type":"assistant","isSidechain":true,"agentId":"acompact-1","uuid":"x3","parentUuid":"x2","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Summary"}]}}`,
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
