package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/agentloop/agentloop/pkg/transcript/internal/linereader"
)

// A whole-file JSON document (a request body, or an array of messages) can
// be larger than memory. stream reads it from the reader token by token and
// copies out one value at a time (a message, a tool, a scalar), which the
// scanner then checks like any other; memory is bounded by the largest
// single value.

type Stream struct {
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
func (st *Stream) peek() byte {
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
			st.err = &linereader.BinaryError{Line: st.line}
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

func (st *Stream) consume() { st.br.ReadByte() }

// NewStream reads a JSON document from br, holding at most max bytes of a
// value (0: any).
func NewStream(br *bufio.Reader, max int) *Stream { return &Stream{br: br, line: 1, max: max} }

// Peek skips whitespace and returns the next byte without consuming it; 0
// at the end of the input (or at a read error, Err).
func (st *Stream) Peek() byte { return st.peek() }

// Consume consumes the byte Peek returned.
func (st *Stream) Consume() { st.consume() }

// Line is the line of the next byte.
func (st *Stream) Line() int { return st.line }

// Err is the read error that ended the input, other than its end.
func (st *Stream) Err() error { return st.err }

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
func (st *Stream) capture() ([]byte, bool) {
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
			st.err = &linereader.BinaryError{Line: st.line + bytes.Count(b[:i], []byte{'\n'})}
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
func (v *File) streamBadText(line int) {
	if v.docBody {
		v.badText(line)
	}
}

// A DocReader says how a format reads a whole-file JSON document: which
// arrays hold its conversation's messages, and the keys it reads itself.
type DocReader struct {
	// Name is the format's, for a document without what the format reads;
	// "" for a request body, which is the reader of last resort.
	Name string
	// Arrays are the keys whose first array holds the conversation's
	// messages; a request body's when nil.
	Arrays []string
	// Log: the conversation is a finished run's log, which may end with
	// calls unanswered at a limit (a SWE-agent trajectory's history).
	Log bool
	// Request: the document is sent as it is (a request body without the
	// keys that say so, a chat history a client sends again): a call left
	// unanswered at its end is an error, not a fine-tuning record's
	// warning.
	Request bool
	// Body: the document is a request body as sent, whose text outside the
	// messages (tools, system prompt) the API reads too; it may be wrapped
	// with its recorded status ({"request", "status"}), and an array of
	// messages is read as one.
	Body bool
	// Note, when set, sees every top-level key and the kind of its value.
	Note func(f *File, key string, k byte)
	// Key, when set, reads the value of a top-level key the format owns
	// from the stream and returns true; false leaves it to the reader.
	Key func(f *File, d *Doc, st *Stream, key string, k byte, line int) (bool, error)
	// End, when set, is called once every key is read, before the
	// conversation is ended: it may say the document held conversations of
	// its own (Doc.Other) rather than being one.
	End func(f *File, d *Doc)
}

// ReadDocument checks the whole-file JSON document at the start of the
// input as r reads it (Document), and any JSON lines after it as
// conversations, a line each.
func (v *File) ReadDocument(r *DocReader) error {
	more, err := v.Document(r)
	if err != nil || !more || v.stopped {
		return err
	}
	return v.Lines(v.ConversationLine)
}

// Document checks the whole-file JSON document at the start of the input,
// as r reads it. It returns whether more input follows it (JSON lines whose
// first line was too long to look at whole), which Lines then reads from
// the line the document ended on.
func (v *File) Document(r *DocReader) (more bool, err error) {
	v.docBody = r.Body
	st := &Stream{br: v.br, line: 1, max: v.opts.MaxLine}
	defer func() { v.line = max(st.line-1, 0) }()
	switch st.peek() {
	case 0:
		return false, v.streamError(st)
	case '[':
		st.consume()
		if !r.Body {
			v.fileFinding(st.line, Error, "not-a-conversation", "file holds an array; want %s", v.Describe(r.Name))
			return false, v.streamError(st)
		}
		v.startConv(st.line, ConvTranscript, "messages")
		err = v.StreamArray(st, "messages", v.DocMessage)
		if err == nil {
			v.conv.finish()
		}
	case '{':
		st.consume()
		err = v.streamObject(st, r)
	default:
		line := st.line
		buf, _ := st.capture()
		if st.err != nil {
			return false, v.streamError(st)
		}
		if st.tooBig {
			v.fileFinding(line, Error, "not-json", "file is not JSON")
			return false, nil
		}
		v.sc.Reset(buf)
		v.sc.Skip()
		v.sc.End()
		if e := v.sc.Err(); e != nil {
			v.fileFinding(line, Error, "not-json", "file is not JSON: %s", e.Msg)
			return false, nil
		}
		v.fileFinding(line, Error, "not-a-conversation", "file holds %s; want a request body, an array of messages or JSONL", KindName(KindOf(buf[0])))
	}
	if st.err != nil {
		return false, v.streamError(st)
	}
	if err != nil {
		if err == errBroken {
			err = nil
		}
		return false, err
	}
	if st.peek() == 0 {
		return false, v.streamError(st)
	}
	return true, nil
}

// streamError turns the stream's error, if any, into a finding (binary
// data) or the error of an unreadable file.
func (v *File) streamError(st *Stream) error {
	if st.err == nil {
		return nil
	}
	return v.ReadError(st.err)
}

// Broken reports where a document stops being JSON.
func (v *File) Broken(st *Stream, line int, what string) error {
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

// StreamArray walks the elements of an array whose '[' is consumed; each
// element is captured, and checked by fn from v.sc. An element longer than
// the limit is reported as name[i] when name is set (messages, tools), and
// passed over silently otherwise.
func (v *File) StreamArray(st *Stream, name string, fn func(line, i int)) error {
	return v.StreamElems(st, func(line, i int) error {
		buf, ok := st.capture()
		if !ok {
			return v.Broken(st, line, "unterminated value")
		}
		if st.tooBig {
			if name != "" {
				v.TooLong(line, fmt.Sprintf("%s[%d] (from line %d)", name, i, line))
			}
			return nil
		}
		v.sc.ResetArena()
		v.sc.Reset(buf)
		fn(line, i)
		if !v.sc.failed() {
			v.sc.End()
		}
		v.streamBadText(line)
		if e := v.sc.Err(); e != nil {
			at := line + bytes.Count(buf[:min(e.Off, len(buf))], []byte{'\n'})
			return v.Broken(st, at, e.Msg)
		}
		return nil
	})
}

// StreamElems walks the elements of an array whose '[' is consumed,
// leaving each element for fn to read from the stream.
func (v *File) StreamElems(st *Stream, fn func(line, i int) error) error {
	for i := 0; ; i++ {
		if i&255 == 255 && v.Interrupted() {
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

func (v *File) unexpected(st *Stream, c byte, want string) error {
	if c == 0 {
		return v.Broken(st, st.line, "unexpected end, want "+want)
	}
	return v.Broken(st, st.line, fmt.Sprintf("unexpected %q, want %s", c, want))
}

// WalkObject walks the keys of an object whose '{' is consumed. For each
// key, fn may read the value from the stream and return true; a value it
// leaves is checked for being JSON and passed over, an element at a time.
func (v *File) WalkObject(st *Stream, fn func(key string, k byte, line int) (bool, error)) error {
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
			return v.Broken(st, line, "unterminated key")
		}
		v.sc.Reset(buf)
		key := string(v.sc.Text())
		if e := v.sc.Err(); e != nil {
			return v.Broken(st, line, e.Msg)
		}
		v.streamBadText(line)
		if ch = st.peek(); ch != ':' {
			return v.unexpected(st, ch, "':'")
		}
		st.consume()
		ch = st.peek()
		k := KindOf(ch)
		if fn != nil {
			done, err := fn(key, k, st.line)
			if err != nil {
				return err
			}
			if done {
				continue
			}
		}
		if err := v.SkipValue(st); err != nil {
			return err
		}
	}
}

// SkipValue checks that the value at the cursor is JSON and passes over it,
// holding one element of an array or object at a time.
func (v *File) SkipValue(st *Stream) error {
	switch st.peek() {
	case '[':
		st.consume()
		return v.StreamArray(st, "", func(int, int) { v.sc.Skip() })
	case '{':
		st.consume()
		return v.WalkObject(st, nil)
	}
	_, err := v.CaptureValue(st)
	return err
}

// CaptureValue captures the value at the cursor into v.sc, checked to be
// JSON; false (and nothing to read) when it is too long to hold.
func (v *File) CaptureValue(st *Stream) (bool, error) {
	line := st.line
	buf, ok := st.capture()
	if !ok {
		return false, v.Broken(st, line, "unterminated value")
	}
	if st.tooBig {
		return false, nil
	}
	s := &v.sc
	s.ResetArena()
	s.Reset(buf)
	s.Skip()
	s.End()
	if e := s.Err(); e != nil {
		at := line + bytes.Count(buf[:min(e.Off, len(buf))], []byte{'\n'})
		return false, v.Broken(st, at, e.Msg)
	}
	v.streamBadText(line)
	s.Reset(buf)
	return true, nil
}

// streamObject checks a request body, {"messages": …} document, or another
// whole-file log (Inspect AI, SWE-agent, HAR) whose '{' is consumed, as r
// reads it.
func (v *File) streamObject(st *Stream, r *DocReader) error {
	v.startDoc(st.line)
	c := &v.conv
	var d Doc
	arrays := r.Arrays
	if arrays == nil {
		arrays = bodyArrays
	}
	status := 0
	err := v.WalkObject(st, func(key string, k byte, line int) (bool, error) {
		d.note(key, k)
		if r.Note != nil {
			r.Note(v, key, k)
		}
		switch {
		case key == "status" && k == KindNumber && v.bodyOf == "":
			ok, err := v.CaptureValue(st)
			if ok {
				status, _ = strconv.Atoi(string(v.sc.Data()))
			}
			return true, err
		case (key == "request" || key == "body") && k == KindObject && d.array == "" && !d.Other &&
			v.bodyOf == "" && r.Body:
			// A request body recorded with what became of it, as
			// ConversationLine reads one a line: checked as a body,
			// named after its key, the status beside each finding.
			d.Other = true
			st.consume()
			v.bodyOf, v.status = key, status
			err := v.streamObject(st, r)
			v.bodyOf, v.status = "", 0
			return true, err
		case d.takeArray(c, arrays, key, k):
			if r.Log {
				c.kind = ConvLog
			}
			st.consume()
			return true, v.StreamArray(st, key, v.DocMessage)
		case key == "tools" && k == KindArray:
			st.consume()
			names := v.toolNames()
			if err := v.StreamArray(st, "tools", func(line, i int) { v.readTool(line, i, names) }); err != nil {
				return true, err
			}
			c.setTools(names)
			return true, nil
		case key == "toolConfig" && k == KindObject:
			ok, err := v.CaptureValue(st)
			if ok {
				v.readToolConfig(line)
			}
			return true, err
		case key == "thinking":
			ok, err := v.CaptureValue(st)
			if ok {
				d.thinking = thinkingEnabled(&v.sc)
			}
			return true, err
		case key == "store":
			ok, err := v.CaptureValue(st)
			if ok {
				d.noteStore(&v.sc)
			}
			return true, err
		case r.Key != nil && d.array == "":
			return r.Key(v, &d, st, key, k, line)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	v.applyDoc(&d, r)
	return nil
}
