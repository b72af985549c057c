package cmd

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
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

// plainOneLineText is oneLineText as defined: fold the whole text, make it
// safe, then cut it.
func plainOneLineText(s string, max int) string {
	return truncate(safeText(strings.Join(strings.Fields(s), " ")), max)
}

func TestOneLineText(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"plain text", 20, "plain text"},
		{"  lead and trail  ", 20, "lead and trail"},
		{"a\tb\n\nc\u00a0d\u2003e", 20, "a b c d e"},
		{"a  b", 20, "a b"},
		{"cut here please", 8, "cut her…"},
		{"cut\there\tplease", 8, "cut her…"},
		{"\x1b[31mred", 20, `\u001b[31mred`},
		{"\x1b\x1b\x1b\x1b abc", 8, `\u001b\…`},
		{"bad \xff byte", 20, `bad \xff byte`},
		{"bidi \u202eevil", 20, `bidi \u202eevil`},
		{"東京 で 天気", 4, "東京 …"},
		{"", 10, ""},
		{"   ", 10, ""},
		{"no limit   at all", 0, "no limit at all"},
	}
	for _, tt := range tests {
		if got := oneLineText(tt.in, tt.max); got != tt.want {
			t.Errorf("oneLineText(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
		if got := plainOneLineText(tt.in, tt.max); got != tt.want {
			t.Errorf("the plain definition gives %q for %q, want %q", got, tt.in, tt.want)
		}
	}
	// Random text of the pieces that matter: blanks of every kind, escapes,
	// wide and invalid runes, at every limit.
	pieces := []string{"a", "bc", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\x1b", "\x7f", "\xff", "\xe6\x9d", "東", "😀", "\u202e", "\ufffd", "…"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, max := b.String(), rng.IntN(14)
		if got, want := oneLineText(s, max), plainOneLineText(s, max); got != want {
			t.Fatalf("oneLineText(%q, %d) = %q, want %q", s, max, got, want)
		}
	}
}

// plainTruncate is truncate as defined: the runes of s, cut.
func plainTruncate(s string, max int) string {
	if max <= 1 || utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max-1]) + "…"
}

func TestTruncate(t *testing.T) {
	for _, s := range []string{"", "a", "ab", "abc", "東京で", "a\xffbc", "\xff\xfe\xfd", "ab\xff", "😀😀😀😀"} {
		for max := range 6 {
			if got, want := truncate(s, max), plainTruncate(s, max); got != want {
				t.Errorf("truncate(%q, %d) = %q, want %q", s, max, got, want)
			}
		}
	}
}

func TestTruncateWidth(t *testing.T) {
	tests := []struct {
		in   string
		cols int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"東京都", 6, "東京都"},
		{"東京都庁", 6, "東京…"},
		{"a東京都庁", 6, "a東京…"},
		{"ab東京都庁", 6, "ab東…"},
		{"e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301", 6, "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301"},
		{"😀😀😀", 5, "😀😀…"},
		{"😀😀😀", 6, "😀😀😀"},
		{"a\xffbcdefgh", 4, "a\ufffdb…"},
		{"abc", 1, "abc"},
	}
	for _, tt := range tests {
		if got := truncateWidth(tt.in, tt.cols); got != tt.want {
			t.Errorf("truncateWidth(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
		}
	}
}

// The status line of a run on a terminal fits its width when a tool's
// name holds wide characters: a line that wraps is not redrawn in place
// by \r, and its first half stays on the screen.
func TestStatusLineFitsWideNames(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetTTY(false, false, true)
	ios.SetWidth(30)
	p := newProgress(ios, false, true) // quiet: no ticker; drawn by hand
	p.live, p.step = true, 3
	p.running["call_1"] = "天気予報を調べる道具"
	p.mu.Lock()
	p.drawLocked()
	p.mu.Unlock()
	line := strings.TrimPrefix(errOut.String(), "\r\x1b[K")
	if w := textWidth(line); w > 29 || !strings.HasSuffix(line, "…") {
		t.Errorf("status line %q takes %d columns of 30", line, w)
	}
	if want := "step 3 · running 天気予報を…"; line != want {
		t.Errorf("status line %q, want %q", line, want)
	}
}

// Widths are a terminal's, counted by grapheme cluster: an emoji sequence
// joined by zero-width joiners, a flag and a letter with its combining
// marks are each one character, cut whole or kept whole.
func TestTextWidthGraphemes(t *testing.T) {
	const (
		family = "\U0001F468\u200D\U0001F469\u200D\U0001F467" // man, woman, girl joined
		flag   = "\U0001F1EF\U0001F1F5"                       // JP regional indicators
		thumbs = "\U0001F44D\U0001F3FD"                       // with a skin tone
		eAcute = "e\u0301"
		zwsp   = "\u200b"
	)
	widths := []struct {
		in   string
		want int
	}{
		{"abc", 3},
		{"東京", 4},
		{"ｱｲｳ", 3}, // halfwidth katakana
		{"한국어", 6},
		{eAcute + eAcute, 2},
		{"a\u0323\u0307", 1}, // two combining marks on one letter
		{zwsp, 0},
		{family, 2},
		{flag, 2},
		{thumbs, 2},
		{"😀" + family + "x", 5},
	}
	for _, tt := range widths {
		if got := textWidth(tt.in); got != tt.want {
			t.Errorf("textWidth(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	cuts := []struct {
		in   string
		cols int
		want string
	}{
		{family + family + family, 5, family + family + "…"},
		{family + family + family, 4, family + "…"},
		{"a" + family + family, 4, "a" + family + "…"},
		{"a" + family + family, 3, "a…"},
		{flag + flag + flag, 5, flag + flag + "…"},
		{thumbs + thumbs + thumbs, 6, thumbs + thumbs + thumbs},
		{"a\u0323\u0307bcdef", 4, "a\u0323\u0307bc…"},
		{"東" + eAcute + "京都", 4, "東" + eAcute + "…"},
	}
	for _, tt := range cuts {
		got := truncateWidth(tt.in, tt.cols)
		if got != tt.want {
			t.Errorf("truncateWidth(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
		}
		if w := textWidth(got); w > tt.cols {
			t.Errorf("truncateWidth(%q, %d) takes %d columns", tt.in, tt.cols, w)
		}
	}
}
