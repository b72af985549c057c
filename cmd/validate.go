package cmd

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// defaultMaxLine is the longest line validate holds: memory stays under
// 64 MB whatever the input (docs/performance.md).
const defaultMaxLine = 8 << 20

// ValidateOptions are the inputs of one `agentloop validate`.
type ValidateOptions struct {
	IO           *IOStreams
	Files        []string
	Input        string
	Shape        string
	Strict       bool
	AllowPending bool
	JSON         bool
	ToolsDirs    []string
	MaxLine      int
}

func newCmdValidate(ios *IOStreams, runF func(context.Context, *ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: ios}
	var maxLine string
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check the tool-call grammar of transcripts and message logs",
		Long: `Check that every tool call in a transcript is answered exactly once and in the
right place, that ids, names and arguments are well-formed, and that messages
are in an order the API accepts.

Reads agentloop transcripts, JSONL of bare messages, JSONL of {"messages": […]}
conversations (fine-tuning files) or of request bodies (OpenAI Batch API input
files), and whole-file JSON request bodies or arrays of messages, in the OpenAI
(Chat Completions, Responses) and Anthropic shapes; and
the logs other tools keep: Claude Code sessions, Codex CLI rollouts, Inspect AI
eval logs, SWE-agent trajectories, and the request bodies recorded in VCR
cassettes and HAR files. The format is told from the content; --input forces
one. Use - for standard input.

Findings print one a line, like a compiler's, then a summary. A file in which
nothing was recognised is a finding, not a pass. Exit status: 0 when there is
no error (warnings alone pass unless --strict), 1 when there are findings, 2
when an input cannot be read or the command line is wrong, 130 when
interrupted.`,
		Example: `  agentloop validate run.jsonl
  agentloop validate ~/.claude/projects/*/*.jsonl
  agentloop validate --allow-pending --json transcripts/*.jsonl
  cat request.json | agentloop validate --input request -`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return flagErrorf("validate needs at least one FILE (use - for standard input)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Input != "" && !slices.Contains(transcript.Inputs, opts.Input) {
				return flagErrorf("--input %q: want %s", opts.Input, orList(transcript.Inputs))
			}
			switch opts.Shape {
			case "", "openai", "anthropic":
			default:
				return flagErrorf("--shape %q: want openai or anthropic", opts.Shape)
			}
			n, err := bytesize.Parse(maxLine)
			if err != nil || n > 1<<40 {
				return flagErrorf("--max-line %q: want a size such as 8MiB, or 0 for no limit", maxLine)
			}
			opts.MaxLine = int(n)
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runValidate(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Input, "input", "", "read every file as `FORMAT`: "+strings.Join(transcript.Inputs, ", ")+" (default: told from the content)")
	f.StringVar(&opts.Shape, "shape", "", "message shape: openai or anthropic (default: detected per conversation)")
	f.BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	f.BoolVar(&opts.AllowPending, "allow-pending", false, "accept conversations that end with unanswered tool calls (a run in progress)")
	f.BoolVar(&opts.JSON, "json", false, "print findings, each file's format and the summary as JSON Lines")
	f.StringArrayVar(&opts.ToolsDirs, "tools-dir", nil, "check calls against the tools defined in `DIR` (repeatable)")
	f.StringVar(&maxLine, "max-line", bytesize.Format(defaultMaxLine), "hold at most `SIZE` of a line (or of a message of a JSON document); a longer one is reported, not checked (0: no limit)")
	return c
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// jsonFinding is a finding as --json prints it.
type jsonFinding struct {
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

// jsonFile says, after a file's findings, what it was read as and what it
// held; or, for an input that could not be read, why.
type jsonFile struct {
	File          string `json:"file"`
	Format        string `json:"format,omitempty"`
	Conversations int    `json:"conversations"`
	Messages      int    `json:"messages"`
	ToolCalls     int    `json:"tool_calls"`
	Errors        int    `json:"errors"`
	Warnings      int    `json:"warnings"`
	Unreadable    string `json:"unreadable,omitempty"`
}

type jsonSummary struct {
	Summary bool `json:"summary"`
	transcript.Stats
	Unreadable int            `json:"unreadable"`
	Formats    map[string]int `json:"formats"`
}

// validation is what checking the files found.
type validation struct {
	total      transcript.Stats
	formats    map[string]int
	unreadable int
}

// validateOutput writes findings as they come, from the goroutine that
// checks the files, until it is stopped.
type validateOutput struct {
	mu      sync.Mutex
	opts    *ValidateOptions
	out     *bufio.Writer
	enc     *json.Encoder
	stopped bool
}

func (o *validateOutput) finding(f transcript.Finding) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if !o.opts.JSON {
		// A finding quotes ids, names and paths from the file: one line,
		// its control bytes shown, not obeyed.
		fmt.Fprintln(o.out, strings.ReplaceAll(safeText(f.String()), "\n", `\n`))
		return
	}
	jf := jsonFinding{File: f.File, Line: f.Line, Path: f.Path, Severity: f.Severity.String(), Code: f.Code, Message: f.Message,
		IDs: f.IDs, Status: f.Status, Confirmed: f.Confirmed()}
	if f.Index >= 0 {
		jf.Index = &f.Index
	}
	o.enc.Encode(jf)
}

// file ends a file's output: its format (with --json), or why it could not
// be read (on stderr).
func (o *validateOutput) file(name string, st transcript.Stats, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if err != nil {
		o.out.Flush()
		fmt.Fprintf(o.opts.IO.ErrOut, "agentloop: %s\n", safeText(err.Error()))
		if o.opts.JSON {
			o.enc.Encode(jsonFile{File: name, Unreadable: err.Error()})
		}
		return
	}
	if o.opts.JSON {
		o.enc.Encode(jsonFile{File: name, Format: st.Format, Conversations: st.Conversations, Messages: st.Messages,
			ToolCalls: st.ToolCalls, Errors: st.Errors, Warnings: st.Warnings})
	}
}

// stop ends the output where it is: nothing the checking goroutine finds
// after this is printed.
func (o *validateOutput) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopped = true
	o.out.Flush()
}

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	topts := transcript.Options{
		Input:        opts.Input,
		Shape:        opts.Shape,
		Strict:       opts.Strict,
		AllowPending: opts.AllowPending,
		MaxLine:      opts.MaxLine,
	}
	if len(opts.ToolsDirs) > 0 {
		// No server is started: validating runs nothing.
		reg, servers, err := loadDefinitions(opts.IO, toolSources{toolsSource: toolsSource{opts.ToolsDirs, "--tools-dir"}})
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		topts.Tools = &toolset.Checker{Reg: reg, Servers: toolset.Enabled(servers)}
	}

	w := opts.IO.Out
	if opts.JSON {
		w = jsonOut(opts.IO)
	}
	o := &validateOutput{opts: opts, out: bufio.NewWriterSize(w, 64<<10)}
	o.enc = json.NewEncoder(o.out)
	o.enc.SetEscapeHTML(false)

	// The files are checked on a goroutine of their own, so that an
	// interrupt ends validate at once even while a read blocks (a FIFO, a
	// terminal): the process exits, and that read with it.
	result := make(chan validation, 1)
	go func() { result <- validateFiles(ctx, opts, topts, o) }()
	var r validation
	select {
	case r = <-result:
	case <-ctx.Done():
		o.stop()
		return context.Cause(ctx)
	}
	if err := ctx.Err(); err != nil {
		o.stop()
		return context.Cause(ctx)
	}

	o.mu.Lock()
	defer o.mu.Unlock()
	if opts.JSON {
		o.enc.Encode(jsonSummary{Summary: true, Stats: r.total, Unreadable: r.unreadable, Formats: r.formats})
	} else {
		fmt.Fprintln(o.out, summary(r.total, r.formats, r.unreadable))
	}
	if err := o.out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	switch {
	case r.unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case r.total.Errors > 0:
		return errSilent
	}
	return nil
}

// validateFiles checks every file in turn.
func validateFiles(ctx context.Context, opts *ValidateOptions, topts transcript.Options, o *validateOutput) validation {
	r := validation{formats: map[string]int{}}
	stdinUsed := false
	for _, name := range opts.Files {
		if ctx.Err() != nil {
			break
		}
		shown := name
		if name == "-" {
			shown = "<stdin>"
		}
		st, err := validateFile(ctx, opts.IO, name, &stdinUsed, topts, o.finding)
		if ctx.Err() != nil {
			break
		}
		if err != nil {
			r.unreadable++
		} else {
			r.total.Add(st)
			r.formats[st.Format]++
		}
		o.file(shown, st, err)
	}
	return r
}

func validateFile(ctx context.Context, ios *IOStreams, name string, stdinUsed *bool, opts transcript.Options, emit func(transcript.Finding)) (transcript.Stats, error) {
	var r io.Reader
	if name == "-" {
		if *stdinUsed {
			return transcript.Stats{}, errors.New("-: standard input can be read only once")
		}
		*stdinUsed = true
		r, name = ios.In, "<stdin>"
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

// summary is the last line of the plain output. It says what the exit
// status says: "no problems" only when there are none and every input was
// read.
func summary(s transcript.Stats, formats map[string]int, unreadable int) string {
	counts := fmt.Sprintf("(%s %s, %s %s)", group(s.Messages), plural(s.Messages, "message", "messages"),
		group(s.ToolCalls), plural(s.ToolCalls, "tool call", "tool calls"))
	files := fmt.Sprintf("%d %s", s.Files, plural(s.Files, "file", "files"))
	kinds := formatList(formats, s.Files)
	if kinds != "" {
		counts += ": " + kinds
	}
	if s.Errors == 0 && s.Warnings == 0 && unreadable == 0 {
		return fmt.Sprintf("no problems in %s %s", files, counts)
	}
	line := fmt.Sprintf("%s %s, %s %s in %s %s", group(s.Errors), plural(s.Errors, "error", "errors"),
		group(s.Warnings), plural(s.Warnings, "warning", "warnings"), files, counts)
	if unreadable > 0 {
		line = fmt.Sprintf("%d %s not read; %s", unreadable, plural(unreadable, "input", "inputs"), line)
	}
	return line
}

// formatList counts files by format, most first: "2 claude-code, 1
// openai-messages"; just the format when all n files share one.
func formatList(formats map[string]int, n int) string {
	type kv struct {
		name  string
		count int
	}
	var list []kv
	for k, c := range formats {
		if c > 0 {
			list = append(list, kv{k, c})
		}
	}
	if len(list) == 1 && list[0].count == n {
		return list[0].name
	}
	slices.SortFunc(list, func(a, b kv) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.name, b.name))
	})
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = fmt.Sprintf("%d %s", e.count, e.name)
	}
	return strings.Join(parts, ", ")
}

// group writes n with thousands separators: 1,204.
func group(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + group(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
