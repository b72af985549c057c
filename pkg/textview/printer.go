package textview

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/longtext"
)

// showStyle is how --show renders: on a terminal with colours and wrapped
// to its width; piped, plain and unwrapped, so the output is stable.
type showStyle struct {
	color bool
	width int
}

func (s showStyle) paint(code, text string) string {
	if !s.color || text == "" {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s showStyle) bold(t string) string  { return s.paint("1", t) }
func (s showStyle) dim(t string) string   { return s.paint("2", t) }
func (s showStyle) cyan(t string) string  { return s.paint("36", t) }
func (s showStyle) red(t string) string   { return s.paint("31", t) }
func (s showStyle) green(t string) string { return s.paint("32", t) }

// printer writes indented lines, wraps them at the terminal's width (a
// continued line keeps the indent; nothing is cut off), and remembers the
// first error. What it writes goes out a row at a time: a text of any size
// costs no copy of it.
type printer struct {
	w   io.Writer
	st  showStyle
	err error
	// long reads back the long texts taken out of the records read.
	long *longtext.Store
	// gap is a blank line owed before the next line: never two in a row,
	// never one at the end.
	gap bool

	// The row being written: its bytes, its width in columns, and where
	// its last space is (to wrap there rather than inside a word).
	row        []byte
	col        int
	indent     int
	hang       int // added to the indent of a continued row
	space      int // byte offset in row of the last space, -1 for none
	spaceCol   int
	rowHasText bool
}

func (p *printer) blank() { p.gap = true }

// line writes one line of ours: s holds styling, and any text from the
// transcript in it is already made safe. A wrapped line goes on indented
// further, so that it reads as one item.
func (p *printer) line(indent int, s string) {
	p.hang = 2
	p.emit(indent, s, "")
	p.hang = 0
}

// text writes a text from the transcript whole, line by line, made safe.
func (p *printer) text(indent int, s string) {
	if p.long.Has(s) {
		p.textFrom(indent, p.long.Open(s))
		return
	}
	for s = strings.TrimRight(s, "\n"); ; {
		line, rest, more := strings.Cut(s, "\n")
		p.emit(indent, "", line)
		if !more {
			return
		}
		s = rest
	}
}

// excerpt writes the first maxLines lines of a text, at most maxBytes of it,
// and says how much was left out.
func (p *printer) excerpt(indent int, s string, maxLines, maxBytes int) {
	if p.long.Has(s) {
		p.excerptFrom(indent, p.long.Open(s), maxLines, maxBytes)
		return
	}
	s = strings.TrimRight(s, "\n")
	if s == "" {
		p.line(indent, p.st.dim("(empty)"))
		return
	}
	budget := maxBytes
	for i := 0; ; i++ {
		line, rest, more := strings.Cut(s, "\n")
		switch {
		case i == maxLines:
			n := strings.Count(s, "\n") + 1
			p.line(indent, p.st.dim(fmt.Sprintf("… %d more line%s", n, english.Plural(n, "", "s"))))
			return
		case len(line) > budget:
			cut := max(budget, 0) // -1 after a line that used the budget up
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			p.emit(indent, "", line[:cut])
			left := fmt.Sprintf("… %s more", bytesize.Binary(len(line)-cut))
			if more {
				n := strings.Count(rest, "\n") + 1
				left += fmt.Sprintf(", %d more line%s", n, english.Plural(n, "", "s"))
			}
			p.line(indent, p.st.dim(left))
			return
		}
		p.emit(indent, "", line)
		budget -= len(line) + 1
		if !more {
			return
		}
		s = rest
	}
}

// emit writes one line: the indent, ours (styled, written as it is), then
// data (from the transcript: each character a terminal would act on shown
// escaped), wrapped at the width.
func (p *printer) emit(indent int, ours, data string) {
	p.startLine(indent, ours)
	p.data(data)
	p.endLine()
}

// startLine begins a line with the indent and ours; data adds to it and
// endLine ends it, so that a line can come in pieces.
func (p *printer) startLine(indent int, ours string) {
	if p.gap {
		p.write([]byte("\n"))
		p.gap = false
	}
	p.indent = indent
	p.newRow()
	for i := 0; i < len(ours); {
		if ours[i] == 0x1b { // a colour sequence takes no column
			j := strings.IndexByte(ours[i:], 'm')
			if j < 0 {
				j = len(ours) - i - 1
			}
			p.row = append(p.row, ours[i:i+j+1]...)
			i += j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(ours[i:])
		p.put(ours[i:i+size], ours[i] == '\t')
		i += size
	}
}

// data adds text from the transcript to the line. A piece that ends
// inside a character must not be passed: the character is cut in two.
func (p *printer) data(data string) {
	if p.err != nil {
		return
	}
	for i := 0; i < len(data); {
		// Printable ASCII, the bulk of most texts, goes by without a
		// look at each character's escape.
		if j := asciiRun(data[i:]); j > 0 {
			p.putASCII(data[i : i+j])
			i += j
			continue
		}
		form, size := termtext.Shown(data[i:], false)
		p.put(form, data[i] == '\t')
		i += size
	}
}

func (p *printer) endLine() {
	p.row = append(p.row, '\n')
	p.write(p.row)
}

// asciiRun is the length of the run of printable ASCII s starts with.
func asciiRun(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return i
		}
	}
	return len(s)
}

// putASCII is put for a run of printable ASCII.
func (p *printer) putASCII(s string) {
	if p.st.width <= 0 {
		p.row = append(p.row, s...)
		if len(p.row) > 32<<10 {
			p.write(p.row)
			p.row = p.row[:0]
		}
		return
	}
	for i := 0; i < len(s); i++ {
		if p.col+1 > p.st.width && p.rowHasText {
			if s[i] == ' ' {
				p.breakAt() // the space that overflows ends the row
				continue
			}
			p.wrap()
		}
		if s[i] == ' ' && p.col > p.indent {
			p.space, p.spaceCol = len(p.row), p.col
		}
		p.row = append(p.row, s[i])
		p.col++
		p.rowHasText = true
	}
}

func (p *printer) newRow() {
	p.row = append(p.row[:0], strings.Repeat(" ", p.indent)...)
	p.col, p.space, p.rowHasText = p.indent, -1, false
}

// put adds one character (or its escape) to the row, starting a new row
// when it would pass the width.
func (p *printer) put(form string, tab bool) {
	width := p.st.width
	if width <= 0 {
		// Piped: no wrapping, and the row goes out in pieces.
		if tab {
			form = "\t"
		}
		p.row = append(p.row, form...)
		if len(p.row) > 32<<10 {
			p.write(p.row)
			p.row = p.row[:0]
		}
		return
	}
	w := utf8.RuneCountInString(form)
	if tab {
		w = 8 - p.col%8
		form = strings.Repeat(" ", w)
	}
	if p.col+w > width && p.rowHasText {
		if form == " " {
			p.breakAt()
			return
		}
		p.wrap()
	}
	if form == " " && p.col > p.indent {
		p.space, p.spaceCol = len(p.row), p.col
	}
	p.row = append(p.row, form...)
	p.col += w
	p.rowHasText = true
}

// breakAt ends the row here, at a space that is dropped.
func (p *printer) breakAt() {
	p.space = -1
	p.wrap()
}

// wrap ends the row at its last space when there is one, else here, and
// starts the next row at the indent with what followed the space.
func (p *printer) wrap() {
	var carry []byte
	carryCols := 0
	if p.space >= 0 {
		carry = bytes.Clone(p.row[p.space+1:])
		carryCols = p.col - p.spaceCol - 1
		p.row = p.row[:p.space]
	}
	p.row = append(p.row, '\n')
	p.write(p.row)
	p.newRow()
	p.row = append(p.row, strings.Repeat(" ", p.hang)...)
	p.col += p.hang
	p.row = append(p.row, carry...)
	p.col += carryCols
	p.rowHasText = len(carry) > 0
}

func (p *printer) write(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}
