package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

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
}

func newCmdValidate(ios *IOStreams, runF func(context.Context, *ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: ios}
	c := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check the tool-call grammar of transcripts and message logs",
		Long: `Check that every tool call in a transcript is answered exactly once and in the
right place, that ids, names and arguments are well-formed, and that messages are
in an order the API accepts.

Reads agentloop transcripts, JSONL of bare messages, JSONL of {"messages": […]}
conversations (fine-tuning files) and whole-file JSON request bodies or arrays of
messages, in the OpenAI (Chat Completions, Responses) and Anthropic shapes. Use
- for standard input.

Findings print one a line, like a compiler's, then a summary. Exit status: 0 when
there is no error (warnings alone pass unless --strict), 1 when there are
findings, 2 when an input cannot be read or the command line is wrong.`,
		Example: `  agentloop validate run.jsonl
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
			switch opts.Input {
			case "", transcript.InputAgentloop, transcript.InputMessages, transcript.InputConversations, transcript.InputRequest:
			default:
				return flagErrorf("--input %q: want agentloop, messages, conversations or request", opts.Input)
			}
			switch opts.Shape {
			case "", "openai", "anthropic":
			default:
				return flagErrorf("--shape %q: want openai or anthropic", opts.Shape)
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runValidate(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.Input, "input", "", "input format: agentloop, messages, conversations or request (default: detected)")
	f.StringVar(&opts.Shape, "shape", "", "message shape: openai or anthropic (default: detected per conversation)")
	f.BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	f.BoolVar(&opts.AllowPending, "allow-pending", false, "accept conversations that end with unanswered tool calls (a run in progress)")
	f.BoolVar(&opts.JSON, "json", false, "print findings and the summary as JSON Lines")
	f.StringArrayVar(&opts.ToolsDirs, "tools-dir", nil, "check calls against the tools defined in `DIR` (repeatable)")
	return c
}

// jsonFinding is a finding as --json prints it.
type jsonFinding struct {
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Index    *int     `json:"index,omitempty"`
	Path     string   `json:"path,omitempty"`
	Severity string   `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	IDs      []string `json:"ids,omitempty"`
}

type jsonSummary struct {
	Summary bool `json:"summary"`
	transcript.Stats
	Unreadable int `json:"unreadable"`
}

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	topts := transcript.Options{
		Input:        opts.Input,
		Shape:        opts.Shape,
		Strict:       opts.Strict,
		AllowPending: opts.AllowPending,
	}
	if len(opts.ToolsDirs) > 0 {
		// No server is started: validating runs nothing.
		reg, servers, err := loadDefinitions(opts.IO, toolSources{dirs: opts.ToolsDirs, explicit: true})
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		topts.Tools = &declaredTools{reg: reg, servers: toolset.Enabled(servers)}
	}

	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	emit := func(f transcript.Finding) {
		if opts.JSON {
			jf := jsonFinding{File: f.File, Line: f.Line, Path: f.Path, Severity: f.Severity.String(), Code: f.Code, Message: f.Message, IDs: f.IDs}
			if f.Index >= 0 {
				jf.Index = &f.Index
			}
			enc.Encode(jf)
			return
		}
		fmt.Fprintln(out, f.String())
	}

	var total transcript.Stats
	unreadable := 0
	stdinUsed := false
	for _, name := range opts.Files {
		if err := ctx.Err(); err != nil {
			return err
		}
		st, err := validateFile(opts.IO, name, &stdinUsed, topts, emit)
		total.Add(st)
		if err != nil {
			unreadable++
			out.Flush()
			fmt.Fprintf(opts.IO.ErrOut, "agentloop: %v\n", err)
		}
	}

	if opts.JSON {
		enc.Encode(jsonSummary{Summary: true, Stats: total, Unreadable: unreadable})
	} else {
		fmt.Fprintln(out, summary(total))
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	switch {
	case unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case total.Errors > 0:
		return errSilent
	}
	return nil
}

func validateFile(ios *IOStreams, name string, stdinUsed *bool, opts transcript.Options, emit func(transcript.Finding)) (transcript.Stats, error) {
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
	return transcript.Validate(name, r, opts, emit)
}

// summary is the last line of the plain output.
func summary(s transcript.Stats) string {
	counts := fmt.Sprintf("(%s %s, %s %s)", group(s.Messages), plural(s.Messages, "message", "messages"),
		group(s.ToolCalls), plural(s.ToolCalls, "tool call", "tool calls"))
	files := fmt.Sprintf("%d %s", s.Files, plural(s.Files, "file", "files"))
	if s.Errors == 0 && s.Warnings == 0 {
		return fmt.Sprintf("no problems in %s %s", files, counts)
	}
	return fmt.Sprintf("%s %s, %s %s in %s %s", group(s.Errors), plural(s.Errors, "error", "errors"),
		group(s.Warnings), plural(s.Warnings, "warning", "warnings"), files, counts)
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

// declaredTools are the tools of folders as validate checks calls against
// them: a script tool's arguments against its schema; a name an MCP
// server of the folders could offer is taken as known, unchecked, since
// its schema is the server's to give and validate starts no server.
type declaredTools struct {
	reg     *tools.Registry
	servers []*mcp.Config
}

func (d *declaredTools) Has(name string) bool {
	if d.reg.Has(name) {
		return true
	}
	for _, c := range d.servers {
		if c.MayOffer(name) {
			return true
		}
	}
	return false
}

func (d *declaredTools) CheckArgs(name string, args []byte) error {
	if d.reg.Has(name) {
		return d.reg.CheckArgs(name, args)
	}
	return nil
}
