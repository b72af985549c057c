package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownItemsAreNotPassed: lines whose "type" names no message or
// Responses input item (another tool's events, a log read as the wrong
// format) are not counted as checked messages, but as lines passed over: a
// file of nothing else is a no-conversation error, never "no problems".
func TestUnknownItemsAreNotPassed(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	for _, tc := range []struct {
		name    string
		data    []byte
		opts    Options
		codes   []string // in order
		skipped int
	}{
		// `codex exec --json` events: no message among them.
		{"exec-events.jsonl", []byte(`{"type":"thread.started","thread_id":"019a2d7a"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"4"}}
`), Options{}, []string{"no-conversation"}, 3},
		// A real Claude Code session forced to be read as a Codex rollout.
		{"session.jsonl", session, Options{Input: InputCodex}, []string{"no-conversation"}, 0},
		// Items of a type the API does not have, among real ones: the
		// items are checked, the unknown one passed over.
		{"mixed.jsonl", []byte(`{"type":"message","role":"user","content":"hi"}
{"type":"frobnicate","x":1}
{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}
{"type":"function_call_output","call_id":"call_1","output":"ok"}
`), Options{}, nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, st := validateBytes(t, tc.name, tc.data, tc.opts)
			var got []string
			for _, f := range fs {
				got = append(got, f.Code)
			}
			if strings.Join(got, " ") != strings.Join(tc.codes, " ") {
				t.Fatalf("codes %v, want %v: %v", got, tc.codes, fs)
			}
			if tc.skipped > 0 && st.Skipped != tc.skipped {
				t.Errorf("%d lines passed over, want %d", st.Skipped, tc.skipped)
			}
			if tc.name == "mixed.jsonl" {
				if st.Messages != 3 || st.ToolCalls != 1 || st.Errors != 0 {
					t.Errorf("stats %+v", st)
				}
				return
			}
			if st.Messages != 0 || st.Errors != 1 || !strings.Contains(fs[0].Message, "nothing was checked") {
				t.Errorf("stats %+v, %v", st, fs)
			}
		})
	}
}

// TestBookkeepingLines: the lines agent tools keep among a log's messages
// (Kimi CLI writes {"role": "_usage"} between an assistant message with
// calls and the tool messages that answer them) are passed over and
// counted, never taken for the message that had to answer: they were
// invalid-message errors, and the calls before them unanswered.
func TestBookkeepingLines(t *testing.T) {
	in := lines(`{"role":"_system_prompt","content":"You are Kimi."}`, oUser, oCall1,
		`{"role":"_usage","token_count":1234}`, oTool1, `{"role":"_checkpoint","id":1}`, oDone)
	fs, st := validateBytes(t, "context.jsonl", []byte(in), Options{})
	if len(fs) != 0 || st.Skipped != 3 || st.Messages != 4 || st.ToolCalls != 1 {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
	// Left out, the answer is still missing where it should be.
	in = lines(oUser, oCall1, `{"role":"_usage","token_count":1234}`, oDone)
	fs, _ = validateBytes(t, "context.jsonl", []byte(in), Options{})
	if got := codesAt(fs); strings.Join(got, "|") != "4 error unanswered-call" {
		t.Errorf("%v\n%s", got, dump(fs))
	}
	// In a request body, a role no API has is one the API refuses.
	fs, _ = validateBytes(t, "body.jsonl", []byte(`{"messages":[`+oUser+`,{"role":"_usage","token_count":1}]}`+"\n"), Options{})
	if len(fs) != 1 || fs[0].Code != "invalid-message" {
		t.Errorf("%s", dump(fs))
	}
}

// TestClaudeCodeWithoutParents: Claude Code lines that carry no parentUuid
// or sessionId (a session trimmed by hand or by another tool) are still a
// Claude Code log, read in file order, and a result taken out is found.
func TestClaudeCodeWithoutParents(t *testing.T) {
	var out bytes.Buffer
	dropped := false
	for _, line := range bytes.Split(bytes.TrimSpace(readLog(t, "claude-code_1af7fc5e.jsonl")), []byte("\n")) {
		var o map[string]any
		if err := json.Unmarshal(line, &o); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"parentUuid", "sessionId", "isSidechain", "leafUuid"} {
			delete(o, k)
		}
		if !dropped && bytes.Contains(line, []byte(`"tool_use_id":"toolu_012Gbtu9wRFgVWjdDUHE3djw"`)) {
			dropped = true
			continue
		}
		b, _ := json.Marshal(o)
		out.Write(append(b, '\n'))
	}
	fs, st := validateBytes(t, "trimmed.jsonl", out.Bytes(), Options{})
	if st.Format != InputClaudeCode || st.ToolCalls != 12 {
		t.Fatalf("read as %q, %+v", st.Format, st)
	}
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].IDs[0] != "toolu_012Gbtu9wRFgVWjdDUHE3djw" {
		t.Fatalf("findings %v", fs)
	}
}

// TestResponsesCallKinds: the Responses API's other calls (shell_call,
// apply_patch_call, computer_call; openai-go's ResponseInputItem*Param
// types) are answered by their own *_call_output items, and
// apply_patch_call_output's output is optional there.
func TestResponsesCallKinds(t *testing.T) {
	clean := `{"role":"user","content":"fix it"}
{"type":"shell_call","id":"sh_1","call_id":"call_1","action":{"commands":["ls"]},"status":"completed"}
{"type":"shell_call_output","call_id":"call_1","output":[{"stdout":"a.go","stderr":"","outcome":{"type":"exit","exit_code":0}}]}
{"type":"apply_patch_call","id":"ap_1","call_id":"call_2","operation":{"type":"update_file","path":"a.go","diff":"@@"},"status":"completed"}
{"type":"apply_patch_call_output","call_id":"call_2","status":"completed"}
{"type":"computer_call","id":"cu_1","call_id":"call_3","action":{"type":"screenshot"},"pending_safety_checks":[],"status":"completed"}
{"type":"computer_call_output","call_id":"call_3","output":{"type":"computer_screenshot","image_url":"data:image/png;base64,AA=="}}
{"role":"assistant","content":"done"}
`
	fs, st := validateBytes(t, "clean.jsonl", []byte(clean), Options{})
	if len(fs) != 0 || st.ToolCalls != 3 {
		t.Fatalf("%+v: %v", st, fs)
	}
	// Without its output, each call is unanswered.
	var cut []string
	for _, l := range strings.Split(clean, "\n") {
		if !strings.Contains(l, "_call_output") {
			cut = append(cut, l)
		}
	}
	fs, _ = validateBytes(t, "cut.jsonl", []byte(strings.Join(cut, "\n")), Options{})
	var ids []string
	for _, f := range fs {
		if f.Code != "unanswered-call" {
			t.Errorf("%v", f)
		}
		ids = append(ids, f.IDs...)
	}
	if strings.Join(ids, " ") != "call_1 call_2 call_3" {
		t.Errorf("unanswered %v: %v", ids, fs)
	}
}

// TestHeldFindingsAllReported: findings on messages that say nothing of
// their shape wait until the conversation shows it; however many there
// are, every one is reported and counted. The corpus's own records (a
// wrapper of request bodies, no role) read as messages are one each.
func TestHeldFindingsAllReported(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("../../testdata/corpus", "pydantic-ai-other-shapes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	fs, st := validateBytes(t, "records.jsonl", data, Options{Input: InputMessages})
	if len(fs) != lines || st.Errors != lines {
		t.Fatalf("%d findings, %d errors for %d lines without a role", len(fs), st.Errors, lines)
	}
	for i, f := range fs {
		if f.Code != "invalid-message" || f.Line != i+1 {
			t.Fatalf("finding %d: %v", i, f)
		}
	}
}

// TestForcedLogFormat: --input inspect, swe-agent or har reads what it
// names or nothing: a log of another kind is not checked under its name.
func TestForcedLogFormat(t *testing.T) {
	for _, tc := range []struct{ file, input string }{
		{"swe-agent_function_calling_simple.traj", InputHAR},
		{"swe-agent_function_calling_simple.traj", InputInspect},
		{"inspect_browser_EXCERPT.json", InputSWEAgent},
		{"recorded-bodies.har", InputInspect},
	} {
		t.Run(tc.input+"/"+tc.file, func(t *testing.T) {
			fs, st := validateBytes(t, tc.file, readLog(t, tc.file), Options{Input: tc.input})
			if st.Messages != 0 || st.Errors != 1 || len(fs) != 1 || fs[0].Code != "not-a-conversation" ||
				!strings.Contains(fs[0].Message, "--input "+tc.input) {
				t.Fatalf("%+v: %v", st, fs)
			}
		})
	}
}

// TestHeldFindingsBounded: findings that depend on a shape the
// conversation has not shown yet are held up to a bound; past it they are
// counted and said in one finding, and the shape, once shown, is still the
// one the rest is checked in.
func TestHeldFindingsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 120 {
		fmt.Fprintf(&b, `{"role":"user","content":"hello %d"}`+"\n", i)
	}
	b.WriteString(`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]}` + "\n")
	b.WriteString(`{"role":"user","content":"never mind"}` + "\n")
	fs, st := validateBytes(t, "long.jsonl", []byte(b.String()), Options{})
	if st.Format != "anthropic-messages" || st.ToolCalls != 1 {
		t.Fatalf("%+v", st)
	}
	var held, more, unanswered int
	for _, f := range fs {
		switch {
		case f.Code == "role-order" && strings.Contains(f.Message, "19 more findings"):
			more++
		case f.Code == "role-order":
			held++
		case f.Code == "unanswered-call":
			unanswered++
		}
	}
	if held != 100 || more != 1 || unanswered != 1 {
		t.Fatalf("%d held, %d summaries, %d unanswered: %v", held, more, unanswered, fs)
	}
}

// TestForeignLinesInClaudeCodeLog: a line of a Claude Code log that Claude
// Code did not write (another log's line, a bare message appended, a
// message line without its message, a line whose type and role disagree)
// is an invalid-record error, never passed over: the file is not "no
// problems" when part of it was not read.
func TestForeignLinesInClaudeCodeLog(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	codex := readLog(t, "codex_rollout_tools.jsonl")
	last := bytes.LastIndexByte(bytes.TrimSuffix(session, []byte("\n")), '\n') + 1
	lastLine := string(session[last:])
	for _, tc := range []struct {
		name string
		data []byte
		line int
	}{
		{"a Codex rollout after it", append(append([]byte{}, session...), codex...), 30},
		{"a bare message with a call after it", append(append([]byte{}, session...),
			oCall("call_1", "x", `"{}"`)+"\n"+`{"role":"user","content":"hi"}`+"\n"...), 30},
		{"an agentloop header line", append(append([]byte{}, session...),
			`{"type":"header","version":1,"provider":"openai"}`+"\n"...), 30},
		{"a user line without its message", []byte(strings.Replace(string(session),
			`"message":{"role":"user","content":[{"tool_use_id":"toolu_01PbUvZLKxR3ysWR9vhm6PSH"`,
			`"msg":{"role":"user","content":[{"tool_use_id":"toolu_01PbUvZLKxR3ysWR9vhm6PSH"`, 1)), 23},
		{"a line typed assistant holding a user message", []byte(string(session[:last]) +
			strings.Replace(lastLine, `"type":"assistant"`, `"type":"user"`, 1)), 29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if bytes.Equal(tc.data, session) {
				t.Fatal("the mutation changed nothing")
			}
			fs, st := validateBytes(t, "session.jsonl", tc.data, Options{})
			found := false
			for _, f := range fs {
				if f.Code == "invalid-record" && f.Severity == Error && f.Line == tc.line {
					found = true
				}
			}
			if !found || st.Errors == 0 || st.Format != InputClaudeCode {
				t.Fatalf("want an invalid-record error at line %d, got %+v %v", tc.line, st, fs)
			}
		})
	}
}

// TestCodexRolloutBareMessage: a message line without a type in a Codex
// rollout (appended by hand, or by another tool) is checked as the item it
// would be, not passed over.
func TestCodexRolloutBareMessage(t *testing.T) {
	rollout := readLog(t, "codex_rollout_tools.jsonl")
	_, before := validateBytes(t, "rollout.jsonl", rollout, Options{})
	data := append(append([]byte{}, rollout...), oCall("call_1", "x", `"{}"`)+"\n"+`{"role":"user","content":"hi"}`+"\n"...)
	fs, st := validateBytes(t, "rollout.jsonl", data, Options{})
	if st.Format != InputCodex || st.Messages != before.Messages+2 || len(fs) == 0 {
		t.Fatalf("stats %+v (before %+v), findings %v", st, before, fs)
	}
}

// TestForeignLinesBeforeClaudeCode: lines of another log before the first
// Claude Code line of a file read as one are one error naming the first of
// them; a file of nothing else is one no-conversation.
func TestForeignLinesBeforeClaudeCode(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	rollout := readLog(t, "codex_rollout_tools.jsonl")
	fs, st := validateBytes(t, "mixed.jsonl", append(append([]byte{}, rollout...), session...), Options{Input: InputClaudeCode})
	if len(fs) != 1 || fs[0].Code != "invalid-record" || fs[0].Line != 1 || !strings.Contains(fs[0].Message, "12 more lines") || st.Messages != 14 {
		t.Errorf("rollout then session: %+v %v", st, fs)
	}
	fs, _ = validateBytes(t, "rollout.jsonl", rollout, Options{Input: InputClaudeCode})
	if len(fs) != 1 || fs[0].Code != "no-conversation" {
		t.Errorf("rollout alone: %v", fs)
	}
}

// TestOtherLogAfterMessages: Claude Code or Codex log lines after messages
// of a JSONL file, or a Claude Code session after a Codex rollout, are two
// logs in one file: each line of the second an invalid-record error, as
// the messages they hold are not checked. (They passed with one warning.)
func TestOtherLogAfterMessages(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	rollout := readLog(t, "codex_rollout_tools.jsonl")
	msgs := []byte(lines(`{"role":"user","content":"hi"}`, `{"role":"assistant","content":"hello"}`))
	for _, tc := range []struct {
		name   string
		data   []byte
		format string
		errors int // one a line of the second log holding a message
	}{
		{"messages then a Claude Code session", append(append([]byte{}, msgs...), session...), "openai-messages", 29},
		{"messages then a Codex rollout", append(append([]byte{}, msgs...), rollout...), "openai-messages", 13},
		{"a Codex rollout then a Claude Code session", append(append([]byte{}, rollout...), session...), InputCodex, 29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, st := validateBytes(t, "two.jsonl", tc.data, Options{})
			n := 0
			for _, f := range fs {
				if f.Code == "invalid-record" && f.Severity == Error {
					n++
				}
			}
			if n != tc.errors || st.Format != tc.format {
				t.Fatalf("%d invalid-record errors, want %d; %+v %v", n, tc.errors, st, fs)
			}
		})
	}
}

// TestUnknownItemWithPayload: a Responses item of a type the checker does
// not know that has a "payload" or "message" object field (a future item)
// is not taken for another log's line.
func TestUnknownItemWithPayload(t *testing.T) {
	fs, st := validateBytes(t, "items.jsonl", []byte(lines(
		`{"type":"message","role":"user","content":"hi"}`,
		`{"type":"widget_call","id":"wg_1","payload":{"z":1}}`,
		`{"type":"gadget_call","id":"gd_1","message":{"z":1}}`)), Options{})
	if st.Errors != 0 || len(fs) != 0 || st.Skipped != 2 {
		t.Fatalf("%+v %v", st, fs)
	}
}

// TestClaudeCodeResultLine: the result line Claude Code's print mode ends
// its stream-json output with is Claude Code's own, not an agentloop
// result record, which is told by its call_id.
func TestClaudeCodeResultLine(t *testing.T) {
	session := readLog(t, "claude-code_1af7fc5e.jsonl")
	for _, tc := range []struct {
		name, line string
		want       bool
	}{
		{"Claude Code's", `{"type":"result","subtype":"success","is_error":false,"duration_ms":100,"num_turns":2,"result":"Done.","session_id":"abc","total_cost_usd":0.01}`, false},
		{"agentloop's", `{"type":"result","seq":4,"call_id":"call_1","name":"x","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, st := validateBytes(t, "session.jsonl", append(append([]byte{}, session...), tc.line+"\n"...), Options{})
			got := false
			for _, f := range fs {
				got = got || f.Code == "invalid-record"
			}
			if got != tc.want || st.Format != InputClaudeCode {
				t.Fatalf("invalid-record %v, want %v: %+v %v", got, tc.want, st, fs)
			}
		})
	}
}
