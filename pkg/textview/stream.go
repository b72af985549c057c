package textview

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/english"
)

// A text taken out of its record (longtext) is printed as it is read back
// from the file: textFrom and excerptFrom write what text and excerpt
// write for the same text, holding a piece of it at a time.

// textFrom is text for a text read from r.
func (p *printer) textFrom(indent int, r io.Reader) {
	buf := make([]byte, 0, 64<<10)
	newlines := 0 // held: they end the text, which drops them, or a line
	p.startLine(indent, "")
	for eof := false; !eof && p.err == nil; {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			eof = true
		case err != nil:
			p.err = fmt.Errorf("read a text back from the transcript: %w", err)
			return
		}
		cut := len(buf)
		if !eof {
			cut = wholeRunes(buf)
		}
		for s := buf[:cut]; len(s) > 0; {
			i := bytes.IndexByte(s, '\n')
			if i == 0 {
				newlines++
				s = s[1:]
				continue
			}
			if i < 0 {
				i = len(s)
			}
			for ; newlines > 0; newlines-- {
				p.endLine()
				p.startLine(indent, "")
			}
			p.data(string(s[:i]))
			s = s[i:]
		}
		buf = buf[:copy(buf, buf[cut:])]
	}
	p.endLine()
}

// wholeRunes is how much of b ends on a whole character: a character
// cut at the end waits for the rest.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// excerptFrom is excerpt for a text read from r.
func (p *printer) excerptFrom(indent int, r io.Reader, maxLines, maxBytes int) {
	ls := &lineScanner{br: bufio.NewReaderSize(r, 64<<10)}
	defer func() {
		if ls.err != nil && p.err == nil {
			p.err = fmt.Errorf("read a text back from the transcript: %w", ls.err)
		}
	}()
	budget := maxBytes
	for i := 0; ; i++ {
		if i == maxLines {
			n := ls.remaining()
			p.line(indent, p.st.dim(fmt.Sprintf("… %d more line%s", n, english.Plural(n, "", "s"))))
			return
		}
		head, length, more := ls.next(max(budget+1, 0))
		switch {
		case i == 0 && length == 0 && !more:
			p.line(indent, p.st.dim("(empty)"))
			return
		case length > int64(budget):
			cut := max(budget, 0)
			for cut > 0 && !utf8.RuneStart(head[cut]) {
				cut--
			}
			p.emit(indent, "", string(head[:cut]))
			left := fmt.Sprintf("… %s more", bytesize.Binary(int(length-int64(cut))))
			if more {
				n := ls.remaining()
				left += fmt.Sprintf(", %d more line%s", n, english.Plural(n, "", "s"))
			}
			p.line(indent, p.st.dim(left))
			return
		}
		p.emit(indent, "", string(head))
		budget -= int(length) + 1
		if !more {
			return
		}
	}
}

// lineScanner reads the lines of a text with its final newlines dropped,
// as strings.Cut on strings.TrimRight(text, "\n") finds them.
type lineScanner struct {
	br *bufio.Reader
	// empty is how many empty lines come next, each followed by another.
	empty int
	err   error
}

// next reads the next line: its first keep bytes, its length, and whether
// another follows.
func (ls *lineScanner) next(keep int) (head []byte, length int64, more bool) {
	if ls.empty > 0 {
		ls.empty--
		return nil, 0, true
	}
	for {
		chunk, err := ls.br.ReadSlice('\n')
		line := bytes.TrimSuffix(chunk, []byte("\n"))
		if len(head) < keep {
			head = append(head, line[:min(len(line), keep-len(head))]...)
		}
		length += int64(len(line))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err != io.EOF {
				ls.err = err
			}
			return head, length, false
		}
		break
	}
	// A run of newlines: lines if text follows, the end if not.
	n := 0
	for {
		c, err := ls.br.ReadByte()
		if err != nil {
			if err != io.EOF {
				ls.err = err
			}
			return head, length, false
		}
		if c != '\n' {
			_ = ls.br.UnreadByte()
			ls.empty = n
			return head, length, true
		}
		n++
	}
}

// remaining counts the lines not read yet: more than zero after a line
// that said another follows.
func (ls *lineScanner) remaining() int {
	n, held := ls.empty+1, 0
	ls.empty = 0
	buf := make([]byte, 32<<10)
	for {
		k, err := ls.br.Read(buf)
		for _, c := range buf[:k] {
			if c == '\n' {
				held++
			} else if held > 0 {
				n, held = n+held, 0
			}
		}
		if err != nil {
			if err != io.EOF {
				ls.err = err
			}
			return n
		}
	}
}

// whole is s with any long text taken out of it put back, for what reads
// a text whole (the content of a reasoning item, which shares the path of
// a message's text).
func (p *printer) whole(s string) string {
	w, err := p.long.String(s)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("read a text back from the transcript: %w", err)
	}
	return w
}
