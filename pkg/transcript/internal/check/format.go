package check

import (
	"bytes"
	"fmt"
	"strings"
)

// A Format is one kind of file validate reads: a log some tool writes, or
// the bodies some API takes. Each lives in a folder of its own (under
// pkg/transcript/format), beside its tests and real files; pkg/transcript
// lists them, and Validate picks the one whose Sniff is surest.
type Format interface {
	// Info names the format and says what it reads.
	Info() Info
	// Sniff says how sure the format is that a file that starts as h does
	// is one of its own. It looks at nothing but h.
	Sniff(h *Head) Confidence
	// Open reads the file f, handing each conversation's messages to the
	// checker a message at a time (File.StartConv, Conv.Add), and returns
	// when the input ends. The error is for an input that cannot be read;
	// what is wrong with the content is reported as findings.
	Open(f *File) error
}

// Info describes a format for --input, --list-formats and the summary.
type Info struct {
	// Name is what --input takes and what the summary counts files under:
	// "claude-code".
	Name string
	// Reads says what the files are, for a sentence: "Claude Code session
	// log".
	Reads string
	// Writer is the tool or API that writes them.
	Writer string
	// Example is where such a file is found.
	Example string
	// ByShape: the summary names files by the Shape of their
	// conversations ("openai-messages"), as the format holds any API's.
	ByShape bool
}

// Confidence is how sure a format's Sniff is that a file is its own. The
// surest format reads the file; between formats equally sure, the first
// listed.
type Confidence int

// Confidences, in increasing order.
const (
	// No: not a file of this format.
	No Confidence = iota
	// Fallback: the format reads any file of its kind (JSON lines, a JSON
	// document) and checks what it recognises.
	Fallback
	// Possible: the file has what this format's files have, and what other
	// formats' files have too.
	Possible
	// Likely: the file has what this format's files have, and few others.
	Likely
	// Certain: the file has what only this format's files have.
	Certain
)

// Registry is the formats validate knows, in the order they are listed.
type Registry []Format

// Lookup finds a format by name.
func (r Registry) Lookup(name string) Format {
	for _, f := range r {
		if f.Info().Name == name {
			return f
		}
	}
	return nil
}

// Names are the formats' names, in order.
func (r Registry) Names() []string {
	names := make([]string, len(r))
	for i, f := range r {
		names[i] = f.Info().Name
	}
	return names
}

// Sniff picks the format surest of the file that starts as h: nil, No when
// none recognises it.
func (r Registry) Sniff(h *Head) (Format, Confidence) {
	var best Format
	sure := No
	for _, f := range r {
		if c := f.Sniff(h); c > sure {
			best, sure = f, c
		}
	}
	return best, sure
}

// Check panics when two formats share a name, or one lacks what --list-formats
// prints: a programming error, found by any test that validates a file.
func (r Registry) Check() {
	seen := map[string]bool{}
	for _, f := range r {
		in := f.Info()
		if in.Name == "" || in.Reads == "" || in.Writer == "" || in.Example == "" {
			panic(fmt.Sprintf("check: format %q does not say what it reads, who writes it and where", in.Name))
		}
		if seen[in.Name] {
			panic("check: two formats named " + in.Name)
		}
		seen[in.Name] = true
	}
}

// Head is the start of a file, for the formats' Sniff: the first window of
// its bytes, once a gzip stream or UTF-16 is undone and a byte order mark
// removed, with what can be read of it as JSON.
type Head struct {
	// Data is the window: the first MiB of the file, or all of it (Whole).
	Data  []byte
	Whole bool

	lineDone bool
	line     FirstLine
	lineOK   bool
	docDone  bool
	doc      Fields
	docOK    bool
}

// NewHead returns the head of a file whose first bytes are data; whole says
// they are all of it.
func NewHead(data []byte, whole bool) *Head { return &Head{Data: data, Whole: whole} }

// Zip reports whether the file is a ZIP archive.
func (h *Head) Zip() bool { return bytes.HasPrefix(h.Data, []byte("PK\x03\x04")) }

// Empty reports whether the file holds nothing but whitespace.
func (h *Head) Empty() bool { return h.Whole && len(bytes.TrimSpace(h.Data)) == 0 }

// first is the first byte that is not whitespace, and its offset; 0 and -1
// when there is none.
func (h *Head) first() (byte, int) {
	for i, c := range h.Data {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, i
		}
	}
	return 0, -1
}

// Array reports whether the file is one JSON array (of messages): its first
// byte not blank is '['.
func (h *Head) Array() bool {
	c, _ := h.first()
	return c == '['
}

// Document returns the top-level keys of a file that is one JSON object
// written over many lines (pretty-printed), or on one line longer than the
// window whose keys are not those of a JSON line (see Line): ok is false
// for anything else. The keys are those the window shows.
func (h *Head) Document() (keys Fields, ok bool) {
	if h.docDone {
		return h.doc, h.docOK
	}
	h.docDone = true
	c, at := h.first()
	if c != '{' {
		return nil, false
	}
	rest := h.Data[at:]
	j := bytes.IndexByte(rest, '\n')
	first := rest
	if j >= 0 {
		first = bytes.TrimSuffix(rest[:j], []byte("\r"))
	}
	switch {
	case j < 0 && !h.Whole:
		// One line longer than the window: a document unless its start
		// looks like a line of a log or a message.
		fs, _ := TopFields(rest)
		if fs.recordLike() {
			return nil, false
		}
		h.doc, h.docOK = fs, true
	case JSONValue(first):
		// A whole object on the first line: a JSON line, which Line reads.
		return nil, false
	default:
		var s Scanner
		s.Reset(first)
		s.Skip()
		s.End()
		if err := s.Err(); err != nil && err.Off < len(first) {
			return nil, false // broken on its first line: not JSON
		}
		h.doc, _ = TopFields(rest)
		h.docOK = true
	}
	return h.doc, h.docOK
}

// recordLike reports whether the keys of an object's start are those of a
// message or a line of a log rather than of a request body or another
// whole-file document.
func (fs Fields) recordLike() bool {
	for _, f := range fs {
		switch f.Key {
		case "role", "content", "type", "seq", "tool_calls", "tool_call_id", "parts", "message",
			"parentUuid", "uuid", "sessionId", "payload":
			return true
		case "messages", "input", "model", "tools", "system", "contents", "traj",
			"samples", "history", "log", "eval", "trajectory":
			return false
		}
	}
	return false
}

// FirstLine is what the window shows of a file's first line that is JSON.
type FirstLine struct {
	// Fields are its top-level keys, when it is an object.
	Fields
	// Kind is the kind of its value (KindObject, KindArray…).
	Kind byte
	// Partial: the line is longer than the window, which shows its start.
	Partial bool
}

// Line returns the file's first line that is JSON (blank lines, and lines
// that are not JSON, may come before it), for files of JSON lines: ok is
// false when the window holds none, and for a whole-file document (Array,
// Document). A first line longer than the window
// gives what the window shows of it.
func (h *Head) Line() (line FirstLine, ok bool) {
	if h.lineDone {
		return h.line, h.lineOK
	}
	h.lineDone = true
	if _, doc := h.Document(); doc || h.Array() {
		return FirstLine{}, false
	}
	for rest := h.Data; len(rest) > 0; {
		text := rest
		j := bytes.IndexByte(rest, '\n')
		if j >= 0 {
			text, rest = rest[:j], rest[j+1:]
		} else {
			rest = nil
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		trimmed := bytes.TrimSpace(text)
		if len(trimmed) == 0 {
			continue
		}
		if j < 0 && !h.Whole {
			// Cut by the window: what it shows.
			h.line.Fields, _ = TopFields(trimmed)
			h.line.Kind, h.line.Partial = KindOf(trimmed[0]), true
			h.lineOK = true
			return h.line, true
		}
		if !JSONValue(text) {
			continue
		}
		h.line.Fields, _ = TopFields(trimmed)
		h.line.Kind = KindOf(trimmed[0])
		h.lineOK = true
		return h.line, true
	}
	return FirstLine{}, false
}

// Object returns the top-level keys of the JSON object the file is, over
// many lines (Document) or on its first (Line): ok is false when it is
// neither.
func (h *Head) Object() (Fields, bool) {
	if keys, ok := h.Document(); ok {
		return keys, true
	}
	if line, ok := h.Line(); ok && line.Kind == KindObject {
		return line.Fields, true
	}
	return nil, false
}

// JSONValue reports whether b is one JSON value.
func JSONValue(b []byte) bool {
	var s Scanner
	s.Reset(b)
	s.Skip()
	s.End()
	return s.Err() == nil
}

// Field is a top-level key of an object and what the window shows of its
// value.
type Field struct {
	Key  string
	Kind byte // the kind of the value (KindObject…)
	// Str is the value of a string, decoded; empty for other kinds.
	Str string
	// Raw is the value as far as the window shows it.
	Raw []byte
}

// Fields are the top-level keys of an object, in order.
type Fields []Field

// Get returns the first field named key.
func (fs Fields) Get(key string) (Field, bool) {
	for _, f := range fs {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Has reports whether key is there with a value of kind k (any kind when k
// is KindAbsent).
func (fs Fields) Has(key string, k byte) bool {
	f, ok := fs.Get(key)
	return ok && (k == KindAbsent || f.Kind == k)
}

// Type is the value of a string "type", "" when there is none.
func (fs Fields) Type() string {
	f, _ := fs.Get("type")
	return f.Str
}

// TopFields reads the top-level keys of the object at the start of b, as
// far as b holds it: complete is false when b ends (or stops being JSON)
// before the object does.
func TopFields(b []byte) (fs Fields, complete bool) {
	var s Scanner
	s.Reset(b)
	if s.PeekKind() != KindObject {
		return nil, false
	}
	s.Enter('{')
	for n := 0; s.Next('}', &n) && s.Err() == nil; {
		key := string(s.Key())
		if s.Err() != nil {
			break
		}
		f := Field{Key: key, Kind: s.PeekKind()}
		start := s.Pos()
		if f.Kind == KindString {
			f.Str = strings.Clone(string(s.Text()))
		} else {
			s.Skip()
		}
		end := s.Pos()
		if s.Err() != nil {
			end = len(b)
		}
		f.Raw = b[start:end]
		fs = append(fs, f)
	}
	return fs, s.Err() == nil
}

// Elem returns the fields of the first element of an array value, as far as
// the window shows it; ok is false when it shows none, or it is not an
// object.
func (f Field) Elem() (Fields, bool) {
	if f.Kind != KindArray {
		return nil, false
	}
	b := bytes.TrimLeft(f.Raw, " \t\r\n")
	if len(b) == 0 {
		return nil, false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	fs, _ := TopFields(b)
	return fs, len(fs) > 0
}
