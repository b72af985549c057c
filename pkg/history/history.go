// Package history lists the transcripts of past runs in a folder: what ran,
// when, how it ended and what was asked, read from each file's first
// records and its last ones without reading the file whole. It also groups
// continued conversations into threads, finds a run by id prefix, and
// chooses what to prune. The runs whose transcripts were written elsewhere
// (run -o) are the folder's too: its index names them (index.go).
//
// A file that is not an agentloop transcript, or whose last line was cut
// off by a writer that died, is an Entry like any other: listed, never an
// error that stops the listing.
package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Commands whose transcript continues another: their header names a parent
// whose conversation they copy and go on with.
const (
	CommandContinue = "continue"
	CommandResume   = "resume"
)

// States of a run as the listing shows them, besides the end reasons of
// transcript.End.
const (
	StateUnfinished = "unfinished" // no end record: still running, or killed
	StateTorn       = "torn"       // the last line was cut off mid-record
	StateForeign    = "foreign"    // not an agentloop transcript
)

// headChunk and tailChunk are how much of a file is read at a time at its
// start and at its end. The header of a run with a few tools and the
// first message fit in the first; the end record in the second.
const (
	headChunk = 8 << 10
	tailChunk = 4 << 10
	// maxLine caps a line read to find a prompt or an answer: a prompt
	// read from stdin can be 16 MiB, a record around it a little more.
	maxLine = 40 << 20
)

// Entry is one file of the folder.
type Entry struct {
	Path    string
	Size    int64
	ModTime time.Time
	// Header is nil for a file that is not an agentloop transcript. Its
	// tool definitions, MCP servers and system prompt are not read (Tools
	// and MCPServers are nil, System empty).
	Header *transcript.Header
	// End is nil for a run that has not ended (or was killed).
	End *transcript.End
	// Torn is set when the last line was cut off.
	Torn bool
	// Problem says why a foreign file is not a transcript.
	Problem string
	// LastStep is the step of the last message record, for a run with no
	// end record.
	LastStep int
	// Prompt is the text of the user message this run answered: the first
	// message of a run, the new message of a continued one.
	Prompt string
	// Answer is the text of the last assistant message; read only when
	// Options.Answers asks for it.
	Answer string

	// parent is the run this one continues, when List looked for it in
	// the folder (Query.Parents): Threads places the run in its
	// conversation by it when the parent is not listed.
	parent *Entry
}

// Options say what to read beyond the header and the end.
type Options struct {
	// Answers reads the last assistant message's text too (for a search).
	Answers bool
}

// ID is the transcript's id, "" for a foreign file.
func (e *Entry) ID() string {
	if e.Header == nil {
		return ""
	}
	return e.Header.ID
}

// ShortID is the first 8 characters of the id, as the listing shows it.
func (e *Entry) ShortID() string {
	id := e.ID()
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Time is when the run started (the header's time), or the file's
// modification time for a foreign file.
func (e *Entry) Time() time.Time {
	if e.Header != nil && !e.Header.Time.IsZero() {
		return e.Header.Time
	}
	return e.ModTime
}

// State is how the run ended: an end reason (stop, max_steps, error, …),
// or StateUnfinished, StateTorn or StateForeign.
func (e *Entry) State() string {
	switch {
	case e.Header == nil && e.Torn:
		return StateTorn
	case e.Header == nil:
		return StateForeign
	case e.End != nil:
		return e.End.Reason
	case e.Torn:
		return StateTorn
	}
	return StateUnfinished
}

// Steps counts the model calls of the conversation: the end record's
// count, else the last message's step.
func (e *Entry) Steps() int {
	if e.End != nil {
		return e.End.Steps
	}
	return e.LastStep
}

// Tokens is every token the conversation used, input and output, as the
// end record counts them; 0 without one.
func (e *Entry) Tokens() int64 {
	if e.End == nil || e.Header == nil {
		return 0
	}
	return e.End.Usage.Total(e.Header.Provider)
}

// Continues reports whether the run went on with another transcript's
// conversation (-c or replay --resume).
func (e *Entry) Continues() bool {
	return e.Header != nil && e.Header.ParentID != "" && e.copies()
}

// copies reports whether the transcript starts with a conversation copied
// from another file (a continued or resumed run), so that the run's own
// prompt is not its first message: from another transcript (Continues), or
// from a file of bare messages or a request body, which has no id.
func (e *Entry) copies() bool {
	return e.Header != nil && (e.Header.ParentID != "" || e.Header.Parent != "") &&
		(e.Header.Command == CommandContinue || e.Header.Command == CommandResume)
}

// Sort orders entries newest first; the path breaks ties.
func Sort(entries []*Entry) {
	slices.SortStableFunc(entries, func(a, b *Entry) int {
		if c := b.Time().Compare(a.Time()); c != 0 {
			return c
		}
		return strings.Compare(b.Path, a.Path)
	})
}

// Read reads what the listing shows of one file. Anything wrong with the
// file is in the entry (Problem, Torn), never an error; nil means there is
// no file to list (it is gone, or it is not a regular file).
func Read(path string, opts Options) *Entry {
	return readFile(path, false, opts)
}

// readFile is Read of a file that the folder's listing may have said is a
// regular file (listed); else it is looked at before it is opened: opening
// a named pipe would wait for a writer, and opening a device can act on it.
func readFile(path string, listed bool, opts Options) *Entry {
	var fi os.FileInfo
	if !listed {
		var err error
		fi, err = os.Stat(path)
		if errors.Is(err, os.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
			return nil
		}
		if err != nil {
			return &Entry{Path: path, Problem: bareError(err)}
		}
	}
	f, info, err := openFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if fi == nil {
			fi, _ = os.Stat(path)
		}
		e := &Entry{Path: path, Problem: bareError(err)}
		if fi != nil {
			e.ModTime, e.Size = fi.ModTime(), fi.Size()
		}
		return e
	}
	defer f.Close()
	if !info.regular {
		return nil // replaced by something else since it was listed
	}
	e := &Entry{Path: path, Size: info.size, ModTime: info.modTime}
	r, release := newFileReader(f, info.size)
	defer release()
	if err := e.read(r, opts); err != nil {
		e.Header, e.End, e.Prompt, e.Answer = nil, nil, "", ""
		e.Problem = err.Error()
	}
	return e
}

// readCloser is an open file.
type readCloser interface {
	io.ReaderAt
	io.Closer
}

// fileInfo is what the listing needs to know of an open file.
type fileInfo struct {
	regular bool
	size    int64
	modTime time.Time
}

// read fills the entry from the head and the tail of the file.
func (e *Entry) read(r *fileReader, opts Options) error {
	head, err := r.head()
	if err != nil {
		return err
	}
	if len(head.line) == 0 {
		return errors.New("empty file")
	}
	h, err := decodeHeader(head.line)
	if err != nil {
		if !head.complete && isType(head.line, transcript.TypeHeader) {
			e.Torn = true
			return errors.New("the header is cut off: the writer stopped in the middle of it")
		}
		return err
	}
	e.Header = h
	if h.Command == CommandContinue && h.ParentID != "" {
		if p, ok := r.promptAfter(h.Time, head.next); ok {
			e.Prompt = p
		}
	}
	if !e.copies() {
		// The prompt of a run is its first message.
		if line, _, err := r.lineAt(head.next); err == nil && isType(line, transcript.TypeMessage) {
			if m, ok := decodeTail(line); ok && m.Role == "user" {
				e.Prompt = m.Text
			}
		}
	}
	return e.readTail(r, opts)
}

// readTail reads back from the end: the end record, the step reached, the
// answer when asked for, and the prompt of a continued run (the last user
// message with text, a few records before the end as a rule).
func (e *Entry) readTail(r *fileReader, opts Options) error {
	b := newBackLines(r)
	wantPrompt := e.copies() && e.Prompt == ""
	wantAnswer := opts.Answers
	seenMessage := false
	for first := true; ; first = false {
		line, complete, err := b.prev()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if first && !complete {
			e.Torn = true
			continue
		}
		switch {
		case isType(line, transcript.TypeEnd) && e.End == nil && !seenMessage:
			if end, ok := decodeEnd(line); ok {
				e.End = end
			}
			if !wantPrompt && !wantAnswer {
				return nil
			}
			continue
		case isType(line, transcript.TypeHeader):
			return nil
		case !isType(line, transcript.TypeMessage):
			continue
		}
		// Once the step is known, only a message that can be the answer or
		// the prompt is worth decoding; a cheap look at the line tells.
		if seenMessage && !(wantAnswer && bytes.Contains(line, []byte(`"assistant"`)) || (wantPrompt || wantAnswer && e.copies()) && bytes.Contains(line, []byte(`"user"`))) {
			continue
		}
		rec, ok := decodeTail(line)
		if !ok {
			continue
		}
		if !seenMessage {
			seenMessage, e.LastStep = true, rec.Step
		}
		switch role := rec.Role; {
		case wantAnswer && role == "assistant":
			// The answer is the last assistant message's text; one that
			// only calls tools has none.
			e.Answer, wantAnswer = rec.Text, false
		case rec.IsPrompt() && e.copies():
			if wantPrompt {
				e.Prompt, wantPrompt = rec.Text, false
			}
			// An answer before the run's prompt is an earlier run's.
			wantAnswer = false
		}
		if !wantPrompt && !wantAnswer {
			return nil
		}
	}
}

// decodeTail reads a message record's step, role and text: quickly when
// the line is as the writer writes it, else with encoding/json.
func decodeTail(line []byte) (transcript.MessageLine, bool) {
	if m, ok := transcript.QuickMessage(line); ok {
		return m, true
	}
	return slowTail(line)
}

// slowTail is decodeTail with encoding/json.
func slowTail(line []byte) (transcript.MessageLine, bool) {
	var rec struct {
		Step    int `json:"step"`
		Message struct {
			Role    string          `json:"role"`
			Content transcript.Text `json:"content"`
		} `json:"message"`
		ImagesOf []string `json:"images_of"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return transcript.MessageLine{}, false
	}
	return transcript.MessageLine{Step: rec.Step, Role: rec.Message.Role, Text: rec.Message.Content.Text, Images: len(rec.ImagesOf) > 0}, true
}

// decodeEnd reads an end record, quickly when it is as the writer writes it.
func decodeEnd(line []byte) (*transcript.End, bool) {
	if e, ok := transcript.QuickEnd(line); ok {
		return &e, true
	}
	return slowEnd(line)
}

func slowEnd(line []byte) (*transcript.End, bool) {
	var end transcript.End
	if json.Unmarshal(line, &end) != nil {
		return nil, false
	}
	return &end, true
}

// isType reports whether a line looks like a record of the type: the
// writer puts "type" first, and a cheap look saves decoding a long line.
// A record written otherwise (by another program: spaces after its
// colons and commas, "type" not first) is read for its type.
func isType(line []byte, typ string) bool {
	if rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`)); ok {
		return bytes.HasPrefix(rest, []byte(typ)) && bytes.HasPrefix(rest[len(typ):], []byte(`"`))
	}
	return recordType(line) == typ
}

// maxTypeDecode is the longest line whose "type", when it is not the first
// key, is found by decoding the line: a longer one is not taken for a
// record, rather than decoded whole each time it is looked at.
const maxTypeDecode = 1 << 20

// recordType is the type of a record not written as agentloop writes it:
// "type" first with white space around its colon, else decoded.
func recordType(line []byte) string {
	const ws = " \t\r\n"
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(line, ws), []byte("{"))
	if !ok {
		return ""
	}
	if rest, ok := bytes.CutPrefix(bytes.TrimLeft(rest, ws), []byte(`"type"`)); ok {
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, ws), []byte(":"))
		if !ok {
			return ""
		}
		rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, ws), []byte(`"`))
		if i := bytes.IndexByte(rest, '"'); ok && i >= 0 {
			return string(rest[:i])
		}
		return ""
	}
	if len(line) > maxTypeDecode {
		return ""
	}
	var rec struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return ""
	}
	return rec.Type
}

func decodeHeader(line []byte) (*transcript.Header, error) {
	if !isType(line, transcript.TypeHeader) {
		if err := notHeader(line); err != nil {
			return nil, err
		}
	}
	h, err := decodeHeaderFields(line)
	if err != nil {
		return nil, err
	}
	if h.Version != transcript.Version {
		return nil, fmt.Errorf("transcript format version %d; this agentloop reads version %d", h.Version, transcript.Version)
	}
	return h, nil
}

// decodeHeaderFields decodes a header line but for its tool definitions,
// MCP servers and system prompt (Tools and MCPServers are nil, System
// empty), which the listing does not show: quickly when it is as the
// writer writes it, else with encoding/json.
func decodeHeaderFields(line []byte) (*transcript.Header, error) {
	if h, ok := transcript.QuickHeader(line); ok {
		return &h, nil
	}
	return slowHeader(line)
}

func slowHeader(line []byte) (*transcript.Header, error) {
	var h transcript.Header
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("header: %v", err)
	}
	h.Tools, h.MCPServers, h.System = nil, nil, ""
	return &h, nil
}

// notHeader says what a first line that does not start as the writer
// starts a header is; nil when it is a header after all.
func notHeader(line []byte) error {
	var probe struct {
		Type *string `json:"type"`
		Role *string `json:"role"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		var notObject *json.UnmarshalTypeError
		if errors.As(err, &notObject) {
			return fmt.Errorf("not an agentloop transcript: the first line is a JSON %s, not a header", notObject.Value)
		}
		return errors.New("not an agentloop transcript: the first line is not JSON")
	}
	what := "a record"
	switch {
	case probe.Type != nil && *probe.Type == transcript.TypeHeader:
		// A header the writer did not write: fields in another order.
		return nil
	case probe.Role != nil:
		what = "a bare message"
	case probe.Type == nil:
		what = "a JSON value without \"type\""
	default:
		what = fmt.Sprintf("a %q record", *probe.Type)
	}
	return fmt.Errorf("not an agentloop transcript: the first line is %s, not a header", what)
}

// bareError drops the operation and path an *os.PathError repeats.
func bareError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Matches reports whether the prompt or the answer holds text, ignoring
// case. The answer is there only when the entry was read with
// Options.Answers.
func (e *Entry) Matches(text string) bool {
	return containsFold(e.Prompt, text) || containsFold(e.Answer, text)
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}
