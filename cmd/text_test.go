package cmd

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

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
