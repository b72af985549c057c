package geminicli

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/format/claudecode"
	"github.com/agentloop/agentloop/pkg/transcript/format/gemini"
	"github.com/agentloop/agentloop/pkg/transcript/format/messages"
	"github.com/agentloop/agentloop/pkg/transcript/format/request"
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// session is a session as Gemini CLI 0.36 writes it (the shape of
// ConversationRecord, packages/core/src/services/chatRecordingTypes.ts):
// two parallel calls, each with its result, then a call whose result is a
// string, an info message between.
const session = `{
  "sessionId": "5cdd2021-574a-483d-8a4b-1b97e8bbce88",
  "projectHash": "91f1ad40d4b386f69129089777263086fd8522ed56c883fb66c5a6b0fdb534a9",
  "startTime": "2026-04-01T11:11:56.830Z",
  "lastUpdated": "2026-04-01T11:16:13.947Z",
  "messages": [
    {"id": "1fc0bc7e", "timestamp": "2026-04-01T11:11:56.830Z", "type": "user", "content": [{"text": "create 2 hello world files"}]},
    {"id": "6cbf25ab", "timestamp": "2026-04-01T11:12:19.195Z", "type": "gemini", "content": "I will create two files.", "thoughts": [{"subject": "Setup", "description": "…", "timestamp": "2026-04-01T11:12:17.980Z"}], "model": "gemini-3-flash-preview",
      "toolCalls": [
        {"id": "9y4yn8tb", "name": "write_file", "args": {"file_path": "hello.txt"}, "result": [{"functionResponse": {"id": "9y4yn8tb", "name": "write_file", "response": {"error": "Tool not found."}}}], "status": "error", "timestamp": "2026-04-01T11:12:19.213Z"},
        {"id": "xldstmif", "name": "write_file", "args": {"file_path": "hello.py"}, "result": [{"functionResponse": {"id": "xldstmif", "name": "write_file", "response": {"error": "Tool not found."}}}], "status": "error", "timestamp": "2026-04-01T11:12:19.213Z"}
      ]},
    {"id": "a1b2c3d4", "timestamp": "2026-04-01T11:12:30.000Z", "type": "info", "content": "Switched to fallback model."},
    {"id": "003dbde9", "timestamp": "2026-04-01T11:12:49.033Z", "type": "gemini", "content": "I will ask for help.", "model": "gemini-3-flash-preview",
      "toolCalls": [
        {"id": "ep9jbppf", "name": "cli_help", "args": {"question": "Which tools?"}, "result": "run_shell_command, read_file", "status": "success", "timestamp": "2026-04-01T11:16:13.946Z"}
      ]},
    {"id": "d34b91a2", "timestamp": "2026-04-01T11:16:14.000Z", "type": "user", "content": "/stats"},
    {"id": "e5f6a7b8", "timestamp": "2026-04-01T11:16:20.000Z", "type": "gemini", "content": "Done.", "model": "gemini-3-flash-preview"}
  ],
  "kind": "main"
}
`

// TestSniff: a session is told by its sessionId and projectHash, as a
// document or as the first line of JSONL; no other format takes it.
func TestSniff(t *testing.T) {
	reg := check.Registry{messages.Format, request.Format, claudecode.Format, gemini.Format, Format}
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"a session", session, check.Certain},
		{"JSONL", `{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}` + "\n" + `{"id":"m","type":"user","content":"hi"}` + "\n", check.Certain},
		{"a Claude Code line", `{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}` + "\n", check.No},
		{"a Gemini body", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}` + "\n", check.No},
	} {
		h := checktest.Head(tc.head)
		if got := Format.Sniff(h); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if f, _ := reg.Sniff(h); tc.want == check.Certain && f != Format {
			t.Errorf("%s: read as %s", tc.name, f.Info().Name)
		}
	}
}

// TestSession: a session is checked as Gemini CLI sends it when resumed;
// a tool call whose result is gone leaves the response turn short, which
// the API refuses.
func TestSession(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "session.json", []byte(session), check.Options{})
	if len(fs) != 0 || st.Format != Name || st.ToolCalls != 3 || st.Conversations != 1 || st.Skipped != 2 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	dropped := strings.Replace(session, `"result": [{"functionResponse": {"id": "xldstmif", "name": "write_file", "response": {"error": "Tool not found."}}}], `, "", 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "session.json", []byte(dropped), check.Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 8 || len(fs[0].IDs) != 1 || fs[0].IDs[0] != "xldstmif" ||
		!strings.Contains(fs[0].Message, "it answers 1 of the 2 calls") {
		t.Errorf("%s", checktest.Dump(fs))
	}
	// A session stopped while its last calls ran.
	running := strings.Replace(session, `"result": "run_shell_command, read_file", "status": "success"`, `"status": "executing"`, 1)
	running = strings.Replace(running, `"type": "user", "content": "/stats"`, `"type": "user", "content": "go on"`, 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "session.json", []byte(running), check.Options{})
	if got := strings.Join(checktest.Codes(fs), "; "); got != "18 error unanswered-call" {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestJSONL: a session of JSON lines, a message written again as its calls
// finish: the last copy is the one sent. A rewind drops what follows.
func TestJSONL(t *testing.T) {
	lines := checktest.Lines(
		`{"sessionId":"s1","projectHash":"h","startTime":"2026-05-01T00:00:00Z","lastUpdated":"2026-05-01T00:00:00Z","kind":"main"}`,
		`{"id":"u1","timestamp":"t","type":"user","content":[{"text":"fix the typo"}]}`,
		`{"$set":{"lastUpdated":"t"}}`,
		`{"id":"g1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file","args":{},"status":"executing"}]}`,
		`{"id":"g1","timestamp":"t","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"read_file","args":{},"status":"success","result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"x"}}}]}]}`,
		`{"id":"g2","timestamp":"t","type":"gemini","content":"Fixed."}`,
	)
	fs, st := checktest.Validate(t, check.Registry{Format}, "session.jsonl", []byte(lines), check.Options{})
	if len(fs) != 0 || st.ToolCalls != 1 || st.Messages != 4 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	// Written once, before its call finished: the session stops there.
	cut := strings.Join(strings.Split(lines, "\n")[:4], "\n") + "\n"
	fs, _ = checktest.Validate(t, check.Registry{Format}, "session.jsonl", []byte(cut), check.Options{})
	if got := strings.Join(checktest.Codes(fs), "; "); got != "4 error pending-call" {
		t.Errorf("%s", checktest.Dump(fs))
	}
	// Rewound to before the call: what was held is dropped.
	rewound := cut + checktest.Lines(`{"$rewindTo":"g1"}`, `{"id":"g3","timestamp":"t","type":"gemini","content":"Which typo?"}`)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "session.jsonl", []byte(rewound), check.Options{})
	if len(fs) != 0 {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestRewrittenHistory: a whole session on one line is read as one; a
// $set of messages (the history rewritten, tool outputs masked) is the
// conversation Gemini CLI resumes from, checked on its own.
func TestRewrittenHistory(t *testing.T) {
	oneLine := strings.Join(strings.Fields(session), " ") + "\n"
	fs, st := checktest.Validate(t, check.Registry{Format}, "session.json", []byte(oneLine), check.Options{})
	if len(fs) != 0 || st.ToolCalls != 3 || st.Conversations != 1 {
		t.Fatalf("one line: %+v\n%s", st, checktest.Dump(fs))
	}
	lines := checktest.Lines(
		`{"sessionId":"s1","projectHash":"h"}`,
		`{"id":"u1","type":"user","content":[{"text":"list files"}]}`,
		`{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"ls","args":{},"status":"executing"}]}`,
		`{"$set":{"messages":[{"id":"u1","type":"user","content":[{"text":"list files"}]},{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"c1","name":"ls","args":{},"status":"success","result":"[masked]"}]}]}}`,
		`{"id":"g2","type":"gemini","content":"Two files."}`,
	)
	fs, st = checktest.Validate(t, check.Registry{Format}, "session.jsonl", []byte(lines), check.Options{})
	if len(fs) != 0 || st.Conversations != 2 {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
	dropped := strings.Replace(lines, `,"result":"[masked]"`, "", 1)
	fs, _ = checktest.Validate(t, check.Registry{Format}, "session.jsonl", []byte(dropped), check.Options{})
	if got := strings.Join(checktest.Codes(fs), "; "); got != "5 error pending-call" {
		t.Errorf("%s", checktest.Dump(fs))
	}
}
