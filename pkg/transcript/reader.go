package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/bytesize"
)

// LineReader reads lines of any length (there is no 64 KiB limit), strips the
// line ending (LF or CRLF) and a leading UTF-8 byte order mark, and reports
// whether the last line was cut off before its newline. SetLimits makes it
// refuse lines over a length, and input holding a NUL byte.
type LineReader struct {
	br   *bufio.Reader
	line int
	buf  []byte
	eof  bool

	max        int  // longest line held; 0 for no limit
	nulIsError bool // a NUL byte ends the input with a *BinaryError
}

// LineTooLongError is a line longer than the limit SetLimits set. The line
// was read to its end and dropped; reading can go on with the next.
type LineTooLongError struct {
	Line int
	Max  int
}

func (e *LineTooLongError) Error() string {
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

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, 256<<10)}
}

// SetLimits makes Next refuse a line longer than max bytes (0: any length)
// with a *LineTooLongError, holding at most max bytes of it, and, if
// refuseNUL, end the input at the first NUL byte with a *BinaryError.
func (l *LineReader) SetLimits(max int, refuseNUL bool) {
	l.max, l.nulIsError = max, refuseNUL
}

// Next returns the next line and its 1-based number. complete is false for a
// final line that has no newline (a writer that died mid-record). The
// returned slice is valid until the next call. At the end it returns io.EOF.
func (l *LineReader) Next() (text []byte, n int, complete bool, err error) {
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
				return nil, l.line, false, &LineTooLongError{Line: l.line, Max: l.max}
			}
			return l.strip(l.buf), l.line, false, nil
		}
		if err != nil {
			return nil, l.line, false, err
		}
		if tooLong {
			l.line++
			return nil, l.line, true, &LineTooLongError{Line: l.line, Max: l.max}
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

func (l *LineReader) strip(b []byte) []byte {
	if l.line == 1 {
		b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	}
	return bytes.TrimSuffix(b, []byte("\r"))
}

// Record is one record of a transcript, decoded.
type Record struct {
	Line    int
	Type    string
	Header  *Header
	Message *Message
	Result  *CallResult
	End     *End
}

// mayBeTorn reports whether a last line without its newline, which does
// not decode, can be a record the writer was stopped in: one that starts
// as a JSON object does. Anything else (a PNG, a ZIP, a line of text) was
// never a record, whole or cut.
func mayBeTorn(text []byte) bool {
	t := bytes.TrimLeft(text, " \t\r\xef\xbb\xbf")
	return len(t) > 0 && t[0] == '{'
}

// LineError is a record that could not be read.
type LineError struct {
	Line int
	// Torn is set for a final line without a newline: the writer was killed
	// while writing it. Readers report it once and go on.
	Torn bool
	Err  error
}

func (e *LineError) Error() string {
	if e.Torn {
		return fmt.Sprintf("line %d: incomplete last record (the writer stopped mid-line): %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %v", e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// Reader reads the records of an agentloop transcript.
type Reader struct {
	lr *LineReader
}

// NewReader reads records from r.
func NewReader(r io.Reader) *Reader { return &Reader{lr: NewLineReader(r)} }

// Next returns the next record, io.EOF at the end, or a *LineError for a
// line that is not a record (the caller may go on reading after it). Blank
// lines are skipped.
func (r *Reader) Next() (*Record, error) {
	for {
		text, n, complete, err := r.lr.Next()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		rec, err := decodeRecord(text)
		if err != nil {
			if !complete && mayBeTorn(text) {
				return nil, &LineError{Line: n, Torn: true, Err: err}
			}
			return nil, &LineError{Line: n, Err: err}
		}
		rec.Line = n
		return rec, nil
	}
}

func decodeRecord(text []byte) (*Record, error) {
	var probe struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(text, &probe); err != nil {
		return nil, probeError(err)
	}
	if probe.Type == nil {
		return nil, errors.New(`no "type" field: not an agentloop record`)
	}
	rec := &Record{Type: *probe.Type}
	var err error
	switch rec.Type {
	case TypeHeader:
		rec.Header = new(Header)
		err = json.Unmarshal(text, rec.Header)
		if err == nil {
			err = versionProblem(rec.Header.Version)
		}
	case TypeMessage:
		rec.Message = new(Message)
		err = json.Unmarshal(text, rec.Message)
		if err == nil && len(rec.Message.Message) == 0 {
			err = errors.New(`message record without a "message" field`)
		}
	case TypeResult:
		rec.Result = new(CallResult)
		err = json.Unmarshal(text, rec.Result)
		if err == nil && rec.Result.CallID == "" {
			err = errors.New(`result record without a "call_id"`)
		}
	case TypeEnd:
		rec.End = new(End)
		err = json.Unmarshal(text, rec.End)
	default:
		return nil, fmt.Errorf("unknown record type %q (want header, message, result or end)", rec.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", rec.Type, fieldTypeError(err))
	}
	return rec, nil
}

// versionProblem refuses a header of another format version than this
// agentloop writes and reads: a newer one may mean other things by the same
// fields, and a header without one was not written by agentloop.
func versionProblem(v int) error {
	if v == 0 {
		return fmt.Errorf(`no "version" (want %d)`, Version)
	}
	if v != Version {
		return fmt.Errorf("format version %d; this agentloop reads version %d (a newer agentloop wrote it?)", v, Version)
	}
	return nil
}

// probeError explains why a line's "type" could not be read: it is not
// JSON, or its "type" is not a string.
func probeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fieldTypeError(err)
	}
	return fmt.Errorf("not a JSON object: %w", err)
}

// fieldTypeError says which field of a record has a value of the wrong
// type in the words validate uses, rather than in Go's.
func fieldTypeError(err error) error {
	// "time" is the only time.Time of the records; its decoder's errors
	// name no field.
	var pe *time.ParseError
	if errors.As(err, &pe) || strings.HasPrefix(err.Error(), "Time.UnmarshalJSON") {
		return fmt.Errorf(`"time" is not an RFC 3339 time such as "2026-01-02T15:04:05Z": %w`, err)
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" || te.Type == nil {
		return err
	}
	want := "a " + te.Type.String()
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int64:
		want = "a whole number"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Slice:
		want = "an array"
	case reflect.Struct, reflect.Map:
		want = "an object"
	}
	got := te.Value
	switch {
	case got == "array" || got == "object":
		got = "an " + got
	case got == "bool":
		got = "a boolean"
	case strings.HasPrefix(got, "number "):
		got = strings.TrimPrefix(got, "number ")
	default:
		got = "a " + got
	}
	return fmt.Errorf("%q is %s; want %s", te.Field, got, want)
}
