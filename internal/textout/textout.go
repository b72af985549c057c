// Package textout makes what a tool returns into the text a model reads:
// valid UTF-8, NULs made visible, cut at a cap with a marker that says how
// much was shown. Script tools and MCP tools follow the same rules.
package textout

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Capped is the output a tool produced as the model sees it: kept holds its
// first bytes, total counts them all. When bytes were dropped the text ends
// with a marker saying how many were shown, and truncated is set.
func Capped(kept []byte, total int64) (text string, truncated bool) {
	if total <= int64(len(kept)) {
		return Clean(kept), false
	}
	kept = CutAtRune(kept)
	s := Clean(kept)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + fmt.Sprintf("[output truncated: %d of %d bytes shown]", len(kept), total), true
}

// CapString is Capped for text held whole: its first max bytes are kept.
func CapString(s string, max int64) (string, bool) {
	b := []byte(s)
	if int64(len(b)) > max {
		b = b[:max]
	}
	return Capped(b, int64(len(s)))
}

// CutAtRune drops a multi-byte character that a cap split in two, so the
// cut does not show as a replacement character.
func CutAtRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// Clean makes tool output safe to put in a JSON string a model reads:
// invalid UTF-8 becomes U+FFFD, and NUL, which some APIs reject and every
// terminal hides, becomes the visible U+2400 (␀).
func Clean(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\u2400")
}
