package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// goodTranscript is a whole run: a header, the prompt, a call, the record
// of its result as it finished, its result, the answer, the end. Every
// field of every record type is set.
var goodTranscript = []string{
	`{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","command":"run","provider":"openai","model":"m","base_url":"http://127.0.0.1:1/v1","tools_dirs":["d"],"tools":[{"type":"function","function":{"name":"look","parameters":{"type":"object","properties":{}}}}],"system":"s","max_steps":10,"parent":"p","parent_id":"pi","agentloop":"dev"}`,
	`{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}`,
	`{"type":"message","seq":2,"step":1,"time":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"look","arguments":"{}"}}]},"usage":{"input_tokens":1,"output_tokens":2},"latency_ms":5,"finish_reason":"tool_calls"}`,
	`{"type":"result","step":1,"time":"2026-01-01T00:00:03Z","call_id":"c1","name":"look","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false,"error":"","content":"looked\n"}`,
	`{"type":"message","seq":3,"step":1,"time":"2026-01-01T00:00:03Z","message":{"role":"tool","tool_call_id":"c1","content":"looked\n"},"results":[{"call_id":"c1","name":"look","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false,"error":""}]}`,
	`{"type":"message","seq":4,"step":2,"time":"2026-01-01T00:00:04Z","message":{"role":"assistant","content":"done"},"finish_reason":"stop"}`,
	`{"type":"end","time":"2026-01-01T00:00:05Z","reason":"stop","error":"","steps":2,"usage":{"input_tokens":1,"output_tokens":2}}`,
}

// wrongTypes replaces, in turn, the value of every field of every record
// of goodTranscript with a value of another type: (line, field, old, new).
var wrongTypes = []struct {
	line        int
	field, from string
	to          string
}{
	{1, "type", `"header"`, `5`},
	{1, "version", `1`, `"1"`},
	{1, "version", `1`, `1.5`},
	{1, "id", `"x"`, `7`},
	{1, "time", `"2026-01-01T00:00:00Z"`, `"yesterday"`},
	{1, "time", `"2026-01-01T00:00:00Z"`, `1700000000`},
	{1, "command", `"run"`, `true`},
	{1, "provider", `"openai"`, `["openai"]`},
	{1, "model", `"m"`, `{}`},
	{1, "base_url", `"http://127.0.0.1:1/v1"`, `8080`},
	{1, "tools_dirs", `["d"]`, `"d"`},
	{1, "tools_dirs", `["d"]`, `[1]`},
	{1, "tools", `[{"type":"function","function":{"name":"look","parameters":{"type":"object","properties":{}}}}]`, `{}`},
	{1, "system", `"s"`, `["s"]`},
	{1, "max_steps", `10`, `"10"`},
	{1, "parent", `"p"`, `1`},
	{1, "parent_id", `"pi"`, `false`},
	{1, "agentloop", `"dev"`, `2`},
	{2, "seq", `1`, `"1"`},
	{2, "step", `0`, `"0"`},
	{2, "time", `"2026-01-01T00:00:01Z"`, `"01/01/2026"`},
	{2, "message", `{"role":"user","content":"hi"}`, `"hi"`},
	{3, "usage", `{"input_tokens":1,"output_tokens":2}`, `"3 tokens"`},
	{3, "input_tokens", `1`, `"1"`},
	{3, "output_tokens", `2`, `2.5`},
	{3, "latency_ms", `5`, `"5ms"`},
	{3, "finish_reason", `"tool_calls"`, `1`},
	{4, "step", `1`, `"1"`},
	{4, "time", `"2026-01-01T00:00:03Z"`, `"soon"`},
	{4, "call_id", `"c1"`, `["c1"]`},
	{4, "name", `"look"`, `7`},
	{4, "exit_code", `0`, `0.5`},
	{4, "duration_ms", `3`, `"3ms"`},
	{4, "truncated", `false`, `"false"`},
	{4, "is_error", `false`, `null,"is_error":1`},
	{4, "error", `""`, `false`},
	{4, "content", `"looked\n"`, `{"text":"looked"}`},
	{5, "results", `[{"call_id":"c1","name":"look","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false,"error":""}]`, `{}`},
	{5, "results", `[{"call_id":"c1","name":"look","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false,"error":""}]`, `["c1"]`},
	{5, "call_id", `"c1"`, `1`},
	{5, "name", `"look"`, `null,"name":[]`},
	{5, "exit_code", `0`, `"0"`},
	{5, "duration_ms", `3`, `-0.5`},
	{5, "truncated", `false`, `"no"`},
	{5, "is_error", `false`, `0`},
	{5, "error", `""`, `{}`},
	{7, "reason", `"stop"`, `0`},
	{7, "error", `""`, `["e"]`},
	{7, "steps", `2`, `"2"`},
	{7, "usage", `{"input_tokens":1,"output_tokens":2}`, `[]`},
	{7, "time", `"2026-01-01T00:00:05Z"`, `null,"time":"noon"`},
}

// TestBadTranscripts gives validate and replay transcripts with a field of
// the wrong type, for every field of every record type: validate finds it
// on its line, and replay refuses the file naming the line. What validate
// passes, replay can read.
func TestBadTranscripts(t *testing.T) {
	_, tools := approvalTools(t)
	dir := t.TempDir()
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.jsonl", goodTranscript)
	for _, args := range [][]string{{"validate", good}, {"replay", "--tools-dir", tools, good}} {
		if code, _, errOut := execTest(args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errOut)
		}
	}
	for i, wt := range wrongTypes {
		t.Run(fmt.Sprintf("line %d %s=%s", wt.line, wt.field, wt.to), func(t *testing.T) {
			lines := append([]string(nil), goodTranscript...)
			old := fmt.Sprintf(`"%s":%s`, wt.field, wt.from)
			if !strings.Contains(lines[wt.line-1], old) {
				t.Fatalf("line %d has no %s", wt.line, old)
			}
			lines[wt.line-1] = strings.Replace(lines[wt.line-1], old, fmt.Sprintf(`"%s":%s`, wt.field, wt.to), 1)
			name := fmt.Sprintf("bad%02d.jsonl", i)
			p := write(name, lines)
			code, out, errOut := execTest("validate", p)
			if code != 1 || !regexp.MustCompile(regexp.QuoteMeta(name)+fmt.Sprintf(`:%d: error: `, wt.line)).MatchString(out) {
				t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
			}
			code, _, errOut = execTest("replay", "--tools-dir", tools, p)
			if code == 0 || !strings.Contains(errOut, name) || strings.Contains(errOut, "panic") {
				t.Errorf("replay: exit %d\n%s", code, errOut)
			}
			t.Logf("validate: %sreplay: %s", out, errOut)
		})
	}
}

// execTest runs agentloop in this process with no stdin and no keys.
func execTest(args ...string) (int, string, string) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetEnv(func(k string) string {
		if k == "PATH" {
			return os.Getenv(k)
		}
		return ""
	})
	code := Execute(context.Background(), ios, args)
	return code, out.String(), errOut.String()
}

// TestMalformedTranscripts: a transcript cut short, with a byte order mark,
// CRLF line ends, NUL bytes, a 100 MB line, or nesting 100,000 deep.
// Nothing panics or recurses without bound; each is read as designed or
// refused naming the line.
func TestMalformedTranscripts(t *testing.T) {
	_, tools := approvalTools(t)
	dir := t.TempDir()
	whole := strings.Join(goodTranscript, "\n") + "\n"
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	huge := 100 << 20
	longExit, longRe := 1, `:2: error: line 2 is longer than 8MiB, the most validate holds in memory; it is not checked \(raise the limit with --max-line\) \[line-too-long\]`
	if testing.Short() {
		huge = 1 << 20
		longExit, longRe = 0, `no problems`
	}
	cases := []struct {
		name       string
		data       func() []byte
		validate   int    // exit status
		validateRe string // in stdout
		replay     int
		replayRe   string // in stderr
	}{
		{"torn last record", func() []byte { return []byte(whole[:len(whole)-20]) }, 0,
			`:7: warning: last line is incomplete \(the writer was stopped mid-record\)`, 0, `warning: .*:7: the last line is incomplete`},
		{"byte order mark", func() []byte { return []byte("\xef\xbb\xbf" + whole) }, 0, `no problems`, 0, `1 same`},
		{"CRLF line ends", func() []byte { return []byte(strings.ReplaceAll(whole, "\n", "\r\n")) }, 0, `no problems`, 0, `1 same`},
		{"a NUL between records", func() []byte { return []byte(strings.Replace(whole, "\n", "\n\x00\n", 1)) }, 1,
			`:2: error: binary data, not text \(a NUL byte at line 2, column 1\); the file is not checked further \[binary-file\]`, 1, `line 2: not a JSON object`},
		{"a NUL inside a string", func() []byte { return []byte(strings.Replace(whole, `"content":"hi"`, "\"content\":\"h\x00i\"", 1)) }, 1,
			`:2: error: binary data, not text \(a NUL byte at line 2, column 103\)`, 1, `line 2: not a JSON object: invalid character '\\x00' in string literal`},
		// validate holds at most --max-line (8 MiB) of a line.
		{"a line of 100 MB in a message", func() []byte {
			return []byte(strings.Replace(whole, `"content":"hi"`, `"content":"`+strings.Repeat("a", huge)+`"`, 1))
		}, longExit, longRe, 0, `1 same`},
		{"a line of 100 MB that is not JSON", func() []byte {
			return []byte(strings.Replace(whole, "\n", "\n"+strings.Repeat("x", huge)+"\n", 1))
		}, 1, `:2: error: line`, 1, `line 2: not a JSON object`},
		{"arrays nested 100,000 deep in a message", func() []byte {
			return []byte(strings.Replace(whole, `"content":"hi"`, `"content":`+deep, 1))
		}, 1, `:2: error: line is not JSON: nested too deeply`, 1, `line 2: not a JSON object: .*exceeded max depth`},
		{"a file of arrays nested 100,000 deep", func() []byte { return []byte(deep + "\n") }, 1, `error: file is not JSON: nested too deeply`, 1, `line 1: not a JSON object: .*exceeded max depth`},
		{"the same, without a newline", func() []byte { return []byte(deep) }, 1, `error: file is not JSON: nested too deeply`, 1,
			`: line 1: not a JSON object: .*exceeded max depth`},
		{"objects nested 100,000 deep", func() []byte { return []byte(strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)) }, 1,
			`nested too deeply`, 1, `exceeded max depth`},
		{"an empty file", func() []byte { return nil }, 1, `error: the file is empty: nothing was checked \[no-conversation\]`, 1, `empty file: no messages`},
		{"an empty array of messages", func() []byte { return []byte("[]") }, 1, `error: .*no message.*\[no-conversation\]`, 1, `(?m): no messages$`},
		{"a request body without messages", func() []byte { return []byte(`{"model":"m","messages":[]}`) }, 1, `error: .*no message.*\[no-conversation\]`, 1, `(?m): no messages$`},
		{"binary", func() []byte { return []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe") }, 1, `:3: error: binary data`, 1, `line 1: not a JSON object`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".jsonl")
			if err := os.WriteFile(p, tc.data(), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := execTest("validate", p)
			if code != tc.validate || !regexp.MustCompile(tc.validateRe).MatchString(out) {
				t.Errorf("validate: exit %d, want %d matching %s\n%.2000s\n%.2000s", code, tc.validate, tc.validateRe, out, errOut)
			}
			code, _, errOut = execTest("replay", "--tools-dir", tools, p)
			if code != tc.replay || !regexp.MustCompile(tc.replayRe).MatchString(errOut) {
				t.Errorf("replay: exit %d, want %d matching %s\n%.2000s", code, tc.replay, tc.replayRe, errOut)
			}
			if bytes.Contains([]byte(out+errOut), []byte("goroutine ")) {
				t.Errorf("a panic:\n%s%s", out, errOut)
			}
			// Resume reads the same way (it once indexed the last of no
			// messages); these cases have nothing to resume.
			if tc.replay != 0 {
				code, _, errOut = execTest("replay", "--resume", "--base-url", "http://127.0.0.1:1", "--tools-dir", tools, p)
				if code != 1 || !regexp.MustCompile(tc.replayRe).MatchString(errOut) {
					t.Errorf("replay --resume: exit %d, want 1 matching %s\n%.2000s", code, tc.replayRe, errOut)
				}
			}
		})
	}
}
