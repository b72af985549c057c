// Package termtext decides what of a text from a model, a tool, a server
// or a file may reach a terminal as it is, and how many columns it takes.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// This package is the one place that decides what of a text from a model,
// a tool, a server or a file may reach a terminal as it is. A control
// character (an escape sequence could move the cursor, retitle the window,
// write the clipboard with OSC 52 or hide what follows), a bidirectional
// override (it could reorder what a person reads) and invalid UTF-8 are
// shown as escapes (\u001b, \x9b) instead of sent; colour sequences are
// shown the same way. Everything else passes byte for byte.

// Safe makes text safe for a terminal, keeping newlines and tabs.
func Safe(s string) string {
	if isSafe(s, true) {
		return s
	}
	var b strings.Builder
	writeSafe(&b, s, true, len(s))
	return b.String()
}

// Display makes text safe for one line of a terminal (newlines and tabs
// escaped too) and shows at most max bytes of it, saying how many more
// there were.
func Display(s string, max int) string {
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

// OneLine folds text onto one line (each run of white space one
// space, none at the ends), makes it safe to print, and cuts it at max
// runes. A long text costs what its first max runes do.
func OneLine(s string, max int) string {
	return Truncate(Safe(foldSpace(s, max)), max)
}

// foldSpace is strings.Join(strings.Fields(s), " ") cut after limit+1
// runes when limit > 1: Safe only lengthens text, so Truncate cuts
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
		form, size := Shown(s[n:], keepLayout)
		if n+size > max {
			break
		}
		b.WriteString(form)
		n += size
	}
	return n
}

// Shown is how the character at the start of s reaches a terminal: itself,
// or its escape (\u001b; \xff for a byte that is not UTF-8); size is its
// length in s.
func Shown(s string, keepLayout bool) (form string, size int) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return fmt.Sprintf("\\x%02x", s[0]), 1
	case passes(r, keepLayout):
		return s[:size], size
	}
	return fmt.Sprintf("\\u%04x", r), size
}

// Writer passes what is written through Safe, for text that
// arrives in pieces (a streamed answer, a diff). A character split
// between two writes is held back until it is whole.
type Writer struct {
	w       io.Writer
	partial []byte
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

func (s *Writer) Write(p []byte) (int, error) {
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
	if _, err := io.WriteString(s.w, Safe(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a character left incomplete at the end, escaped.
func (s *Writer) Flush() error {
	if len(s.partial) == 0 {
		return nil
	}
	_, err := io.WriteString(s.w, Safe(string(s.partial)))
	s.partial = nil
	return err
}

// TruncateWidth cuts s to at most cols columns of a terminal, the last one
// an ellipsis, when it is wider. Widths are those of whole grapheme
// clusters (uniseg): a wide character (Chinese, Japanese, Korean, most
// emoji) takes two columns, a combining mark none, and an emoji sequence
// joined by zero-width joiners is one character, never cut in two. A line
// cut by runes alone still wrapped, and a status line redrawn with \r
// then left its first half on the screen.
func TruncateWidth(s string, cols int) string {
	if cols <= 1 {
		return s
	}
	w, at, cut := 0, 0, -1
	rest, state := s, -1
	for len(rest) > 0 {
		var cluster string
		var cw int
		cluster, rest, cw, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if cut < 0 && w+cw > cols-1 {
			cut = at
		}
		at += len(cluster)
		if w += cw; w > cols {
			if !utf8.ValidString(s[:cut]) {
				return string([]rune(s[:cut])) + "…"
			}
			return s[:cut] + "…"
		}
	}
	return s
}

// Width is the number of terminal columns s takes.
func Width(s string) int {
	return uniseg.StringWidth(s)
}

// Truncate cuts s to max runes, the last one an ellipsis, when it is
// longer; invalid UTF-8 in what is kept becomes U+FFFD.
func Truncate(s string, max int) string {
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

// Fit cuts s to at most width characters, marking the cut: a cell of a
// table whose other columns must stay on the line.
func Fit(s string, width int) string {
	if width < 4 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}
