package cmd

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file is the one place that decides what of a text from a model, a
// tool, a server or a file may reach a terminal as it is. A control
// character (an escape sequence could move the cursor, retitle the window,
// write the clipboard with OSC 52 or hide what follows), a bidirectional
// override (it could reorder what a person reads) and invalid UTF-8 are
// shown as escapes (\u001b, \x9b) instead of sent; colour sequences are
// shown the same way. Everything else passes byte for byte.

// safeText makes text safe for a terminal, keeping newlines and tabs.
func safeText(s string) string {
	if isSafe(s, true) {
		return s
	}
	var b strings.Builder
	writeSafe(&b, s, true, len(s))
	return b.String()
}

// displayText makes text safe for one line of a terminal (newlines and tabs
// escaped too) and shows at most max bytes of it, saying how many more
// there were.
func displayText(s string, max int) string {
	if len(s) <= max && isSafe(s, false) {
		return s
	}
	var b strings.Builder
	n := writeSafe(&b, s, false, max)
	if n < len(s) {
		fmt.Fprintf(&b, "… (%d more bytes not shown)", len(s)-n)
	}
	return b.String()
}

// oneLineText folds text onto one line (each run of white space one
// space, none at the ends), makes it safe to print, and cuts it at max
// runes. A long text costs what its first max runes do.
func oneLineText(s string, max int) string {
	return truncate(safeText(foldSpace(s, max)), max)
}

// foldSpace is strings.Join(strings.Fields(s), " ") cut after limit+1
// runes when limit > 1: safeText only lengthens text, so truncate cuts
// that much of it where it would cut the whole. Text already folded is
// returned as it is.
func foldSpace(s string, limit int) string {
	if limit <= 1 {
		limit = len(s)
	}
	var b []byte
	folded := false // b holds the text so far; else it is s[:end]
	end, runes, space := 0, 0, false
	for i := 0; i < len(s) && runes <= limit; {
		r, size := rune(s[i]), 1
		var blank bool
		if r < utf8.RuneSelf {
			blank = r == ' ' || '\t' <= r && r <= '\r' // unicode.IsSpace's ASCII
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			blank = unicode.IsSpace(r)
		}
		i += size
		if blank {
			if !folded && (r != ' ' || space || runes == 0) {
				folded, b = true, append(b, s[:end]...)
			}
			space = runes > 0
			continue
		}
		if space {
			runes++
			space = false
			if folded {
				b = append(b, ' ')
			}
		}
		if folded {
			b = append(b, s[i-size:i]...)
		}
		runes++
		end = i
	}
	if !folded {
		return s[:end]
	}
	return string(b)
}

// passes reports whether r may reach a terminal as it is.
func passes(r rune, keepLayout bool) bool {
	if r == '\n' || r == '\t' {
		return keepLayout
	}
	return r != utf8.RuneError && unicode.IsGraphic(r) && !unicode.Is(unicode.Bidi_Control, r)
}

func isSafe(s string, keepLayout bool) bool {
	for _, r := range s {
		if ' ' <= r && r < 0x7f {
			continue // printable ASCII, most text
		}
		if !passes(r, keepLayout) {
			return false
		}
	}
	return true
}

// writeSafe writes the escaped form of s to b, stopping before a character
// that would take it past max bytes of s; it returns the bytes of s used.
func writeSafe(b *strings.Builder, s string, keepLayout bool, max int) int {
	n := 0
	for n < len(s) {
		form, size := shown(s[n:], keepLayout)
		if n+size > max {
			break
		}
		b.WriteString(form)
		n += size
	}
	return n
}

// shown is how the character at the start of s reaches a terminal: itself,
// or its escape (\u001b; \xff for a byte that is not UTF-8); size is its
// length in s.
func shown(s string, keepLayout bool) (form string, size int) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf("\\x%02x", s[0]), 1
	case passes(r, keepLayout):
		return s[:size], size
	}
	return fmt.Sprintf("\\u%04x", r), size
}

// safeWriter passes what is written through safeText, for text that
// arrives in pieces (a streamed answer, a diff). A character split
// between two writes is held back until it is whole.
type safeWriter struct {
	w       io.Writer
	partial []byte
}

func (s *safeWriter) Write(p []byte) (int, error) {
	data := append(s.partial, p...)
	// Hold back the start of a character that the next write completes.
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	s.partial = append([]byte(nil), data[cut:]...)
	if _, err := io.WriteString(s.w, safeText(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a character left incomplete at the end, escaped.
func (s *safeWriter) Flush() error {
	if len(s.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(s.w, safeText(string(s.partial)))
	s.partial = nil
	return err
}

// jsonOut is where JSON Lines for stdout go: on a terminal through
// safeWriter, since JSON leaves C1 controls and bidirectional overrides
// as they are (the \u escapes it gets instead are the same JSON); piped,
// byte for byte. Each line ends whole, so nothing is left to flush.
func jsonOut(ios *IOStreams) io.Writer {
	if ios.IsStdoutTTY() {
		return &safeWriter{w: ios.Out}
	}
	return ios.Out
}

// terminalText is text for stdout: made safe when stdout is a terminal,
// byte for byte when it is piped or redirected.
func terminalText(ios *IOStreams, s string) string {
	if ios.IsStdoutTTY() {
		return safeText(s)
	}
	return s
}

// truncateWidth cuts s to at most cols columns of a terminal, the last one
// an ellipsis, when it is wider: a wide character (Chinese, Japanese,
// Korean, most emoji) takes two columns, a combining mark none. A line
// cut by runes alone still wrapped, and a status line redrawn with \r
// then left its first half on the screen.
func truncateWidth(s string, cols int) string {
	if cols <= 1 {
		return s
	}
	w, cut := 0, -1
	for i, r := range s {
		rw := runeWidth(r)
		if cut < 0 && w+rw > cols-1 {
			cut = i
		}
		if w += rw; w > cols {
			if !utf8.ValidString(s[:cut]) {
				return string([]rune(s[:cut])) + "…"
			}
			return s[:cut] + "…"
		}
	}
	return s
}

// textWidth is the number of terminal columns s takes.
func textWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// runeWidth is the number of columns a terminal gives r: none for a
// combining mark, two for a wide character, else one.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me), r == 0x200b:
		return 0
	}
	for _, rg := range wideRunes {
		if r < rg[0] {
			break
		}
		if r <= rg[1] {
			return 2
		}
	}
	return 1
}

// wideRunes are the ranges of characters of East Asian width "wide" or
// "fullwidth" (Unicode Annex 11) that text commonly holds, in order.
var wideRunes = [][2]rune{
	{0x1100, 0x115f}, {0x231a, 0x231b}, {0x2329, 0x232a}, {0x23e9, 0x23ec}, {0x23f0, 0x23f0},
	{0x23f3, 0x23f3}, {0x25fd, 0x25fe}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267f, 0x267f},
	{0x2693, 0x2693}, {0x26a1, 0x26a1}, {0x26aa, 0x26ab}, {0x26bd, 0x26be}, {0x26c4, 0x26c5},
	{0x26ce, 0x26ce}, {0x26d4, 0x26d4}, {0x26ea, 0x26ea}, {0x26f2, 0x26f3}, {0x26f5, 0x26f5},
	{0x26fa, 0x26fa}, {0x26fd, 0x26fd}, {0x2705, 0x2705}, {0x270a, 0x270b}, {0x2728, 0x2728},
	{0x274c, 0x274c}, {0x274e, 0x274e}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27b0, 0x27b0}, {0x27bf, 0x27bf}, {0x2b1b, 0x2b1c}, {0x2b50, 0x2b50}, {0x2b55, 0x2b55},
	{0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff}, {0xa000, 0xa4cf},
	{0xa960, 0xa97f}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe10, 0xfe19}, {0xfe30, 0xfe6f},
	{0xff00, 0xff60}, {0xffe0, 0xffe6}, {0x16fe0, 0x16fe4}, {0x17000, 0x18cff}, {0x1b000, 0x1b2ff},
	{0x1f004, 0x1f004}, {0x1f0cf, 0x1f0cf}, {0x1f18e, 0x1f18e}, {0x1f191, 0x1f19a}, {0x1f200, 0x1f2ff},
	{0x1f300, 0x1f320}, {0x1f32d, 0x1f335}, {0x1f337, 0x1f37c}, {0x1f37e, 0x1f393}, {0x1f3a0, 0x1f3ca},
	{0x1f3cf, 0x1f3d3}, {0x1f3e0, 0x1f3f0}, {0x1f3f4, 0x1f3f4}, {0x1f3f8, 0x1f43e}, {0x1f440, 0x1f440},
	{0x1f442, 0x1f4fc}, {0x1f4ff, 0x1f53d}, {0x1f54b, 0x1f54e}, {0x1f550, 0x1f567}, {0x1f57a, 0x1f57a},
	{0x1f595, 0x1f596}, {0x1f5a4, 0x1f5a4}, {0x1f5fb, 0x1f64f}, {0x1f680, 0x1f6c5}, {0x1f6cc, 0x1f6cc},
	{0x1f6d0, 0x1f6d2}, {0x1f6d5, 0x1f6d7}, {0x1f6dc, 0x1f6df}, {0x1f6eb, 0x1f6ec}, {0x1f6f4, 0x1f6fc},
	{0x1f7e0, 0x1f7eb}, {0x1f7f0, 0x1f7f0}, {0x1f90c, 0x1f93a}, {0x1f93c, 0x1f945}, {0x1f947, 0x1f9ff},
	{0x1fa70, 0x1faff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

// truncate cuts s to max runes, the last one an ellipsis, when it is
// longer; invalid UTF-8 in what is kept becomes U+FFFD.
func truncate(s string, max int) string {
	if max <= 1 {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			if !utf8.ValidString(s[:i]) {
				return string([]rune(s[:i])) + "…"
			}
			return s[:i] + "…"
		}
		n++
	}
	return s
}
