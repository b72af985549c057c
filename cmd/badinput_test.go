package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// badFlag is a command line with a bad value, and the error it must give.
type badFlag struct {
	args []string
	code int
	// err matches the line of stderr that starts "agentloop: ", after that.
	err string
	// noHint: the command prints its own message and exits 2 without the
	// pointer to --help (validate's unreadable files).
	noHint bool
}

// badFlagCases covers a bad value of every flag of every command. The
// placeholders DIR (a tools folder), T (a transcript) and EMPTY (an empty
// folder) are replaced before the run. Free-text flags (--model, --system,
// --call-id) take any value and are not listed.
func badFlagCases() []badFlag {
	run := func(args ...string) []string {
		return append([]string{"run", "--tools-dir", "DIR", "--base-url", "http://127.0.0.1:1", "--max-retries", "0", "--no-transcript"}, args...)
	}
	runNoT := func(args ...string) []string {
		return append([]string{"run", "--tools-dir", "DIR", "--base-url", "http://127.0.0.1:1", "--max-retries", "0"}, args...)
	}
	return []badFlag{
		// root
		{args: []string{"--nope"}, code: 2, err: `^unknown flag: --nope$`},
		{args: []string{"nope"}, code: 2, err: `^unknown command "nope" for "agentloop"$`},
		{args: []string{"--version=2"}, code: 2, err: `^--version "2": want true or false \(--version alone means true\)$`},
		{args: []string{"version", "x"}, code: 2, err: `^agentloop version takes no arguments, got "x"$`},
		{args: []string{"schema", "x"}, code: 2, err: `^agentloop schema takes no arguments, got "x"$`},
		{args: []string{"schema", "transcript", "x"}, code: 2, err: `^agentloop schema transcript takes no arguments, got "x"$`},

		// run
		{args: run("--provider", "gemini", "hi"), code: 2, err: `^--provider "gemini": use openai, responses or anthropic$`},
		{args: run("--base-url", "::not a url", "hi"), code: 2, err: `^--base-url "::not a url": is not a URL: missing protocol scheme$`},
		{args: run("--base-url", "ftp://x/v1", "hi"), code: 2, err: `^--base-url "ftp://x/v1": want an http:// or https:// URL, e\.g\. http://localhost:11434/v1$`},
		{args: run("--base-url", "http:///v1", "hi"), code: 2, err: `^--base-url "http:///v1": has no host$`},
		{args: run("--base-url", "http://u:secret@:80/v1", "hi"), code: 2, err: `^--base-url "http://u:\[REDACTED\]@:80/v1": has no host$`},
		{args: run("--temperature", "warm", "hi"), code: 2, err: `^--temperature "warm": not a number$`},
		{args: run("--temperature", "2.5", "hi"), code: 2, err: `^--temperature 2.5 is out of range: use a value from 0 to 2$`},
		{args: run("--temperature", "-0.1", "hi"), code: 2, err: `^--temperature -0.1 is out of range: use a value from 0 to 2$`},
		{args: run("--temperature", "NaN", "hi"), code: 2, err: `^--temperature NaN is out of range: use a value from 0 to 2$`},
		{args: run("--temperature", "Inf", "hi"), code: 2, err: `^--temperature \+Inf is out of range: use a value from 0 to 2$`},
		{args: run("--max-tokens", "-5", "hi"), code: 2, err: `^--max-tokens -5: must be positive$`},
		{args: run("--max-tokens", "0", "hi"), code: 2, err: `^--max-tokens 0: must be positive$`},
		{args: run("--max-tokens", "1e3", "hi"), code: 2, err: `^--max-tokens "1e3": not a whole number$`},
		{args: run("--max-retries", "-1", "hi"), code: 2, err: `^--max-retries -1: must be 0 or more$`},
		{args: run("--max-retries", "99999999999999999999", "hi"), code: 2, err: `^--max-retries "99999999999999999999": too large a number$`},
		{args: run("--timeout", "5", "hi"), code: 2, err: `^--timeout "5": not a duration: write a number and a unit, e\.g\. 30s, 5m or 1h$`},
		{args: run("--timeout", "-1s", "hi"), code: 2, err: `^--timeout -1s: must be positive`},
		{args: run("--tool", "nope", "hi"), code: 2, err: `^--tool: unknown tool "nope" \(available: delete, look\)$`},
		{args: run("--tool", "delet", "hi"), code: 2, err: `^--tool: unknown tool "delet" \(did you mean "delete"\?\) \(available: delete, look\)$`},
		{args: []string{"run", "--tools-dir", "/nonexistent", "hi"}, code: 2, err: `^--tools-dir /nonexistent: no such file or folder$`},
		{args: []string{"run", "--tools-dir", "T", "hi"}, code: 1, err: `^1 problem in the tool definitions$`},
		{args: []string{"run", "--tools-dir", "", "hi"}, code: 2, err: `^--tools-dir \[""\]: an entry is empty$`},
		{args: []string{"run", "--tools-dir", "DIR", "--tools-dir", "", "hi"}, code: 2, err: `^--tools-dir \[.+, ""\]: an entry is empty$`},
		{args: run("--max-steps", "0", "hi"), code: 2, err: `^--max-steps 0: must be at least 1$`},
		{args: run("--max-steps", "many", "hi"), code: 2, err: `^--max-steps "many": not a whole number$`},
		{args: run("--parallel", "0", "hi"), code: 2, err: `^--parallel 0: must be at least 1$`},
		{args: run("--parallel", "-3", "hi"), code: 2, err: `^--parallel -3: must be at least 1$`},
		{args: run("-o", "x.jsonl", "hi"), code: 2, err: `^-o and --no-transcript cannot be used together$`},
		{args: runNoT("-o", "", "hi"), code: 2, err: `^-o needs a file name \(--no-transcript writes none\)$`},
		{args: runNoT("-o", "EMPTY", "hi"), code: 2, err: `^-o .*: is a folder; name a file for the transcript \(-o .*/run\.jsonl\)$`, noHint: true},
		{args: runNoT("-o", "T/x.jsonl", "hi"), code: 2, err: `^-o .*/x\.jsonl: create transcript: .*: not a folder$`, noHint: true},
		{args: run("--no-transcript=sure", "hi"), code: 2, err: `^--no-transcript "sure": want true or false \(--no-transcript alone means true\)$`},
		{args: run("--json=maybe", "hi"), code: 2, err: `^--json "maybe": want true or false \(--json alone means true\)$`},
		{args: run("-v=2", "hi"), code: 2, err: `^-v "2": want true or false \(-v alone means true\)$`},
		{args: run("-q=2", "hi"), code: 2, err: `^-q "2": want true or false \(-q alone means true\)$`},
		{args: run("-v", "-q", "hi"), code: 2, err: `^-v and -q cannot be used together$`},
		{args: append([]string{"-v"}, run("-q", "hi")...), code: 2, err: `^-v and -q cannot be used together$`},
		{args: run("--stream", "--no-stream", "hi"), code: 2, err: `^--stream and --no-stream cannot be used together$`},
		{args: run("--yes=please", "hi"), code: 2, err: `^--yes "please": want true or false`},
		{args: run("--allow", "nope", "hi"), code: 2, err: `^--allow nope: unknown tool "nope" \(available: delete, look\)$`},
		{args: run("--deny", "delet", "hi"), code: 2, err: `^--deny delet: unknown tool "delet" \(did you mean "delete"\?\) \(available: delete, look\)$`},
		{args: run("--tool", "look,delete", "hi"), code: 2, err: `^--tool: unknown tool "look,delete": one name a value; repeat the flag for each of look, delete$`},
		{args: run("--allow", "delete, look", "hi"), code: 2, err: `^--allow delete, look: unknown tool "delete, look": one name a value; repeat the flag for each of delete, look$`},
		{args: run("--deny", "look,nope", "hi"), code: 2, err: `^--deny look,nope: unknown tool "look,nope" \(available: delete, look\)$`},
		{args: run("--allow", "look", "--deny", "look", "hi"), code: 2, err: `^--allow look and --deny look: a tool cannot be both$`},
		{args: run("--max-steps"), code: 2, err: `^flag needs an argument: --max-steps$`},

		// replay
		{args: []string{"replay"}, code: 2, err: `^agentloop replay needs 1 argument\(s\) \(FILE\), got 0$`},
		{args: []string{"replay", "a", "b"}, code: 2, err: `^agentloop replay needs 1 argument\(s\) \(FILE\), got 2$`},
		{args: []string{"replay", "/nonexistent"}, code: 2, err: `^read transcript: open /nonexistent: no such file or directory$`, noHint: true},
		{args: []string{"replay", "EMPTY"}, code: 2, err: `^read transcript: read .*: is a directory$`, noHint: true},
		{args: []string{"replay", "--show", "--resume", "T"}, code: 2, err: `^--show and --resume cannot be used together$`},
		{args: []string{"replay", "--show", "-o", "x", "T"}, code: 2, err: `^--show and -o cannot be used together$`},
		{args: []string{"replay", "--show", "--deny", "look", "T"}, code: 2, err: `^--show and --deny cannot be used together$`},
		{args: []string{"replay", "--show", "-q", "T"}, code: 2, err: `^--quiet applies to --resume only$`},
		{args: []string{"replay", "-q", "T"}, code: 2, err: `^--quiet applies to --resume only$`},
		{args: []string{"replay", "--force=1x", "T"}, code: 2, err: `^--force "1x": want true or false`},
		{args: []string{"replay", "--ignore", "(", "T"}, code: 2, err: "^--ignore \"\\(\": error parsing regexp: missing closing \\): `\\(`$"},
		{args: []string{"replay", "--parallel", "0", "T"}, code: 2, err: `^--parallel 0: must be at least 1$`},
		{args: []string{"replay", "--tools-dir", "/nonexistent", "T"}, code: 2, err: `^--tools-dir /nonexistent: no such file or folder$`},
		{args: []string{"replay", "-o", "T", "T"}, code: 2, err: `^-o .* would overwrite the transcript being read$`},
		{args: []string{"replay", "--model", "m", "T"}, code: 2, err: `^--model applies to --resume only$`},
		{args: []string{"replay", "--max-steps", "3", "T"}, code: 2, err: `^--max-steps applies to --resume only$`},
		{args: []string{"replay", "--json", "T"}, code: 2, err: `^--json applies to --resume only$`},
		{args: []string{"replay", "--allow", "nope", "--tools-dir", "DIR", "T"}, code: 2, err: `^--allow nope: unknown tool "nope"`},
		{args: []string{"replay", "--resume", "--max-steps", "0", "T"}, code: 2, err: `^--max-steps 0: must be at least 1$`},
		{args: []string{"replay", "--resume", "--temperature", "9", "T"}, code: 2, err: `^--temperature 9 is out of range: use a value from 0 to 2$`},
		{args: []string{"replay", "--resume", "--provider", "anthropic", "T"}, code: 2, err: `^the transcript's messages are in the openai shape; it can be resumed only with --provider openai$`},
		{args: []string{"replay", "--resume", "--base-url", "localhost:8080", "--tools-dir", "DIR", "T"}, code: 2, err: `^--base-url "localhost:8080": want an http:// or https:// URL`},
		{args: []string{"replay", "--resume", "--deny", "nope", "--tools-dir", "DIR", "T"}, code: 2, err: `^--deny nope: unknown tool "nope"`},
		{args: []string{"replay", "--resume", "-o", "x.jsonl", "--no-transcript", "T"}, code: 2, err: `^-o and --no-transcript cannot be used together$`},
		{args: []string{"replay", "--resume", "-v", "-q", "T"}, code: 2, err: `^-v and -q cannot be used together$`},
		{args: []string{"replay", "--resume", "--stream", "--json", "T"}, code: 2, err: `^--stream and --json cannot be used together$`},
		{args: []string{"replay", "--resume", "--ignore", "x", "T"}, code: 2, err: `^--resume and --ignore cannot be used together$`},

		// validate
		{args: []string{"validate"}, code: 2, err: `^validate needs at least one FILE \(use - for standard input\)$`},
		{args: []string{"validate", "--input", "xml", "T"}, code: 2, err: `^--input "xml": want agentloop, messages, bedrock, ollama, conversations, request, claude-code, codex, inspect, swe-agent, vcr, har, gemini or gemini-cli$`},
		{args: []string{"validate", "--max-line", "lots", "T"}, code: 2, err: `^--max-line "lots": want a size such as 8MiB, or 0 for no limit$`},
		{args: []string{"validate", "--shape", "gemini", "T"}, code: 2, err: `^--shape "gemini": want openai or anthropic$`},
		{args: []string{"validate", "--strict=2", "T"}, code: 2, err: `^--strict "2": want true or false`},
		{args: []string{"validate", "--allow-pending=x", "T"}, code: 2, err: `^--allow-pending "x": want true or false`},
		{args: []string{"validate", "--json=x", "T"}, code: 2, err: `^--json "x": want true or false`},
		{args: []string{"validate", "--tools-dir", "/nonexistent", "T"}, code: 2, err: `^--tools-dir /nonexistent: no such file or folder$`},
		{args: []string{"validate", "/nonexistent"}, code: 2, err: `^open /nonexistent: no such file or directory$`, noHint: true},
		{args: []string{"validate", "EMPTY"}, code: 2, err: `^.* is a directory; name the transcript files in it$`, noHint: true},
		{args: []string{"validate", "-", "-"}, code: 2, err: `^-: standard input can be read only once$`, noHint: true},

		// tools
		{args: []string{"tools", "x"}, code: 2, err: `^agentloop tools takes no arguments, got "x"$`},
		{args: []string{"tools", "list", "x"}, code: 2, err: `^agentloop tools list takes no arguments, got "x"$`},
		{args: []string{"tools", "list", "--tools-dir", "/nonexistent"}, code: 2, err: `^--tools-dir /nonexistent: no such file or folder$`},
		{args: []string{"tools", "list", "--json=x"}, code: 2, err: `^--json "x": want true or false`},
		{args: []string{"tools", "show"}, code: 2, err: `^agentloop tools show needs 1 argument\(s\) \(NAME\), got 0$`},
		{args: []string{"tools", "show", "--tools-dir", "DIR", "nope"}, code: 2, err: `^unknown tool "nope" \(available: delete, look\)$`, noHint: true},
		{args: []string{"tools", "show", "--provider", "gemini", "--tools-dir", "DIR", "look"}, code: 2, err: `^--provider must be openai, responses or anthropic, got "gemini"$`},
		{args: []string{"tools", "call"}, code: 2, err: `^agentloop tools call needs NAME and optionally ARGS_JSON, got 0 argument\(s\)$`},
		{args: []string{"tools", "call", "a", "b", "c"}, code: 2, err: `^agentloop tools call needs NAME and optionally ARGS_JSON, got 3 argument\(s\)$`},
		{args: []string{"tools", "call", "--tools-dir", "DIR", "delete", "{bad"}, code: 1, err: `^delete: arguments are not valid JSON: invalid character 'b' looking for beginning of object key string$`},
		{args: []string{"tools", "call", "--tools-dir", "DIR", "delete", "[]"}, code: 1, err: `^delete: arguments must be a JSON object, got an array$`},
		{args: []string{"tools", "call", "--tools-dir", "DIR", "--json=x", "look"}, code: 2, err: `^--json "x": want true or false`},
		{args: []string{"tools", "call", "--tools-dir", "/nonexistent", "look"}, code: 2, err: `^--tools-dir /nonexistent: no such file or folder$`},

		// A value of the wrong kind for any command's typed flag is said in
		// words, the flag named as typed, not with Go's parser's error.
		{args: []string{"batch", "in.jsonl", "-d", "EMPTY", "-j", "x"}, code: 2, err: `^-j "x": not a whole number$`},
		{args: []string{"batch", "in.jsonl", "-d", "EMPTY", "--jobs=1.5"}, code: 2, err: `^--jobs "1.5": not a whole number$`},
		{args: []string{"batch", "in.jsonl", "-d", "EMPTY", "--max-cost", "five"}, code: 2, err: `^--max-cost "five": not a number$`},
		{args: []string{"log", "-n", "ten"}, code: 2, err: `^-n "ten": not a whole number$`},
		{args: []string{"replay", "--parallel", "x", "T"}, code: 2, err: `^--parallel "x": not a whole number$`},
		{args: []string{"replay", "--resume", "--timeout", "10", "T"}, code: 2, err: `^--timeout "10": not a duration: write a number and a unit, e\.g\. 30s, 5m or 1h$`},
		{args: []string{"config", "show", "--json=yes please"}, code: 2, err: `^--json "yes please": want true or false \(--json alone means true\)$`},
		{args: []string{"run", "-qv=x", "hi"}, code: 2, err: `^-v "x": want true or false \(-v alone means true\)$`},
		{args: run("-m", "gpt-4o ", "hi"), code: 2, err: `^--model "gpt-4o ": has a space or a line end around the name; write "gpt-4o"$`},
	}
}

// TestBadFlagValues: every bad flag value is refused before anything runs,
// with one line naming the flag and what is wrong, the usage pointer for
// usage errors, and the documented exit status.
func TestBadFlagValues(t *testing.T) {
	_, dir := approvalTools(t)
	tr := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(tr, []byte(`{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}`+"\n"+
		`{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, tc := range badFlagCases() {
		args := make([]string, len(tc.args))
		for i, a := range tc.args {
			a = strings.ReplaceAll(a, "DIR", dir)
			a = strings.ReplaceAll(a, "EMPTY", empty)
			args[i] = strings.Replace(a, "T", tr, 1)
			if a != "T" && !strings.HasPrefix(a, "T/") {
				args[i] = a
			}
		}
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			ios.SetEnv(func(k string) string {
				if k == "PATH" {
					return os.Getenv(k)
				}
				return ""
			})
			code := Execute(context.Background(), ios, args)
			first := ""
			for _, line := range strings.Split(errOut.String(), "\n") {
				if strings.HasPrefix(line, "agentloop: ") {
					first = line
					break
				}
			}
			if code != tc.code || !strings.HasPrefix(first, "agentloop: ") || !regexp.MustCompile(tc.err).MatchString(strings.TrimPrefix(first, "agentloop: ")) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and agentloop: %s", code, errOut, tc.code, tc.err)
			}
			if usage := strings.Contains(errOut.String(), "for usage."); usage != (tc.code == ExitUsage && !tc.noHint) {
				t.Errorf("usage pointer shown: %v, for exit %d:\n%s", usage, code, errOut)
			}
			if strings.Contains(errOut.String(), "strconv.") || strings.Contains(errOut.String(), "invalid argument") {
				t.Errorf("Go's parser's words reach the user:\n%s", errOut)
			}
			if bytes.Contains(errOut.Bytes(), []byte("panic")) || strings.Contains(out.String(), "Usage:") {
				t.Errorf("stdout %q\nstderr %q", out, errOut)
			}
		})
	}
}

// TestPrompts: prompts that are empty, binary, not UTF-8 or too large are
// refused as usage errors saying what and where, before any request; a
// 10 MB prompt on stdin goes to the model whole.
func TestPrompts(t *testing.T) {
	_, dir := approvalTools(t)
	tenMB := strings.Repeat("0123456789abcdef", 10<<20/16)
	tests := []struct {
		name  string
		args  []string
		stdin *string
		code  int
		err   string
	}{
		{name: "no prompt at all", code: 2, err: "no prompt: give it as arguments or on stdin"},
		{name: "empty argument", args: []string{""}, code: 2, err: "no prompt: give it as arguments or on stdin"},
		{name: "blank arguments", args: []string{" ", "\t\n"}, code: 2, err: "no prompt: give it as arguments or on stdin"},
		{name: "empty stdin", stdin: strp(""), code: 2, err: "no prompt: give it as arguments or on stdin"},
		{name: "blank stdin", stdin: strp(" \n\r\n\t"), code: 2, err: "no prompt: give it as arguments or on stdin"},
		{name: "NUL on stdin", stdin: strp("abc\x00def"), code: 2, err: "stdin is not text: NUL byte at offset 3"},
		{name: "binary on stdin", stdin: strp("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), code: 2, err: "stdin is not text: NUL byte at offset 8"},
		{name: "not UTF-8 on stdin", stdin: strp("caf\xe9 au lait"), code: 2, err: "stdin is not text: it is not valid UTF-8"},
		{name: "not UTF-8 in an argument", args: []string{"ok", "caf\xe9"}, code: 2, err: "the prompt is not text: argument 2 is not valid UTF-8"},
		{name: "more than 16 MiB on stdin", stdin: strp(strings.Repeat("x", 16<<20+1)), code: 2, err: "stdin holds more than 16 MiB: too large for a prompt"},
		{name: "10 MB on stdin", stdin: &tenMB, code: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("answered")}}, "")
			defer srv.Close()
			ios, in, out, errOut := iostreams.Test()
			ios.SetEnv(func(k string) string {
				if k == "PATH" {
					return os.Getenv(k)
				}
				return ""
			})
			if tt.stdin != nil {
				in.WriteString(*tt.stdin)
				ios.SetStdinData(true)
			}
			args := append([]string{"run", "--tools-dir", dir, "--base-url", srv.BaseURL(), "--no-transcript"}, tt.args...)
			code := Execute(context.Background(), ios, args)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, errOut)
			}
			reqs := srv.Requests()
			if tt.code != 0 {
				want := "agentloop: " + tt.err + "\nRun 'agentloop run --help' for usage.\n"
				if errOut.String() != want || len(reqs) != 0 {
					t.Errorf("stderr %q, want %q; %d requests", errOut, want, len(reqs))
				}
				return
			}
			if out.String() != "answered\n" || len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(tenMB)) {
				t.Errorf("stdout %q, %d requests, stderr %s", out, len(reqs), errOut)
			}
		})
	}
}

func strp(s string) *string { return &s }
