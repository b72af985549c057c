// Package longtext keeps the long texts of a JSONL transcript out of
// memory. A Filter passes a transcript through, putting in place of each
// long text (a message's content, a text block, a tool's result or output)
// a short reference to where it is in the file; the Store it fills reads a
// text holding references back from the file, decoded, a piece at a time,
// or says how long it is. A reader of the filtered transcript holds records
// of a few kilobytes whatever the texts in them.
package longtext

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
)

// texts are the paths, in a line's object, of the strings a Filter may
// take out: a message's text and its parts' (Chat Completions, Messages),
// an Anthropic tool result's content and its blocks', a Responses
// function_call_output's output and its parts'. The same under "message"
// (an agentloop record; "content" alone is also a result record's).
var texts = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range []string{"content", "content/[]/text", "content/[]/content", "content/[]/content/[]/text", "output", "output/[]/text"} {
		m[p], m["message/"+p] = true, true
	}
	return m
}()

// maxTextDepth is the deepest a path in texts goes.
const maxTextDepth = 6

// maxStack is how deep a line's structure is followed.
const maxStack = 32

// errorPrefix starts a failed call's result in Chat Completions and
// Responses: such a text is read whole, as it is parsed for its message.
const errorPrefix = `{"error":`

// Store holds where the texts a Filter took out are, and reads them.
type Store struct {
	src  io.ReaderAt
	tag  string // starts a reference: NUL, a random nonce, '#'
	refs []ref
}

// ref is a text taken out: its JSON body's offset and length in the file
// (quotes not included) and its length decoded.
type ref struct {
	off, raw, n int64
}

// Filter is an io.Reader of a transcript with its long texts taken out.
type Filter struct {
	Store *Store
	br    *bufio.Reader
	pos   int64 // offset in the input of the first unread byte
	limit int
	out   []byte
	outAt int
	done  bool
	err   error

	stack []frame
	deep  int // levels below maxStack, not followed
	mode  int
	// The string being read: escaped says its last byte was a backslash
	// (passed through); key holds a key's first bytes; cand, a text's
	// first bytes while it may still be short; n and head count and start
	// its decoded text.
	escaped bool
	key     []byte
	cand    []byte
	n       int64
	head    []byte
	tail    []byte // the last bytes of its JSON body
	last    byte   // its last byte decoded
	scratch []byte
	id      int
}

type frame struct {
	obj, expectKey bool
	key            string
}

const (
	modeJSON = iota
	modeString
	modeKey
	modeText // a text that may be taken out: its first bytes are held
	modeLong // a text taken out
	modeSkip // a broken text: the rest of the line goes
)

// NewFilter filters r, whose bytes src also reads at the same offsets (the
// same file). A text whose JSON body is longer than limit bytes is taken
// out.
func NewFilter(r io.Reader, src io.ReaderAt, limit int) *Filter {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	return &Filter{
		Store: &Store{src: src, tag: "\x00" + hex.EncodeToString(nonce[:]) + "#"},
		br:    bufio.NewReaderSize(r, 256<<10),
		limit: limit,
	}
}

func (f *Filter) Read(p []byte) (int, error) {
	for f.outAt == len(f.out) {
		f.out, f.outAt = f.out[:0], 0
		if f.done {
			if f.err != nil {
				return 0, f.err
			}
			return 0, io.EOF
		}
		f.fill()
	}
	n := copy(p, f.out[f.outAt:])
	f.outAt += n
	return n, nil
}

// fill reads what the buffer holds (at least want bytes if there are) and
// filters it.
func (f *Filter) fill() {
	want := 1
	for {
		_, err := f.br.Peek(want)
		atEOF := err != nil
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			f.err, f.done = err, true
			return
		}
		buf, _ := f.br.Peek(f.br.Buffered())
		if len(buf) == 0 {
			f.end()
			return
		}
		n, short := f.process(buf, atEOF)
		_, _ = f.br.Discard(n)
		f.pos += int64(n)
		if !short || atEOF || len(f.out) > 0 {
			return
		}
		want = f.br.Buffered() + 16 // an escape or a character cut at the end
	}
}

// end closes what the input left open: a torn last line stays torn.
func (f *Filter) end() {
	switch f.mode {
	case modeText:
		f.out = append(append(f.out, '"'), f.cand...)
	case modeLong:
		f.out = append(append(f.out, '"'), f.marker(f.id)...)
	}
	f.mode, f.done = modeJSON, true
}

// marker is the JSON form of a reference.
func (f *Filter) marker(id int) string {
	return `\u0000` + f.Store.tag[1:] + strconv.Itoa(id) + `\u0000`
}

// process filters the bytes of buf it can and returns how many it used;
// short says it needs more to go on.
func (f *Filter) process(buf []byte, atEOF bool) (int, bool) {
	i := 0
	for i < len(buf) {
		switch f.mode {
		case modeJSON:
			c := buf[i]
			f.out = append(f.out, c)
			i++
			var top *frame
			if len(f.stack) > 0 {
				top = &f.stack[len(f.stack)-1]
			}
			switch c {
			case '{', '[':
				if len(f.stack) == maxStack {
					f.deep++
					break
				}
				f.stack = append(f.stack, frame{obj: c == '{', expectKey: c == '{'})
			case '}', ']':
				if f.deep > 0 {
					f.deep--
				} else if top != nil {
					f.stack = f.stack[:len(f.stack)-1]
				}
			case ',':
				if top != nil && top.obj {
					top.expectKey = true
				}
			case ':':
				if top != nil && top.obj {
					top.expectKey = false
				}
			case '"':
				f.escaped = false
				switch {
				case top != nil && top.obj && top.expectKey:
					f.mode, f.key = modeKey, f.key[:0]
				case f.isText():
					f.out = f.out[:len(f.out)-1] // the quote goes out with the text
					f.mode, f.cand, f.n, f.head, f.tail, f.last = modeText, f.cand[:0], 0, f.head[:0], f.tail[:0], 0
				default:
					f.mode = modeString
				}
			}
		case modeString, modeKey:
			i = f.passString(buf, i)
		case modeText, modeLong:
			n, short := f.text(buf[i:], f.pos+int64(i), atEOF)
			i += n
			if short {
				return i, true
			}
		case modeSkip:
			j := bytes.IndexByte(buf[i:], '\n')
			if j < 0 {
				return len(buf), false
			}
			i += j
			f.mode, f.stack, f.deep = modeJSON, f.stack[:0], 0
		}
	}
	return i, false
}

// isText says whether a string value starting now is at one of texts.
func (f *Filter) isText() bool {
	if len(f.stack) == 0 || len(f.stack) > maxTextDepth || f.deep > 0 {
		return false
	}
	var b strings.Builder
	for i, fr := range f.stack {
		if i > 0 {
			b.WriteByte('/')
		}
		if fr.obj {
			b.WriteString(fr.key)
		} else {
			b.WriteString("[]")
		}
	}
	return texts[b.String()]
}

// passString passes a string through to its closing quote, keeping a
// key's first bytes. A newline in it is not JSON: the line ends there,
// and the next starts afresh.
func (f *Filter) passString(buf []byte, i int) int {
	for ; i < len(buf); i++ {
		c := buf[i]
		switch {
		case f.escaped:
			f.escaped = false
		case c == '\\':
			f.escaped = true
		case c == '"':
			if f.mode == modeKey && len(f.stack) > 0 {
				f.stack[len(f.stack)-1].key = string(f.key)
			}
			f.out = append(f.out, c)
			f.mode = modeJSON
			return i + 1
		case c == '\n':
			f.mode, f.stack, f.deep = modeJSON, f.stack[:0], 0
			return i
		}
		if f.mode == modeKey && len(f.key) < 32 {
			f.key = append(f.key, c)
		}
		f.out = append(f.out, c)
	}
	return i
}

// text reads a text that may be taken out: held while it is short, taken
// out once it is not (unless it is an error result), passed through when
// it ends short or is broken. off is b's offset in the input.
func (f *Filter) text(b []byte, off int64, atEOF bool) (int, bool) {
	dec, n, end, bad := decode(f.scratch[:0], b, atEOF)
	f.scratch = dec[:0]
	f.n += int64(len(dec))
	if len(dec) > 0 {
		f.last = dec[len(dec)-1]
	}
	if len(f.head) < len(errorPrefix) {
		f.head = append(f.head, dec[:min(len(dec), len(errorPrefix)-len(f.head))]...)
	}
	body := b[:n]
	if end {
		body = body[:n-1]
	}
	f.tail = append(f.tail, body[max(0, len(body)-6):]...)
	f.tail = f.tail[max(0, len(f.tail)-6):]
	short := !end && !bad && n == 0
	if f.mode == modeText {
		start := off - int64(len(f.cand)) // the text's first byte
		f.cand = append(f.cand, b[:n]...)
		size := len(f.cand)
		if end {
			size--
		}
		switch {
		case size > f.limit && string(f.head) != errorPrefix:
			f.id = len(f.Store.refs)
			f.Store.refs = append(f.Store.refs, ref{off: start})
			f.mode = modeLong
		case end:
			f.out = append(append(f.out, '"'), f.cand...)
			f.mode = modeJSON
			return n, false
		case bad || size > f.limit:
			f.out = append(append(f.out, '"'), f.cand...)
			f.mode, f.escaped = modeString, false // decode stops before an escape, never in one
			return n, false
		default:
			return n, short
		}
	}
	switch {
	case end:
		// A text ending in a newline keeps it here, for what tells a text
		// by how it ends.
		r, nl := &f.Store.refs[f.id], ""
		r.raw, r.n = off+int64(n-1)-r.off, f.n
		if f.last == '\n' {
			k := 6
			if bytes.HasSuffix(f.tail, []byte(`\n`)) {
				k = 2
			}
			r.raw, r.n, nl = r.raw-int64(k), r.n-1, `\n`
		}
		f.out = append(append(append(append(f.out, '"'), f.marker(f.id)...), nl...), '"')
		f.mode = modeJSON
	case bad:
		// What broke it follows the reference, and the line goes no
		// further: the reader reports the same error on the same line.
		rest := b[n:]
		k := min(len(rest), 6)
		if j := bytes.IndexByte(rest[:k], '\n'); j >= 0 {
			k = j
		}
		f.out = append(append(append(f.out, '"'), f.marker(f.id)...), rest[:k]...)
		f.mode = modeSkip
		return n + k, false
	}
	return n, short
}
