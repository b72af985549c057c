package cmd

import (
	"bytes"
	"strings"
	"testing"
)

func TestSafeText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\twith a tab\nand lines", "plain text\twith a tab\nand lines"},
		{"clip \x1b]52;c;ZXZpbA==\x07 board", `clip \u001b]52;c;ZXZpbA==\u0007 board`},
		{"title \x1b]0;pwned\x1b\\ clear \x1b[2J\x1b[H", `title \u001b]0;pwned\u001b\ clear \u001b[2J\u001b[H`},
		{"colour \x1b[31mred\x1b[0m", `colour \u001b[31mred\u001b[0m`},
		{"C1 CSI \u009b2J", `C1 CSI \u009b2J`},
		{"bidi \u202eoof\u2066", `bidi \u202eoof\u2066`},
		{"carriage\rreturn, backspace\b, delete\x7f", `carriage\u000dreturn, backspace\u0008, delete\u007f`},
		{"not UTF-8 \xff\xfe", `not UTF-8 \xff\xfe`},
		{"é, 中文, emoji 😀", "é, 中文, emoji 😀"},
	}
	for _, tt := range tests {
		if got := safeText(tt.in); got != tt.want {
			t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// One line: newlines and tabs escaped too, and a cap with a count.
	if got := displayText("a\nb\tc\x1b", 100); got != `a\u000ab\u0009c\u001b` {
		t.Errorf("displayText = %q", got)
	}
	if got := displayText("héllo world", 3); got != "hé… (9 more bytes not shown)" {
		t.Errorf("displayText capped = %q", got)
	}
}

// A streamed text is escaped however it is cut into writes: a character
// split between two writes is held until it is whole.
func TestSafeWriter(t *testing.T) {
	text := "a é 中 😀 \x1b[2J z"
	for cut := 0; cut <= len(text); cut++ {
		var out bytes.Buffer
		w := &safeWriter{w: &out}
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Flush()
		if got := out.String(); got != safeText(text) {
			t.Errorf("cut at %d: %q", cut, got)
		}
	}
	var out bytes.Buffer
	w := &safeWriter{w: &out}
	w.Write([]byte("end \xe4\xb8")) // a character never completed
	w.Flush()
	if out.String() != `end \xe4\xb8` {
		t.Errorf("incomplete character at the end: %q", out.String())
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
