package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript/internal/linereader"
)

// LineReader reads lines of any length; see linereader.Reader.
type LineReader = linereader.Reader

// LineTooLongError is a line longer than a LineReader's limit.
type LineTooLongError = linereader.TooLongError

// BinaryError is a NUL byte, which no text format holds: the input is
// binary. Nothing after it is read.
type BinaryError = linereader.BinaryError

// NewLineReader reads lines from r.
func NewLineReader(r io.Reader) *LineReader { return linereader.NewReader(r) }

// Record is one record of a transcript, decoded.
type Record struct {
	Line    int
	Type    string
	Header  *Header
	Message *Message
	Result  *CallResult
	End     *End
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
			if !complete && linereader.MayBeTorn(text) {
				return nil, &LineError{Line: n, Torn: true, Err: err}
			}
			return nil, &LineError{Line: n, Err: err}
		}
		rec.Line = n
		return rec, nil
	}
}

// ParseRecord decodes one line of a transcript.
func ParseRecord(line []byte) (*Record, error) { return decodeRecord(line) }

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
