package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
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
	err  error // a read error other than EOF, or a *BinaryError
	// max is the most bytes of one value capture copies out (0: no limit);
	// tooBig says the last value captured was longer, and not copied.
	max    int
	tooBig bool
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
		case 0:
			st.err = &BinaryError{Line: st.line}
			return 0
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
// before the value is complete. A value longer than st.max is read to its
// end but not copied: capture returns it empty, with st.tooBig set.
func (st *stream) capture() ([]byte, bool) {
	st.buf = st.buf[:0]
	st.tooBig = false
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
		if i := bytes.IndexByte(b[:n], 0); i >= 0 {
			st.err = &BinaryError{Line: st.line + bytes.Count(b[:i], []byte{'\n'})}
			return nil, false
		}
		st.line += bytes.Count(b[:n], []byte{'\n'})
		switch {
		case st.tooBig:
		case st.max > 0 && len(st.buf)+n > st.max:
			st.tooBig = true
			st.buf = st.buf[:0]
		default:
			st.buf = append(st.buf, b[:n]...)
		}
		st.br.Discard(n)
		if done {
			return st.buf, true
		}
	}
}

// streamBadText reports text that is not UTF-8 in the value just captured
// from line, outside any message, when the document is a request body: the
// other documents read whole (Inspect AI, SWE-agent, HAR logs) are not sent
// as they are, only the messages in them.
func (v *validator) streamBadText(line int) {
	if v.format == InputRequest {
		v.badText(line)
	}
}

// streamDoc checks a whole-file JSON document. It returns the line where
// the document ended and whether more input follows it (JSONL whose first
// line was too long to look at whole).
func (v *validator) streamDoc(br *bufio.Reader) (int, bool, error) {
	st := &stream{br: br, line: 1, max: v.opts.MaxLine}
	if v.format == "" {
		v.format = InputRequest
	}
	var err error
	switch st.peek() {
	case 0:
		return st.line, false, v.streamError(st)
	case '[':
		st.consume()
		v.kind = linesMessages
		v.startConv(st.line, kindTranscript, "messages")
		err = v.streamArray(st, "messages", v.docMessage)
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
		if st.err != nil {
			return line, false, v.streamError(st)
		}
		if st.tooBig {
			v.fileFinding(line, Error, "not-json", "file is not JSON")
			return line, false, nil
		}
		v.sc.reset(buf)
		v.sc.skip()
		v.sc.end()
		if v.sc.err != nil {
			v.fileFinding(line, Error, "not-json", "file is not JSON: %s", v.sc.err.msg)
			return line, false, nil
		}
		v.fileFinding(line, Error, "not-a-conversation", "file holds %s; want a request body, an array of messages or JSONL", kindName(kindOf(buf[0])))
	}
	if st.err != nil {
		return st.line, false, v.streamError(st)
	}
	if err != nil {
		if err == errBroken {
			err = nil
		}
		return st.line, false, err
	}
	if st.peek() == 0 {
		return st.line, false, v.streamError(st)
	}
	if v.format == InputRequest {
		v.format = InputConversations // JSONL of bodies, the first a long line
	}
	return st.line, true, nil
}

// streamError turns the stream's error, if any, into a finding (binary
// data) or the error of an unreadable file.
func (v *validator) streamError(st *stream) error {
	if st.err == nil {
		return nil
	}
	return v.readError(st.err)
}

// broken reports where a document stops being JSON.
func (v *validator) broken(st *stream, line int, what string) error {
	if st.err != nil {
		return errBroken
	}
	if st.peek() == 0 && st.err == nil {
		v.fileFinding(line, Error, "truncated-line", "the file ends inside the JSON document (%s)", what)
	} else if st.err == nil {
		v.fileFinding(line, Error, "not-json", "file is not JSON: %s", what)
	}
	return errBroken
}

// streamArray walks the elements of an array whose '[' is consumed; each
// element is captured, and checked by fn from v.sc. An element longer than
// the limit is reported as name[i] when name is set (messages, tools), and
// passed over silently otherwise.
func (v *validator) streamArray(st *stream, name string, fn func(line, i int)) error {
	return v.streamElems(st, func(line, i int) error {
		buf, ok := st.capture()
		if !ok {
			return v.broken(st, line, "unterminated value")
		}
		if st.tooBig {
			if name != "" {
				v.tooLong(line, fmt.Sprintf("%s[%d] (from line %d)", name, i, line))
			}
			return nil
		}
		v.sc.arena = v.sc.arena[:0]
		v.sc.reset(buf)
		fn(line, i)
		if v.sc.err == nil {
			v.sc.end()
		}
		v.streamBadText(line)
		if v.sc.err != nil {
			at := line + bytes.Count(buf[:min(v.sc.err.off, len(buf))], []byte{'\n'})
			return v.broken(st, at, v.sc.err.msg)
		}
		return nil
	})
}

// streamElems walks the elements of an array whose '[' is consumed,
// leaving each element for fn to read from the stream.
func (v *validator) streamElems(st *stream, fn func(line, i int) error) error {
	for i := 0; ; i++ {
		if i&255 == 255 && v.interrupted() {
			return v.ctx.Err()
		}
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
		if err := fn(st.line, i); err != nil {
			return err
		}
	}
}

func (v *validator) unexpected(st *stream, c byte, want string) error {
	if c == 0 {
		return v.broken(st, st.line, "unexpected end, want "+want)
	}
	return v.broken(st, st.line, fmt.Sprintf("unexpected %q, want %s", c, want))
}

// walkObject walks the keys of an object whose '{' is consumed. For each
// key, fn may read the value from the stream and return true; a value it
// leaves is checked for being JSON and passed over, an element at a time.
func (v *validator) walkObject(st *stream, fn func(key string, k byte, line int) (bool, error)) error {
	for i := 0; ; i++ {
		ch := st.peek()
		if ch == '}' {
			st.consume()
			return nil
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
		if !ok || st.tooBig {
			return v.broken(st, line, "unterminated key")
		}
		v.sc.reset(buf)
		key := string(v.sc.text())
		if v.sc.err != nil {
			return v.broken(st, line, v.sc.err.msg)
		}
		v.streamBadText(line)
		if ch = st.peek(); ch != ':' {
			return v.unexpected(st, ch, "':'")
		}
		st.consume()
		ch = st.peek()
		k := kindOf(ch)
		if fn != nil {
			done, err := fn(key, k, st.line)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		if err := v.skipValue(st); err != nil {
			return err
		}
	}
}

// skipValue checks that the value at the cursor is JSON and passes over it,
// holding one element of an array or object at a time.
func (v *validator) skipValue(st *stream) error {
	switch st.peek() {
	case '[':
		st.consume()
		return v.streamArray(st, "", func(int, int) { v.sc.skip() })
	case '{':
		st.consume()
		return v.walkObject(st, nil)
	}
	_, err := v.captureValue(st)
	return err
}

// captureValue captures the value at the cursor into v.sc, checked to be
// JSON; false (and nothing to read) when it is too long to hold.
func (v *validator) captureValue(st *stream) (bool, error) {
	line := st.line
	buf, ok := st.capture()
	if !ok {
		return false, v.broken(st, line, "unterminated value")
	}
	if st.tooBig {
		return false, nil
	}
	s := &v.sc
	s.arena = s.arena[:0]
	s.reset(buf)
	s.skip()
	s.end()
	if s.err != nil {
		at := line + bytes.Count(buf[:min(s.err.off, len(buf))], []byte{'\n'})
		return false, v.broken(st, at, s.err.msg)
	}
	v.streamBadText(line)
	s.reset(buf)
	return true, nil
}

// streamObject checks a request body, {"messages": …} document, or another
// whole-file log (Inspect AI, SWE-agent, HAR) whose '{' is consumed.
func (v *validator) streamObject(st *stream) error {
	v.startDoc(st.line)
	c := &v.conv
	var d docInfo
	status := 0
	err := v.walkObject(st, func(key string, k byte, line int) (bool, error) {
		d.note(key, k)
		switch {
		case key == "status" && k == kindNumber && v.bodyOf == "":
			ok, err := v.captureValue(st)
			if ok {
				status, _ = strconv.Atoi(string(v.sc.d))
			}
			return true, err
		case (key == "request" || key == "body") && k == kindObject && d.array == "" && !d.other &&
			v.bodyOf == "" && v.format == InputRequest:
			// A request body recorded with what became of it, as
			// conversationLine reads one a line: checked as a body,
			// named after its key, the status beside each finding.
			d.other = true
			st.consume()
			v.bodyOf, v.status = key, status
			err := v.streamObject(st)
			v.bodyOf, v.status = "", 0
			return true, err
		case v.reads(arrayFormat(key)) && d.takeArray(c, key, k):
			if key == "history" {
				// A SWE-agent trajectory: history is what it sent, in
				// the Chat Completions shape (tool messages name their
				// call in a list, tool_call_ids).
				if v.format == InputRequest {
					v.format = InputSWEAgent
				}
				c.kind = kindLog
			}
			st.consume()
			return true, v.streamArray(st, key, v.docMessage)
		case key == "tools" && k == kindArray:
			st.consume()
			names := v.toolNames()
			if err := v.streamArray(st, "tools", func(line, i int) { v.readTool(line, i, names) }); err != nil {
				return true, err
			}
			c.setTools(names)
			return true, nil
		case key == "thinking":
			ok, err := v.captureValue(st)
			if ok {
				d.thinking = thinkingEnabled(&v.sc)
			}
			return true, err
		case key == "store":
			ok, err := v.captureValue(st)
			if ok {
				d.noteStore(&v.sc)
			}
			return true, err
		case key == "samples" && k == kindArray && d.array == "" && v.reads(InputInspect):
			// An Inspect AI eval log: a conversation in each sample.
			d.other = true
			if v.format == InputRequest {
				v.format = InputInspect
			}
			st.consume()
			return true, v.streamElems(st, func(line, i int) error { return v.inspectSample(st, line, i) })
		case key == "log" && k == kindObject && d.array == "" && v.reads(InputHAR):
			// An HTTP Archive: the request bodies of its entries.
			d.other = true
			if v.format == InputRequest {
				v.format = InputHAR
			}
			st.consume()
			return true, v.walkObject(st, func(key string, k byte, line int) (bool, error) {
				if key != "entries" || k != kindArray {
					return false, nil
				}
				st.consume()
				return true, v.streamElems(st, func(line, i int) error { return v.harEntry(st, line, i) })
			})
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	v.applyDoc(&d)
	return nil
}
