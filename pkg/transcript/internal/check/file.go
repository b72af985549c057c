package check

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"strings"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/pkg/transcript/internal/linereader"
)

// File is one input being checked: what its format reads it with, the
// findings and counts it has so far, and the conversation being checked.
type File struct {
	gunzipped, fromUTF16 bool // the input was undone from gzip, from UTF-16 (encoding.go)

	name  string
	opts  Options
	emit  func(Finding)
	seed  maphash.Seed
	stats Stats
	ctx   context.Context
	done  <-chan struct{}
	// hold, when set, collects findings instead of emitting them.
	hold *[]Finding

	reg    Registry
	chosen Format     // the format reading the file; nil when none recognised it
	sure   Confidence // how sure its Sniff was; Certain when --input forced it
	src    io.Reader  // the input as given (a ZIP archive is read from its end)
	br     *bufio.Reader
	head   *Head
	line   int // the line the rest of br starts after, when a document came first

	format string // what the file was read as, when its format says more than its name
	shapes uint8  // the shapes of the conversations checked, a bit each
	noConv string // why nothing was checked, when it is known
	// unknownType is the type of the first object passed over as neither
	// a message nor a Responses item (conv.unknownItem).
	unknownType string
	stopped     bool   // the file was given up (binary data): nothing more is said
	bodyOf      string // for bodies recorded in cassettes and HAR files: the interaction ("interactions[2]")
	status      int    // and the status of its recorded response
	bodySc      scanner
	docBody     bool  // the document streamed is a request body (DocReader.Body)
	presume     shape // the shape every conversation of the file starts in (PresumeShape)
	bodies      int   // the request bodies of a recording checked

	// What the format says of its writer.
	tornIsWarning bool // a last line cut short is the writer stopped mid-record
	emptyIsRun    bool // with --allow-pending, no message is a run stopped before its first

	sc       scanner
	sub      scanner // for documents inside strings: arguments
	msg      Msg
	conv     conv
	tmpNames map[string]struct{} // see toolNames
}

// PresumeShape says the shape the conversations started from now on are
// written in, when the format (or a recorded request's endpoint) says it
// and their messages may not: Ollama's messages look like Chat
// Completions ones. --shape wins; the zero Shape undoes it.
func (v *File) PresumeShape(s Shape) { v.presume = s }

// OpenBodies reads a file of request bodies of one API, shape s: one
// document, or one body a line. A line is read in the shape only when ours
// says it shows it is one (or --input names the format), so that a log of
// several APIs' bodies is not read all in one's shape.
func (v *File) OpenBodies(s Shape, name string, ours func(Fields) bool) error {
	if _, doc := v.Head().Document(); doc {
		v.PresumeShape(s)
		return v.ReadDocument(&DocReader{Body: true})
	}
	return v.Lines(func(text []byte, n int, complete bool) {
		keys, _ := TopFields(text)
		if ours(keys) || v.Options().Input == name {
			v.PresumeShape(s)
		} else {
			v.PresumeShape(0)
		}
		v.ConversationLine(text, n, complete)
	})
}

// Name is the file's name in findings.
func (v *File) Name() string { return v.name }

// Options are the options it is checked with.
func (v *File) Options() *Options { return &v.opts }

// Head is the start of the file, as its format's Sniff saw it.
func (v *File) Head() *Head { return v.head }

// Source is the input as given, before any gzip or UTF-16 was undone.
func (v *File) Source() io.Reader { return v.src }

// Scanner is the scanner the file's lines and values are read with.
func (v *File) Scanner() *Scanner { return &v.sc }

// Msg is a message to read into (Scanner.ReadMsg), reused.
func (v *File) Msg() *Msg { return &v.msg }

// Conv is the file's conversation (StartConv).
func (v *File) Conv() *Conv { return &v.conv }

// Hash hashes an id with the file's seed.
func (v *File) Hash(b []byte) uint64 { return maphash.Bytes(v.seed, b) }

// SetFormat names what the file is read as, when its format's name does
// not say it: "zip" for an archive not read.
func (v *File) SetFormat(name string) { v.format = name }

// NothingChecked says why nothing in the file could be checked, for the
// no-conversation finding at its end, should no message be found.
func (v *File) NothingChecked(why string) { v.noConv = why }

// AddConversations counts n more conversations (or fewer: n < 0, for an
// object that turned out to hold conversations rather than be one).
func (v *File) AddConversations(n int) { v.stats.Conversations += n }

// Messages is how many messages were read so far.
func (v *File) Messages() int { return v.stats.Messages }

// TornIsWarning says the writer is stopped mid-record at times (agentloop
// transcripts): a last line cut short is a warning, not an error.
func (v *File) TornIsWarning() { v.tornIsWarning = true }

// EmptyIsRun says a file of this format without messages is a run stopped
// before its first, which --allow-pending accepts.
func (v *File) EmptyIsRun() { v.emptyIsRun = true }

// Stop gives the file up after a finding that says why (binary data):
// nothing more is said of it.
func (v *File) Stop() { v.stopped = true }

// Rename names the file otherwise in the findings that follow (a member of
// an archive: log.eval/samples/1_epoch_1.json).
func (v *File) Rename(name string) { v.name = name }

// Stopped reports whether the file was given up (binary data): its
// conversations are not finished, and nothing more is said of it.
func (v *File) Stopped() bool { return v.stopped }

// Interrupted reports whether the caller's context is done. It is asked
// every few hundred lines or values.
func (v *File) Interrupted() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// Err is the error a format returns when it stops because Interrupted.
func (v *File) Err() error { return v.ctx.Err() }

// Emit reports a finding: held while a shape is not known, named after the
// recorded body it is in, counted.
func (v *File) Emit(f Finding) {
	if v.hold != nil {
		*v.hold = append(*v.hold, f)
		return
	}
	if v.bodyOf != "" {
		if f.Path == "" {
			f.Path = v.bodyOf
		} else {
			f.Path = v.bodyOf + " " + f.Path
		}
		f.Status = v.status
	}
	if v.opts.Strict && f.Severity == Warning {
		f.Severity = Error
	}
	if f.Severity == Error {
		v.stats.Errors++
	} else {
		v.stats.Warnings++
	}
	v.emit(f)
}

func (v *File) emitFinding(f Finding) { v.Emit(f) }

// Finding reports something about a line rather than a message (0: the file
// as a whole).
func (v *File) Finding(line int, sev Severity, code, format string, args ...any) {
	v.Emit(Finding{File: v.name, Line: line, Index: -1, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (v *File) fileFinding(line int, sev Severity, code, format string, args ...any) {
	v.Finding(line, sev, code, format, args...)
}

// NotJSON reports a line that does not parse, and makes the conversation
// forget what the lost line might have said.
func (v *File) NotJSON(text []byte, n int, complete bool) {
	var s scanner
	s.Reset(text)
	s.Skip()
	s.End()
	msg := "not JSON"
	err := s.Err()
	if err != nil {
		msg = fmt.Sprintf("%s at column %d", err.Msg, err.Off+1)
	}
	switch {
	case v.bodyOf != "":
		if err != nil {
			msg = fmt.Sprintf("%s at offset %d", err.Msg, err.Off)
		}
		v.fileFinding(n, Error, "not-json", "the recorded request body is not JSON: %s", msg)
	case !complete && linereader.MayBeTorn(text):
		sev := Error
		why := "the file ends in the middle of a line"
		if v.tornIsWarning {
			sev, why = Warning, "the writer was stopped mid-record"
		}
		v.fileFinding(n, sev, "truncated-line", "last line is incomplete (%s): %s", why, msg)
	default:
		v.fileFinding(n, Error, "not-json", "line is not JSON: %s", msg)
	}
	if v.conv.v != nil {
		v.conv.lost()
	}
}

func (v *File) notJSON(text []byte, n int, complete bool) { v.NotJSON(text, n, complete) }

// ObjectLine starts reading a line that must hold a JSON object, what the
// format calls it: the scanner is left at its start. Any other line is
// reported (not JSON, or JSON of another kind) and ObjectLine returns false.
func (v *File) ObjectLine(text []byte, n int, complete bool, what string) bool {
	s := &v.sc
	s.Reset(text)
	if s.PeekKind() == KindObject {
		return true
	}
	s.Skip()
	s.End()
	if s.failed() {
		v.notJSON(text, n, complete)
		return false
	}
	v.fileFinding(n, Error, "invalid-record", "line is %s, not %s", KindName(KindOf(bytes.TrimSpace(text)[0])), what)
	return false
}

// StartConv starts the file's conversation, from line on: kind says where
// it comes from, array names its messages ("messages": messages[3]) when
// they are elements of an array.
func (v *File) StartConv(line int, kind ConvKind, array string) *Conv {
	v.conv.reset(v, kind, array)
	v.conv.start = line
	v.stats.Conversations++
	return &v.conv
}

func (v *File) startConv(line int, kind ConvKind, array string) { v.StartConv(line, kind, array) }

// NewConv is a conversation of its own, for a format that checks several at
// once (the branches of a Claude Code session), which counts it when its
// first message comes (AddConversations).
func (v *File) NewConv(line int, kind ConvKind) *Conv {
	c := &Conv{}
	c.reset(v, kind, "")
	c.start = line
	return c
}

// detectWindow is how much of the start of a file is looked at to tell its
// format, and the size of the read buffer.
const detectWindow = 1 << 20

// bufferSize is the size of the read buffer for r: the detection window,
// or, for an input known to be smaller (a regular file, a byte slice), one
// byte more than the input, so that it is read to its end at once. Each
// file checked would otherwise allocate and clear a MiB: more than the
// checking itself costs on a session log of a few kilobytes, and
// `validate ~/.claude/projects/*/*.jsonl` reads thousands of them.
func bufferSize(r io.Reader) int {
	size := int64(-1)
	switch x := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }: // *os.File
		if fi, err := x.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	case interface{ Len() int }: // *bytes.Reader, *strings.Reader
		size = int64(x.Len())
	}
	if size < 0 || size >= detectWindow {
		return detectWindow
	}
	return max(int(size)+1, 4096)
}

func (v *File) run(r io.Reader) error {
	if v.src == nil {
		v.src = r
	}
	br := bufio.NewReaderSize(r, bufferSize(r))
	if dr, err := v.decoded(br); dr != nil || err != nil {
		if err != nil {
			return err
		}
		v.src = dr
		return v.run(dr)
	}
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	// A file that grew past the size it had when its buffer was sized
	// is told by what the buffer holds.
	peek, err := br.Peek(min(detectWindow, br.Size()))
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return fmt.Errorf("read %s: %w", v.name, err)
	}
	v.br = br
	v.head = NewHead(peek, err == io.EOF)
	if in := v.opts.Input; in != "" {
		v.chosen, v.sure = v.reg.Lookup(in), Certain
	} else {
		v.chosen, v.sure = v.reg.Sniff(v.head)
	}
	if v.head.Zip() && (v.chosen == nil || v.chosen.Sniff(v.head) == No) {
		v.stopped, v.format = true, "zip"
		v.fileFinding(1, Error, "binary-file", "a ZIP archive, not text%s", v.zipHint())
		return nil
	}
	if be := binaryAt(peek); be != nil && !v.head.Zip() {
		if v.opts.Input == "" {
			v.format = "binary"
		}
		v.binary(be)
		return nil
	}
	if len(bytes.TrimSpace(peek)) == 0 {
		v.noConv = "the file is empty"
	}
	if v.chosen == nil {
		err = v.Lines(func(text []byte, n int, complete bool) { v.notJSON(text, n, complete) })
	} else {
		err = v.chosen.Open(v)
	}
	if err == nil {
		v.finishFile()
	}
	return err
}

// zipHint says which formats read ZIP archives, and how.
func (v *File) zipHint() string {
	for _, f := range v.reg {
		if f.Sniff(v.head) > No && f != v.chosen {
			in := f.Info()
			return fmt.Sprintf(" (%s reads it as an archive: %s)", in.Name, in.Reads)
		}
	}
	return ""
}

// LineReader is a reader of the input's lines with the limits of the
// options, for a format that reads its lines itself.
func (v *File) LineReader() *linereader.Reader {
	lr := linereader.NewReader(v.br)
	lr.SetLimits(v.opts.MaxLine, true)
	lr.Skip(v.line)
	return lr
}

// Lines reads the input a line at a time, blank lines left out, and calls
// fn with each line's text, its number and whether it ended with a newline
// (the text is valid until the next call; the scanner's arena is reset
// before each). A line over the limit, and binary data, are reported here.
// It returns nil at the end of the input, and after binary data (Stopped).
func (v *File) Lines(fn func(text []byte, n int, complete bool)) error {
	lr := v.LineReader()
	for count := 0; ; count++ {
		if count&255 == 0 && v.Interrupted() {
			return v.ctx.Err()
		}
		text, n, complete, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if _, ok := err.(*linereader.TooLongError); ok {
				v.TooLong(n, fmt.Sprintf("line %d", n))
				continue
			}
			return v.ReadError(err)
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		v.sc.ResetArena()
		fn(text, n, complete)
	}
}

// binaryAt finds what makes data binary: a NUL byte, which no text format
// holds, or a start that is mostly control bytes.
func binaryAt(data []byte) *linereader.BinaryError {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		line := 1 + bytes.Count(data[:i], []byte{'\n'})
		col := i - bytes.LastIndexByte(data[:i], '\n')
		return &linereader.BinaryError{Line: line, Column: col}
	}
	head := data[:min(len(data), 4096)]
	if len(head) < 64 {
		return nil
	}
	ctl := 0
	for _, c := range head {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' {
			ctl++
		}
	}
	if ctl*10 > len(head) {
		return &linereader.BinaryError{Line: 1, Column: 1}
	}
	return nil
}

// binary gives up a file of binary data with one finding, as grep says
// "binary file matches" rather than print it.
func (v *File) binary(e *linereader.BinaryError) {
	v.stopped = true
	v.fileFinding(e.Line, Error, "binary-file", "binary data, not text (%s); the file is not checked further", binaryWhat(e))
}

func binaryWhat(e *linereader.BinaryError) string {
	if e.Column > 0 && e.Line > 0 {
		return fmt.Sprintf("a NUL byte at line %d, column %d", e.Line, e.Column)
	}
	return "control bytes"
}

// ReadError reports an error of the reader: binary data is a finding that
// ends the file (Stopped), and nil is returned; anything else is the file
// being unreadable, the error returned.
func (v *File) ReadError(err error) error {
	var be *linereader.BinaryError
	if errors.As(err, &be) {
		v.binary(be)
		return nil
	}
	return fmt.Errorf("read %s: %w", v.name, err)
}

// TooLong reports a line (or a value of a streamed document) over the
// length limit, which was read to its end and dropped.
func (v *File) TooLong(line int, what string) {
	v.fileFinding(line, Error, "line-too-long", "%s is longer than %s, the most validate holds in memory; it is not checked (raise the limit with --max-line)",
		what, bytesize.Format(int64(v.opts.MaxLine)))
	if v.conv.v != nil {
		v.conv.lost()
	}
}

// finishFile says so when nothing in the file was checked: a file where no
// conversation was recognised is not one without problems.
func (v *File) finishFile() {
	if v.stopped {
		return
	}
	// A conversation of an unknown shape (Gemini's contents) has had its
	// warning; objects of no known type are not one.
	if v.stats.Messages > 0 || v.stats.Errors > 0 || v.stats.Warnings > 0 && v.unknownType == "" {
		return
	}
	why := v.noConv
	switch {
	case why != "":
	case strings.HasPrefix(v.unknownType, "role "):
		why = fmt.Sprintf("no message found, only lines of roles such as %q, which no API has", strings.TrimPrefix(v.unknownType, "role "))
	case v.unknownType != "":
		why = fmt.Sprintf("no message found, only objects of types such as %q, which no API reads", v.unknownType)
	case v.stats.Conversations > 0:
		why = "no message found"
	default:
		why = "no conversation or message was recognised"
	}
	// What was begun as a conversation held no message: none was checked.
	v.stats.Conversations = v.stats.Unchecked
	sev := Error
	if v.opts.AllowPending && (v.emptyIsRun || v.noConv == "the file is empty") {
		// A run in progress, stopped before its first message: what
		// --allow-pending accepts, said so.
		sev, why = Warning, why+" (a run stopped before its first message?)"
	}
	v.fileFinding(0, sev, "no-conversation", "%s: nothing was checked", why)
}

// Describe says what a format is in a sentence: "Claude Code session log";
// the name itself for one it does not know.
func (v *File) Describe(name string) string {
	if f := v.reg.Lookup(name); f != nil {
		return f.Info().Reads
	}
	return name
}

// label names the file's format for the summary: the format's name, and
// for formats that hold messages of any API, the shape of its
// conversations when they share one.
func (v *File) label() string {
	if v.format != "" {
		return v.format
	}
	if v.chosen == nil || v.sure == Fallback && v.stats.Conversations == 0 {
		return "unknown"
	}
	in := v.chosen.Info()
	if !in.ByShape {
		return in.Name
	}
	for _, s := range []Shape{ShapeOpenAI, ShapeAnthropic, ShapeResponses, ShapeGemini, ShapeBedrock, ShapeOllama} {
		if v.shapes == 1<<s {
			return s.Label() + "-" + in.Name
		}
	}
	return in.Name
}

// PassedOver counts a line of the file passed over as one its format does
// not know (see Stats.Skipped).
func (v *File) PassedOver() { v.stats.Skipped++ }

// uncheckedConv counts a conversation whose tool calls are not checked.
func (v *File) uncheckedConv() { v.stats.Unchecked++ }

// uncheckedSeverity is the severity of a conversation not checked: an
// error, as a file is not passed on calls nobody checked, unless
// --allow-unchecked accepts it.
func (v *File) uncheckedSeverity() Severity {
	if v.opts.AllowUnchecked {
		return Warning
	}
	return Error
}

// uncheckedHint says how to accept a conversation not checked, when it is
// not.
func (v *File) uncheckedHint() string {
	if v.opts.AllowUnchecked {
		return ""
	}
	return " (--allow-unchecked accepts it)"
}
