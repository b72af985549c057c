package cmd

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/transcript/report"
	"github.com/agentloop/agentloop/pkg/wire"
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
	// AllowUnchecked accepts conversations whose tool calls validate does
	// not check (a warning, not an error).
	AllowUnchecked bool
	JSON           bool
	ToolsDirs      []string
	MaxLine        int
	ListFormats    bool
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
one; --list-formats lists them. Use - for standard input.

Findings print one a line, like a compiler's, then a summary. A file in which
nothing was recognised is a finding, not a pass. Exit status: 0 when there is
no error (warnings alone pass unless --strict), 1 when there are findings, 2
when an input cannot be read or the command line is wrong, 130 when
interrupted.`,
		Example: `  agentloop validate run.jsonl
  agentloop validate ~/.claude/projects/*/*.jsonl
  agentloop validate --allow-pending --json transcripts/*.jsonl
  cat request.json | agentloop validate --input request -
  agentloop validate --list-formats`,
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case opts.ListFormats && len(args) > 0:
				return flagErrorf("--list-formats takes no FILE")
			case len(args) == 0 && !opts.ListFormats:
				return flagErrorf("validate needs at least one FILE (use - for standard input)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if opts.Input != "" && !slices.Contains(transcript.Inputs, opts.Input) {
				return flagErrorf("--input %q: want %s", opts.Input, orList(transcript.Inputs))
			}
			switch wire.Shape(opts.Shape) {
			case "", wire.Chat, wire.Messages:
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
	f.BoolVar(&opts.AllowUnchecked, "allow-unchecked", false, "accept conversations whose tool calls validate cannot check (a shape or endpoint it does not read) with a warning")
	f.BoolVar(&opts.JSON, "json", false, "print findings, each file's format and the summary as JSON Lines")
	f.StringArrayVar(&opts.ToolsDirs, "tools-dir", nil, "check calls against the tools defined in `DIR` (repeatable)")
	f.BoolVar(&opts.ListFormats, "list-formats", false, "print the formats validate reads (name, what it is, who writes it, an example) and exit")
	f.StringVar(&maxLine, "max-line", bytesize.Format(defaultMaxLine), "hold at most `SIZE` of a line (or of a message of a JSON document); a longer one is reported, not checked (0: no limit)")
	return c
}

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	if opts.ListFormats {
		if opts.JSON {
			return report.ListFormats(jsonOut(opts.IO), true)
		}
		return report.ListFormats(opts.IO.Out, false)
	}
	topts := transcript.Options{
		Input:          opts.Input,
		Shape:          opts.Shape,
		Strict:         opts.Strict,
		AllowPending:   opts.AllowPending,
		AllowUnchecked: opts.AllowUnchecked,
		MaxLine:        opts.MaxLine,
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
	o := report.NewWriter(w, opts.IO.ErrOut, opts.JSON)

	// The files are checked on a goroutine of their own, so that an
	// interrupt ends validate at once even while a read blocks (a FIFO, a
	// terminal): the process exits, and that read with it.
	result := make(chan report.Tally, 1)
	go func() { result <- report.Files(ctx, opts.Files, opts.IO.In, topts, o) }()
	var r report.Tally
	select {
	case r = <-result:
	case <-ctx.Done():
		o.Stop()
		return context.Cause(ctx)
	}
	if err := ctx.Err(); err != nil {
		o.Stop()
		return context.Cause(ctx)
	}
	if err := o.Finish(&r); err != nil {
		return err
	}
	switch {
	case r.Unreadable > 0:
		return &ExitError{Code: ExitUsage}
	case r.Total.Errors > 0:
		return errSilent
	}
	return nil
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
