package termtext

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
		if got := Safe(tt.in); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// One line: newlines and tabs escaped too, and a cap with a count.
	if got := Display("a\nb\tc\x1b", 100); got != `a\u000ab\u0009c\u001b` {
		t.Errorf("Display = %q", got)
	}
	if got := Display("héllo world", 3); got != "hé… (9 more bytes not shown)" {
		t.Errorf("Display capped = %q", got)
	}
}

// A streamed text is escaped however it is cut into writes: a character
// split between two writes is held until it is whole.
func TestSafeWriter(t *testing.T) {
	text := "a é 中 😀 \x1b[2J z"
	for cut := 0; cut <= len(text); cut++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Flush()
		if got := out.String(); got != Safe(text) {
			t.Errorf("cut at %d: %q", cut, got)
		}
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("end \xe4\xb8")) // a character never completed
	w.Flush()
	if out.String() != `end \xe4\xb8` {
		t.Errorf("incomplete character at the end: %q", out.String())
	}
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
		if got := OneLine(tt.in, tt.max); got != tt.want {
			t.Errorf("OneLine(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
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
		if got, want := OneLine(s, max), plainOneLineText(s, max); got != want {
			t.Fatalf("OneLine(%q, %d) = %q, want %q", s, max, got, want)
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
			if got, want := Truncate(s, max), plainTruncate(s, max); got != want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", s, max, got, want)
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
		if got := TruncateWidth(tt.in, tt.cols); got != tt.want {
			t.Errorf("TruncateWidth(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
		}
	}
}
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
		if got := Width(tt.in); got != tt.want {
			t.Errorf("Width(%q) = %d, want %d", tt.in, got, tt.want)
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
		got := TruncateWidth(tt.in, tt.cols)
		if got != tt.want {
			t.Errorf("TruncateWidth(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
		}
		if w := Width(got); w > tt.cols {
			t.Errorf("TruncateWidth(%q, %d) takes %d columns", tt.in, tt.cols, w)
		}
	}
}

// plainOneLineText is OneLine as defined: fold the whole text, make it
// safe, then cut it.
func plainOneLineText(s string, max int) string {
	return Truncate(Safe(strings.Join(strings.Fields(s), " ")), max)
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven char", 10, "eleven ch…"},
		{"日本語のテキスト", 5, "日本語の…"},
		{"too narrow to cut", 3, "too narrow to cut"},
	} {
		if got := Fit(tc.s, tc.width); got != tc.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
}
