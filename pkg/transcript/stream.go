package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// A whole-file JSON document (a request body, or an array of messages) can
// be larger than memory. stream reads it from the reader token by token and
// copies out one value at a time (a message, a tool, a scalar), which the
// scanner then checks like any other; memory is bounded by the largest
// single value.

type stream struct {
	br   *bufio.Reader
	line int // line of the next byte
	buf  []byte
	err  error // a read error other than EOF
}

// errBroken ends a document whose structure is broken; what is broken has
// already been reported.
var errBroken = errors.New("broken document")

// peek skips whitespace and returns the next byte without consuming it; 0
// at the end of the input.
func (st *stream) peek() byte {
	for {
		c, err := st.br.ReadByte()
		if err != nil {
			if err != io.EOF {
				st.err = err
			}
			return 0
		}
		switch c {
		case '\n':
			st.line++
		case ' ', '\t', '\r':
		default:
			st.br.UnreadByte()
			return c
		}
	}
}

func (st *stream) consume() { st.br.ReadByte() }

// capState follows a value's bytes far enough to find where it ends.
type capState struct {
	depth    int
	inString bool
	escaped  bool
	started  bool
	scalar   bool
}

// feed consumes bytes of b up to the end of the value and returns how many
// belong to it and whether the value is complete.
func (cs *capState) feed(b []byte) (int, bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if cs.inString {
			if cs.escaped {
				cs.escaped = false
				continue
			}
			// Jump to the next quote or backslash: strings are most of the bytes.
			j := bytes.IndexAny(b[i:], "\"\\")
			if j < 0 {
				return len(b), false
			}
			i += j
			if b[i] == '\\' {
				cs.escaped = true
				continue
			}
			cs.inString = false
			if cs.depth == 0 {
				return i + 1, true
			}
			continue
		}
		if !cs.started {
			cs.started = true
			if c != '"' && c != '{' && c != '[' {
				cs.scalar = true
			}
		}
		if cs.scalar {
			switch c {
			case ',', ']', '}', ' ', '\t', '\n', '\r', ':':
				return i, true
			}
			continue
		}
		switch c {
		case '"':
			cs.inString = true
		case '{', '[':
			cs.depth++
		case '}', ']':
			cs.depth--
			if cs.depth <= 0 {
				return i + 1, true
			}
		}
	}
	return len(b), false
}

// capture copies the next value into st.buf; false at the end of the input
// before the value is complete.
func (st *stream) capture() ([]byte, bool) {
	st.buf = st.buf[:0]
	if st.peek() == 0 {
		return nil, false
	}
	var cs capState
	for {
		if st.br.Buffered() == 0 {
			if _, err := st.br.Peek(1); err != nil {
				if err != io.EOF {
					st.err = err
				}
				// A scalar may end the input.
				return st.buf, cs.scalar && len(st.buf) > 0
			}
		}
		b, _ := st.br.Peek(st.br.Buffered())
		n, done := cs.feed(b)
		st.line += bytes.Count(b[:n], []byte{'\n'})
		st.buf = append(st.buf, b[:n]...)
		st.br.Discard(n)
		if done {
			return st.buf, true
		}
	}
}

// streamDoc checks a whole-file JSON document. It returns the line where
// the document ended and whether more input follows it (JSONL whose first
// line was too long to look at whole).
func (v *validator) streamDoc(br *bufio.Reader) (int, bool, error) {
	st := &stream{br: br, line: 1}
	var err error
	switch st.peek() {
	case 0:
		return st.line, false, st.err
	case '[':
		st.consume()
		v.kind = linesMessages
		v.startConv(st.line, kindTranscript, "messages")
		err = v.streamArray(st, v.docMessage)
		if err == nil {
			v.conv.finish()
		}
		v.kind = linesUnknown
	case '{':
		st.consume()
		err = v.streamObject(st)
		v.kind = linesConversations
	default:
		line := st.line
		buf, _ := st.capture()
		v.sc.reset(buf)
		v.sc.skip()
		v.sc.end()
		if v.sc.err != nil {
			v.fileFinding(line, Error, "not-json", "file is not JSON: %s", v.sc.err.msg)
			return line, false, st.err
		}
		v.fileFinding(line, Error, "not-a-conversation", "file holds %s; want a request body, an array of messages or JSONL", kindName(kindOf(buf[0])))
	}
	if st.err != nil {
		return st.line, false, fmt.Errorf("read %s: %w", v.name, st.err)
	}
	if err != nil {
		return st.line, false, nil
	}
	if st.peek() == 0 {
		return st.line, false, st.err
	}
	return st.line, true, nil
}

// broken reports where a document stops being JSON.
func (v *validator) broken(st *stream, line int, what string) error {
	if st.peek() == 0 && st.err == nil {
		v.fileFinding(line, Error, "truncated-line", "the file ends inside the JSON document (%s)", what)
	} else {
		v.fileFinding(line, Error, "not-json", "file is not JSON: %s", what)
	}
	return errBroken
}

// streamArray walks the elements of an array whose '[' is consumed; each
// element is captured, and checked by fn from v.sc.
func (v *validator) streamArray(st *stream, fn func(line, i int)) error {
	for i := 0; ; i++ {
		c := st.peek()
		if c == ']' {
			st.consume()
			return nil
		}
		if i > 0 {
			if c != ',' {
				return v.unexpected(st, c, "',' or ']'")
			}
			st.consume()
			if c = st.peek(); c == ']' {
				return v.unexpected(st, c, "a value")
			}
		}
		if c == 0 {
			return v.unexpected(st, c, "a value")
		}
		line := st.line
		buf, ok := st.capture()
		if !ok {
			return v.broken(st, line, "unterminated value")
		}
		v.sc.arena = v.sc.arena[:0]
		v.sc.reset(buf)
		fn(line, i)
		if v.sc.err == nil {
			v.sc.end()
		}
		if v.sc.err != nil {
			at := line + bytes.Count(buf[:min(v.sc.err.off, len(buf))], []byte{'\n'})
			return v.broken(st, at, v.sc.err.msg)
		}
	}
}

func (v *validator) unexpected(st *stream, c byte, want string) error {
	if c == 0 {
		return v.broken(st, st.line, "unexpected end, want "+want)
	}
	return v.broken(st, st.line, fmt.Sprintf("unexpected %q, want %s", c, want))
}

// streamObject checks a request body or {"messages": …} document whose '{'
// is consumed.
func (v *validator) streamObject(st *stream) error {
	v.startDoc(st.line)
	c := &v.conv
	var d docInfo
	for i := 0; ; i++ {
		ch := st.peek()
		if ch == '}' {
			st.consume()
			break
		}
		if i > 0 {
			if ch != ',' {
				return v.unexpected(st, ch, "',' or '}'")
			}
			st.consume()
			ch = st.peek()
		}
		if ch != '"' {
			return v.unexpected(st, ch, "a key")
		}
		line := st.line
		buf, ok := st.capture()
		if !ok {
			return v.broken(st, line, "unterminated key")
		}
		v.sc.reset(buf)
		key := string(v.sc.text())
		if v.sc.err != nil {
			return v.broken(st, line, v.sc.err.msg)
		}
		if ch = st.peek(); ch != ':' {
			return v.unexpected(st, ch, "':'")
		}
		st.consume()
		ch = st.peek()
		k := kindOf(ch)
		d.note(key, k)
		switch {
		case d.takeArray(c, key, k):
			st.consume()
			if err := v.streamArray(st, v.docMessage); err != nil {
				return err
			}
		case key == "tools" && k == kindArray:
			st.consume()
			names := v.toolNames()
			if err := v.streamArray(st, func(line, i int) { v.readTool(line, i, names) }); err != nil {
				return err
			}
			c.setTools(names)
		case k == kindArray:
			// Read an element at a time: a second array of messages may be
			// as large as the first.
			st.consume()
			if err := v.streamArray(st, func(int, int) { v.sc.skip() }); err != nil {
				return err
			}
		default:
			line := st.line
			buf, ok := st.capture()
			if !ok {
				return v.broken(st, line, "unterminated value")
			}
			s := &v.sc
			s.arena = s.arena[:0]
			s.reset(buf)
			switch key {
			case "thinking":
				d.thinking = thinkingEnabled(s)
				s.reset(buf)
			case "store":
				d.noteStore(s)
				s.reset(buf)
			}
			s.skip()
			s.end()
			if s.err != nil {
				at := line + bytes.Count(buf[:min(s.err.off, len(buf))], []byte{'\n'})
				return v.broken(st, at, s.err.msg)
			}
		}
	}
	v.applyDoc(&d)
	return nil
}
