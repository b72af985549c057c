// Package report writes what validating transcripts found: a line a
// finding (or a JSON object), a record a file, and a summary that says
// what the exit status says.
package report

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Finding is a finding as --json prints it.
type Finding struct {
	File      string   `json:"file"`
	Line      int      `json:"line,omitempty"`
	Index     *int     `json:"index,omitempty"`
	Path      string   `json:"path,omitempty"`
	Severity  string   `json:"severity"`
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	IDs       []string `json:"ids,omitempty"`
	Status    int      `json:"status,omitempty"`
	Confirmed bool     `json:"confirmed,omitempty"`
}

// File says, after a file's findings, what it was read as and what it
// held; or, for an input that could not be read, why.
type File struct {
	File          string `json:"file"`
	Format        string `json:"format,omitempty"`
	Conversations int    `json:"conversations"`
	Messages      int    `json:"messages"`
	ToolCalls     int    `json:"tool_calls"`
	Errors        int    `json:"errors"`
	Warnings      int    `json:"warnings"`
	Unchecked     int    `json:"unchecked"`
	Skipped       int    `json:"skipped"`
	Unreadable    string `json:"unreadable,omitempty"`
}

// SummaryJSON is the last object --json prints.
type SummaryJSON struct {
	Summary bool `json:"summary"`
	transcript.Stats
	Unreadable int `json:"unreadable"`
	// Formats counts the files read as each format; ByFormat what they
	// held.
	Formats  map[string]int         `json:"formats"`
	ByFormat map[string]FormatCount `json:"by_format"`
}

// FormatCount is what the files read as one format held: their
// conversations, and of those the ones whose tool calls were not checked.
type FormatCount struct {
	Files         int `json:"files"`
	Conversations int `json:"conversations"`
	Unchecked     int `json:"unchecked"`
}

// Tally is what checking the files found.
type Tally struct {
	Total      transcript.Stats
	Formats    map[string]FormatCount
	Unreadable int
}

// Add counts a file read.
func (r *Tally) Add(st transcript.Stats) {
	if r.Formats == nil {
		r.Formats = map[string]FormatCount{}
	}
	r.Total.Add(st)
	c := r.Formats[st.Format]
	c.Files++
	c.Conversations += st.Conversations
	c.Unchecked += st.Unchecked
	r.Formats[st.Format] = c
}

// files counts the files read as each format.
func (r *Tally) files() map[string]int {
	m := make(map[string]int, len(r.Formats))
	for k, c := range r.Formats {
		m[k] = c.Files
	}
	return m
}

// Writer writes findings as they come, from the goroutine that checks
// the files, until it is stopped.
type Writer struct {
	mu      sync.Mutex
	asJSON  bool
	errOut  io.Writer
	out     *bufio.Writer
	enc     *json.Encoder
	stopped bool
}

// NewWriter writes findings to out, as JSON Lines with asJSON; why an
// input could not be read also goes to errOut.
func NewWriter(out, errOut io.Writer, asJSON bool) *Writer {
	o := &Writer{asJSON: asJSON, errOut: errOut, out: bufio.NewWriterSize(out, 64<<10)}
	o.enc = json.NewEncoder(o.out)
	o.enc.SetEscapeHTML(false)
	return o
}

// Finding writes one finding.
func (o *Writer) Finding(f transcript.Finding) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if !o.asJSON {
		// A finding quotes ids, names and paths from the file: one line,
		// its control bytes shown, not obeyed.
		fmt.Fprintln(o.out, strings.ReplaceAll(termtext.Safe(f.String()), "\n", `\n`))
		return
	}
	jf := Finding{File: f.File, Line: f.Line, Path: f.Path, Severity: f.Severity.String(), Code: f.Code, Message: f.Message,
		IDs: f.IDs, Status: f.Status, Confirmed: f.Confirmed()}
	if f.Index >= 0 {
		jf.Index = &f.Index
	}
	o.enc.Encode(jf)
}

// File ends a file's output: its format (with --json), or why it could
// not be read (on errOut).
func (o *Writer) File(name string, st transcript.Stats, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if err != nil {
		o.out.Flush()
		fmt.Fprintf(o.errOut, "agentloop: %s\n", termtext.Safe(err.Error()))
		if o.asJSON {
			o.enc.Encode(File{File: name, Unreadable: err.Error()})
		}
		return
	}
	if o.asJSON {
		o.enc.Encode(File{File: name, Format: st.Format, Conversations: st.Conversations, Messages: st.Messages,
			ToolCalls: st.ToolCalls, Errors: st.Errors, Warnings: st.Warnings, Unchecked: st.Unchecked, Skipped: st.Skipped})
	}
}

// Stop ends the output where it is: nothing the checking goroutine finds
// after this is printed.
func (o *Writer) Stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopped = true
	o.out.Flush()
}

// Finish writes the summary of r (a line, or with --json an object) and
// flushes what is held.
func (o *Writer) Finish(r *Tally) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.asJSON {
		byFormat := r.Formats
		if byFormat == nil {
			byFormat = map[string]FormatCount{}
		}
		o.enc.Encode(SummaryJSON{Summary: true, Stats: r.Total, Unreadable: r.Unreadable, Formats: r.files(), ByFormat: byFormat})
	} else {
		fmt.Fprintln(o.out, Summary(r.Total, r.Formats, r.Unreadable))
	}
	if err := o.out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// Files checks every file in turn ("-" is stdin, read once), writing
// what it finds to o, until ctx is done.
func Files(ctx context.Context, names []string, stdin io.Reader, opts transcript.Options, o *Writer) Tally {
	r := Tally{Formats: map[string]FormatCount{}}
	stdinUsed := false
	for _, name := range names {
		if ctx.Err() != nil {
			break
		}
		shown := name
		if name == "-" {
			shown = "<stdin>"
		}
		st, err := file(ctx, stdin, name, &stdinUsed, opts, o.Finding)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			r.Unreadable++
		} else {
			r.Add(st)
		}
		o.File(shown, st, err)
	}
	return r
}

func file(ctx context.Context, stdin io.Reader, name string, stdinUsed *bool, opts transcript.Options, emit func(transcript.Finding)) (transcript.Stats, error) {
	var r io.Reader
	if name == "-" {
		if *stdinUsed {
			return transcript.Stats{}, errors.New("-: standard input can be read only once")
		}
		*stdinUsed = true
		r, name = stdin, "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return transcript.Stats{}, fmt.Errorf("open %s: %w", name, errors.Unwrap(err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return transcript.Stats{}, fmt.Errorf("%s is a directory; name the transcript files in it", name)
		}
		r = f
	}
	return transcript.ValidateContext(ctx, name, r, opts, emit)
}
