package cmd

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Pieces of JSON string bodies that are hard to print piece by piece:
// escapes a terminal would obey, multi-byte characters, surrogate pairs
// (valid, lone, reversed), bytes that are not UTF-8, tabs, newlines.
var hardJSON = []string{
	`word `, `words and more `, `\n`, `\n\n`, `\t`, `\"`, `\\`, `\u0041`, `\u00e9`, `\u20ac`,
	`\ud83d\ude00`, `\ud800`, `\udc00\ud800`, `\u001b[31m`, `\u001b]52;c;eA==\u0007`, `\u202e`,
	"é", "€", "😀", "日本語", "\xff", "\xe2\x82", "\u0085", `\r`,
}

func hardBody(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(hardJSON[r.IntN(len(hardJSON))])
	}
	return b.String()
}

const recHead = `{"type":"message","seq":1,"step":1,"time":"2026-01-01T00:00:00Z",`

// showFiles are transcripts of each API's shape whose texts (an answer,
// a text between calls, tool results, an error result, a user message,
// a reasoning item's content) are body.
func showFiles(body string) map[string]string {
	header := func(p string) string {
		return `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"` + p + `","model":"m"}` + "\n"
	}
	msg := func(m string) string { return recHead + `"message":` + m + "}\n" }
	end := `{"type":"end","time":"2026-01-01T00:00:00Z","reason":"stop","steps":3,"usage":{"input_tokens":1,"output_tokens":2}}` + "\n"
	return map[string]string{
		"openai": header("openai") +
			msg(`{"role":"user","content":"`+body+`"}`) +
			msg(`{"role":"assistant","content":"`+body+`","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{}"}}]}`) +
			msg(`{"role":"tool","tool_call_id":"c1","content":"`+body+`"}`) +
			msg(`{"role":"tool","tool_call_id":"c2","content":"{\"error\":\"`+body+`\"}"}`) +
			msg(`{"role":"assistant","content":[{"type":"text","text":"`+body+`"},{"type":"text","text":"`+body+`"}]}`) + end,
		"anthropic": header("anthropic") +
			msg(`{"role":"user","content":[{"type":"text","text":"`+body+`"}]}`) +
			msg(`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"`+body+`"},{"type":"tool_use","id":"t1","name":"f","input":{}},{"type":"tool_use","id":"t2","name":"g","input":{}}]}`) +
			msg(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+body+`"},{"type":"tool_result","tool_use_id":"t2","is_error":true,"content":[{"type":"text","text":"`+body+`"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}`) +
			msg(`{"role":"assistant","content":[{"type":"text","text":"`+body+`"},{"type":"text","text":"`+body+`"}]}`) + end,
		"responses": header("responses") +
			msg(`{"role":"user","content":"`+body+`"}`) +
			msg(`{"type":"reasoning","id":"r","summary":[],"content":[{"type":"reasoning_text","text":"`+body+`"}]}`) +
			msg(`{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}`) +
			msg(`{"type":"function_call_output","call_id":"c1","output":"`+body+`"}`) +
			msg(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`+body+`"}]}`) +
			// A call that finished but was not sent: its result record.
			msg(`{"type":"function_call","call_id":"c2","name":"g","arguments":"{}"}`) +
			`{"type":"result","call_id":"c2","content":"` + body + `"}` + "\n",
	}
}

// A text left in the file and read back as it is printed shows exactly as
// the same text held whole: piped and on a terminal, on each side of the
// length where texts are left in the file, whatever falls where the file
// is read a piece at a time.
func TestReplayShowStreamedAsInMemory(t *testing.T) {
	t.Parallel()
	const limit = 1 << 10
	r := rand.New(rand.NewPCG(7, 11))
	var bodies []string
	for _, n := range []int{0, 10, limit - 40, limit - 1, limit, limit + 1, limit + 40, 5000, 70 << 10, 300 << 10} {
		bodies = append(bodies, hardBody(r, n))
	}
	// Lines that fill the excerpt exactly, long lines, trailing newlines.
	bodies = append(bodies,
		strings.Repeat("a", 4096)+`\n`+strings.Repeat("b", 2000),
		strings.Repeat("x", 3000)+`\n`+strings.Repeat("y", 1095)+`\nzz\n\n`,
		strings.Repeat(`line\n`, 3000),
		strings.Repeat(`\n`, 2000)+"end"+strings.Repeat(`\n`, 2000),
		strings.Repeat(`\n`, 3000),
		strings.Repeat("😀", 1200)+`\n`,
	)
	dir := t.TempDir()
	for bi, body := range bodies {
		for shape, content := range showFiles(body) {
			path := filepath.Join(dir, shape+".jsonl")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, tty := range []bool{false, true} {
				show := func(limit int) (string, int) {
					ios, _, out, errOut := Test()
					ios.SetTTY(false, tty, tty)
					ios.SetColorEnabled(tty)
					ios.SetWidth(37)
					long, err := replayShow(&ReplayOptions{IO: ios, File: path}, limit)
					if err != nil {
						t.Fatalf("%v\n%s", err, errOut)
					}
					return out.String(), long.Texts()
				}
				whole, _ := show(1 << 30)
				streamed, taken := show(limit)
				if len(body) > limit+40 && taken == 0 {
					t.Fatalf("body %d (%d bytes), %s: no text was left in the file", bi, len(body), shape)
				}
				if streamed != whole {
					t.Fatalf("body %d (%d bytes), %s, terminal %v: streamed output differs\n--- held whole\n%.3000s\n--- streamed\n%.3000s", bi, len(body), shape, tty, whole, streamed)
				}
			}
		}
	}
}

// Every recorded transcript in the repository shows the same with each of
// its texts over 16 bytes left in the file as held whole.
func TestReplayShowStreamedAsInMemoryCorpus(t *testing.T) {
	t.Parallel()
	var files []string
	for _, pattern := range []string{"../testdata/*/*.jsonl", "../testdata/*/*/*.jsonl", "../pkg/*/testdata/*.jsonl", "../pkg/*/testdata/*/*.jsonl"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("only %d transcripts found", len(files))
	}
	taken := 0
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, tty := range []bool{false, true} {
				show := func(limit int) (string, int, error) {
					ios, _, out, _ := Test()
					ios.SetTTY(false, tty, tty)
					ios.SetColorEnabled(tty)
					ios.SetWidth(61)
					long, err := replayShow(&ReplayOptions{IO: ios, File: path}, limit)
					return out.String(), long.Texts(), err
				}
				whole, _, errWhole := show(1 << 30)
				streamed, n, errStreamed := show(16)
				taken += n
				if streamed != whole || (errWhole == nil) != (errStreamed == nil) {
					t.Fatalf("terminal %v: streamed output differs (errors %v, %v)\n--- held whole\n%.3000s\n--- streamed\n%.3000s", tty, errWhole, errStreamed, whole, streamed)
				}
			}
		})
	}
	if taken == 0 {
		t.Fatal("no text was left in a file")
	}
}

// A torn or broken line whose text is left in the file is reported as
// the same line held whole: the same warning, the same error, the same
// output before it.
func TestReplayShowStreamedBrokenLines(t *testing.T) {
	long := strings.Repeat("abc ", 500)
	h := `{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}` + "\n"
	u := recHead + `"message":{"role":"user","content":"hi"}}` + "\n"
	for name, content := range map[string]string{
		"torn":      h + u + recHead + `"message":{"role":"assistant","content":"` + long,
		"tornclose": h + u + recHead + `"message":{"role":"assistant","content":"` + long + `"}`,
		"ctrl":      h + u + recHead + `"message":{"role":"assistant","content":"` + long + "\x01" + long + `"}}` + "\n" + u,
		"newline":   h + u + recHead + `"message":{"role":"assistant","content":"` + long + "\n" + u,
		"badesc":    h + u + recHead + `"message":{"role":"assistant","content":"` + long + `\q"}}` + "\n" + u,
		"bare":      `{"role":"user","content":"` + long + `"}` + "\n" + `{"role":"assistant","content":"` + long + `"}` + "\n",
		"pretty":    "{\n  \"role\": \"user\",\n  \"content\": \"" + long + "\"\n}\n",
		"bom":       "\xef\xbb\xbf" + h + u + recHead + `"message":{"role":"assistant","content":"` + long + `"}}` + "\n",
	} {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		show := func(limit int) (string, string, int, error) {
			ios, _, out, errOut := Test()
			long, err := replayShow(&ReplayOptions{IO: ios, File: path}, limit)
			return out.String(), errOut.String(), long.Texts(), err
		}
		a, ae, _, aerr := show(1 << 30)
		b, be, n, berr := show(100)
		if n == 0 {
			t.Errorf("%s: no text was left in the file", name)
		}
		if a != b || ae != be || (aerr == nil) != (berr == nil) || (aerr != nil && aerr.Error() != berr.Error()) {
			t.Errorf("%s differs: errors %v, %v\n--- held whole\n%s%s\n--- streamed\n%s%s", name, aerr, berr, a, ae, b, be)
		}
	}
}
