// Package linereader reads text a line at a time, for the readers of JSON lines
// in pkg/transcript: lines of any length, a NUL byte taken as the sign of
// binary data, and a last line without its newline told apart.
package linereader

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/agentloop/agentloop/internal/bytesize"
)

// Reader reads lines of any length (there is no 64 KiB limit), strips the
// line ending (LF or CRLF) and a leading UTF-8 byte order mark, and reports
// whether the last line was cut off before its newline. SetLimits makes it
// refuse lines over a length, and input holding a NUL byte.
type Reader struct {
	br   *bufio.Reader
	line int
	buf  []byte
	eof  bool

	max        int  // longest line held; 0 for no limit
	nulIsError bool // a NUL byte ends the input with a *BinaryError
}

// TooLongError is a line longer than the limit SetLimits set. The line
// was read to its end and dropped; reading can go on with the next.
type TooLongError struct {
	Line int
	Max  int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %s", e.Line, bytesize.Format(int64(e.Max)))
}

// BinaryError is a NUL byte, which no text format holds: the input is
// binary. Nothing after it is read.
type BinaryError struct {
	Line, Column int
}

func (e *BinaryError) Error() string {
	return fmt.Sprintf("NUL byte at line %d, column %d: binary data, not text", e.Line, e.Column)
}

// keepLine is the largest line buffer a LineReader keeps for reuse.
const keepLine = 1 << 20

// NewReader reads lines from r. A *bufio.Reader is read through as it is,
// its buffer not copied into another: the checker sizes its buffer to the
// file.
func NewReader(r io.Reader) *Reader {
	if br, ok := r.(*bufio.Reader); ok {
		return &Reader{br: br}
	}
	return &Reader{br: bufio.NewReaderSize(r, 256<<10)}
}

// SetLimits makes Next refuse a line longer than max bytes (0: any length)
// with a *TooLongError, holding at most max bytes of it, and, if
// refuseNUL, end the input at the first NUL byte with a *BinaryError.
func (l *Reader) SetLimits(max int, refuseNUL bool) {
	l.max, l.nulIsError = max, refuseNUL
}

// Rest is the input not read yet, after the lines Next returned.
func (l *Reader) Rest() io.Reader { return l.br }

// Skip numbers the lines from n+1 on: the reader starts after n lines read
// by another (a document that came first).
func (l *Reader) Skip(n int) { l.line = n }

// Next returns the next line and its 1-based number. complete is false for a
// final line that has no newline (a writer that died mid-record). The
// returned slice is valid until the next call. At the end it returns io.EOF.
func (l *Reader) Next() (text []byte, n int, complete bool, err error) {
	if l.eof {
		return nil, l.line, false, io.EOF
	}
	l.buf = l.buf[:0]
	tooLong := false
	for {
		chunk, err := l.br.ReadSlice('\n')
		if l.nulIsError {
			if i := bytes.IndexByte(chunk, 0); i >= 0 {
				l.eof = true
				return nil, l.line + 1, false, &BinaryError{Line: l.line + 1, Column: len(l.buf) + i + 1}
			}
		}
		if len(l.buf) == 0 && err == nil && !tooLong && (l.max <= 0 || len(chunk) <= l.max+2) {
			// The common case: the whole line is in the buffer.
			text = chunk
			break
		}
		switch {
		case tooLong:
		case l.max > 0 && len(l.buf)+len(chunk) > l.max+2: // +2: the line ending is not counted
			tooLong = true
			l.buf = l.buf[:0]
		default:
			l.buf = appendCapped(l.buf, chunk, l.max)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			l.eof = true
			if len(l.buf) == 0 && !tooLong {
				return nil, l.line, false, io.EOF
			}
			l.line++
			if tooLong {
				return nil, l.line, false, &TooLongError{Line: l.line, Max: l.max}
			}
			return l.strip(l.buf), l.line, false, nil
		}
		if err != nil {
			return nil, l.line, false, err
		}
		if tooLong {
			l.line++
			return nil, l.line, true, &TooLongError{Line: l.line, Max: l.max}
		}
		text = l.buf
		// A long line's buffer is not kept for the next: held on to, it
		// would double what a caller that decodes the line holds.
		if cap(l.buf) > keepLine {
			l.buf = nil
		}
		break
	}
	l.line++
	return l.strip(text[:len(text)-1]), l.line, true, nil
}

// appendCapped appends b to buf, growing it at most to limit (plus the line
// ending) when a limit is set, so that a long line does not cost twice its
// length.
func appendCapped(buf, b []byte, limit int) []byte {
	need := len(buf) + len(b)
	if need > cap(buf) && limit > 0 {
		grown := make([]byte, len(buf), min(max(2*cap(buf), need), limit+2))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, b...)
}

func (l *Reader) strip(b []byte) []byte {
	if l.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	return bytes.TrimSuffix(b, []byte("\r"))
}

// MayBeTorn reports whether a last line without its newline, which does
// not decode, can be a record the writer was stopped in: one that starts
// as a JSON object does. Anything else (a PNG, a ZIP, a line of text) was
// never a record, whole or cut.
func MayBeTorn(text []byte) bool {
	t := bytes.TrimLeft(text, " \t\r\xef\xbb\xbf")
	return len(t) > 0 && t[0] == '{'
}
