package textview

import (
	"bytes"
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
					out, res, err := show(path, tty, 37, limit)
					if err != nil {
						t.Fatal(err)
					}
					return out, res.Long.Texts()
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
	for _, pattern := range []string{"../../testdata/*/*.jsonl", "../../testdata/*/*/*.jsonl", "../*/testdata/*.jsonl", "../*/testdata/*/*.jsonl"} {
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
					out, res, err := show(path, tty, 61, limit)
					return out, res.Long.Texts(), err
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
			out, res, err := show(path, false, 0, limit)
			torn := ""
			if res.Torn != nil {
				torn = res.Torn.Error()
			}
			return out, torn, res.Long.Texts(), err
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
func TestPrinterWraps(t *testing.T) {
	tests := []struct {
		name    string
		width   int
		indent  int
		ours    string
		data    string
		want    string
		linecap int
	}{
		{"piped: whole", 0, 2, "", strings.Repeat("word ", 30), "  " + strings.Repeat("word ", 30) + "\n", 0},
		{"at a space", 20, 2, "", "one two three four five six", "  one two three four\n  five six\n", 20},
		{"a word longer than a row", 12, 2, "", "abcdefghijklmnopqrstuvwxyz end", "  abcdefghij\n  klmnopqrst\n  uvwxyz end\n", 12},
		{"escapes count, colours do not", 14, 0, "\x1b[1mhead\x1b[0m ", "x\x1bq", "\x1b[1mhead\x1b[0m x\\u001bq\n", 14},
		{"tabs to the next stop", 20, 0, "", "a\tb\tc", "a       b       c\n", 20},
		{"escaped to fit", 10, 0, "", "\x1b\x1b\x1b", "\\u001b\n\\u001b\n\\u001b\n", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			p := &printer{w: &out, st: showStyle{width: tt.width}}
			p.emit(tt.indent, tt.ours, tt.data)
			if out.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", out.String(), tt.want)
			}
			if tt.linecap > 0 {
				for _, l := range strings.Split(strings.TrimSuffix(stripANSI(out.String()), "\n"), "\n") {
					if n := len([]rune(l)); n > tt.linecap {
						t.Errorf("a row of %d columns: %q", n, l)
					}
				}
			}
		})
	}
	// A line of ours goes on indented further when it wraps.
	var out bytes.Buffer
	p := &printer{w: &out, st: showStyle{width: 16}}
	p.line(2, "→ name id {\"a\":\"bbbb\"}")
	if want := "  → name id\n    {\"a\":\"bbbb\"}\n"; out.String() != want {
		t.Errorf("line: %q, want %q", out.String(), want)
	}
}

// A folded result says how much is left: lines, or bytes of a line cut.
func TestPrinterExcerpt(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"1\n2\n3\n4\n", "    1\n    2\n    3\n    … 1 more line\n"},
		{strings.Repeat("x", 30), "    " + strings.Repeat("x", 20) + "\n    … 10 B more\n"},
		{strings.Repeat("x", 30) + "\n2\n3", "    " + strings.Repeat("x", 20) + "\n    … 10 B more, 2 more lines\n"},
		{"", "    (empty)\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := &printer{w: &out}
		p.excerpt(4, tt.in, 3, 20)
		if out.String() != tt.want {
			t.Errorf("excerpt(%q) = %q, want %q", tt.in, out.String(), tt.want)
		}
	}
}
