package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// maxStdinPrompt caps a prompt read from stdin.
const maxStdinPrompt = 16 << 20

// RunOptions are the inputs of `agentloop run`.
type RunOptions struct {
	IO     *IOStreams
	Prompt []string

	Model        modelOptions
	ToolsDirs    []string
	toolsDirsSet bool
	Tools        []string
	MaxSteps     int
	Parallel     int
	Output       string
	Force        bool
	NoTranscript bool
	JSON         bool
	Verbose      bool
	Quiet        bool
	Stream       bool
	NoStream     bool
	// TranscriptDir holds the transcripts written without -o; "" is the
	// default folder.
	TranscriptDir string
	Approval      approvalOptions
}

func newCmdRun(ios *IOStreams, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: ios}
	c := &cobra.Command{
		Use:   "run [PROMPT...]",
		Short: "Ask the model a question and let it use the tools",
		Long: `Send a prompt to the model with the tools of tools.d/, run every tool call it
makes, and print the final answer on stdout. The prompt is the arguments; when
stdin is a pipe or a file it is read too: as the prompt when there are no
arguments, else appended to them as context.

Every message is written to a JSONL transcript (-o, or a new file under
$XDG_STATE_HOME/agentloop/transcripts or the configured transcript_dir).

Defaults for the model, provider, base URL, tools folders, step budget and the
rest come from AGENTLOOP_* variables and the configuration file; see
'agentloop config --help'.

A tool marked confirm: true asks before each call (y/N, on the terminal); with
no terminal to ask on the call is denied, and the model is told so. --yes and
--allow NAME run such calls without asking; --deny NAME leaves a tool out.

Exit codes: 0 answered, 1 failure, 2 usage, 3 step budget exhausted,
4 provider/API error, 130 interrupted.`,
		Example: `  agentloop run "Is it warmer in Paris or Dublin right now?"
  git diff | agentloop run "Review this change" -o review.jsonl
  agentloop run --json --max-steps 5 "What changed in go.mod?" < go.mod
  agentloop run --base-url http://localhost:11434/v1 -m llama3.2 "What time is it in Tokyo?"`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Prompt = args
			opts.toolsDirsSet = c.Flags().Changed("tools-dir")
			if err := opts.useConfig(c); err != nil {
				return err
			}
			if err := opts.Model.check(c); err != nil {
				return err
			}
			if opts.MaxSteps < 1 {
				return flagErrorf("--max-steps %d: must be at least 1", opts.MaxSteps)
			}
			if opts.Parallel < 1 {
				return flagErrorf("--parallel %d: must be at least 1", opts.Parallel)
			}
			if err := checkOutputFlags(c, opts.Output, opts.NoTranscript, opts.Verbose, opts.Quiet, opts.Stream, opts.NoStream, opts.JSON); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
		},
	}
	addModelFlags(c, &opts.Model)
	addToolsDirFlag(c, &opts.ToolsDirs)
	f := c.Flags()
	f.StringArrayVar(&opts.Tools, "tool", nil, "offer only this tool (repeatable)")
	f.IntVar(&opts.MaxSteps, "max-steps", agent.DefaultMaxSteps, "cap on model calls; the run exits 3 when it is reached")
	f.IntVar(&opts.Parallel, "parallel", agent.DefaultParallel, "tool calls of one turn run at once")
	f.StringVarP(&opts.Output, "output", "o", "", "write the transcript to `FILE` (its folder must exist; an earlier transcript there is replaced)")
	f.BoolVar(&opts.Force, "force", false, "let -o overwrite a file that is not an agentloop transcript")
	f.BoolVar(&opts.NoTranscript, "no-transcript", false, "write no transcript")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON object {answer, reason, steps, usage, transcript} instead of the answer")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "show each model turn and tool call on stderr")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "show nothing on stderr but errors")
	addStreamFlags(c, &opts.Stream, &opts.NoStream)
	addApprovalFlags(c, &opts.Approval)
	return c
}

func addStreamFlags(c *cobra.Command, stream, noStream *bool) {
	c.Flags().BoolVar(stream, "stream", false, "print the model's text as it is generated, also when stdout is not a terminal (text written before tool calls included)")
	c.Flags().BoolVar(noStream, "no-stream", false, "print the answer only when it is complete, also on a terminal")
}

// checkOutputFlags refuses the combinations of run's output flags that
// contradict each other; replay --resume takes the same flags.
func checkOutputFlags(c *cobra.Command, output string, noTranscript, verbose, quiet, stream, noStream, asJSON bool) error {
	switch {
	case c.Flags().Changed("output") && output == "":
		return flagErrorf("-o needs a file name (--no-transcript writes none)")
	case output != "" && noTranscript:
		return flagErrorf("-o and --no-transcript cannot be used together")
	case verbose && quiet:
		return flagErrorf("-v and -q cannot be used together")
	case stream && (noStream || asJSON):
		return flagErrorf("--stream cannot be used with --no-stream or --json")
	}
	return nil
}

// runResult is what --json prints.
type runResult struct {
	Answer     string           `json:"answer"`
	Reason     string           `json:"reason"`
	Steps      int              `json:"steps"`
	Usage      transcript.Usage `json:"usage"`
	Transcript string           `json:"transcript,omitempty"`
	Error      string           `json:"error,omitempty"`
}

func runRun(ctx context.Context, opts *RunOptions) error {
	ios := opts.IO
	prompt, err := readPrompt(ios, opts.Prompt)
	if err != nil {
		return err
	}
	reg, err := loadTools(ios, opts.ToolsDirs, opts.toolsDirsSet)
	if err != nil {
		return err
	}
	if err := opts.Approval.check(reg); err != nil {
		return err
	}
	if len(opts.Tools) > 0 {
		if reg, err = reg.Subset(opts.Tools); err != nil {
			return flagErrorf("--tool: %v", err)
		}
	}
	reg = reg.Without(opts.Approval.Deny...)
	prov, baseURL, err := newProvider(ios, &opts.Model)
	if err != nil {
		return err
	}
	defs, err := prov.ToolDefs(reg.Definitions())
	if err != nil {
		return err
	}

	redact := secrets(ios)
	var w *transcript.Writer
	id := transcript.NewID()
	if !opts.NoTranscript {
		if w, err = openTranscript(ios, opts.Output, opts.TranscriptDir, id, redact, opts.Force); err != nil {
			return err
		}
		err = w.WriteHeader(transcript.Header{
			ID: id, Command: "run", Provider: prov.Name(), Model: prov.Model(), BaseURL: baseURL,
			ToolsDirs: toolsDirsForHeader(opts.ToolsDirs), Tools: defs, System: opts.Model.System,
			MaxSteps: opts.MaxSteps, Agentloop: Version(),
		})
		if err != nil {
			w.Close()
			return err
		}
	}

	prog := newProgress(ios, opts.Verbose, opts.Quiet)
	if w != nil {
		prog.transcriptPath("transcript: " + w.Path())
	}
	ctx, cancel := withRunTimeout(ctx, opts.Model.Timeout)
	defer cancel()
	ap := newApprover(ios, reg, opts.Approval, false, prog)
	defer ap.Close()
	loop := &agent.Loop{
		Provider: prov, Tools: ap, ToolDefs: defs, System: opts.Model.System,
		MaxSteps: opts.MaxSteps, Parallel: opts.Parallel, Transcript: w, OnEvent: ap.Observe(prog.Event),
	}
	stream := attachStream(ios, loop, prog, wantStream(ios, opts.Stream, opts.NoStream, opts.JSON))
	out, err := loop.Prompt(ctx, prompt)
	return finishRun(ios, out, err, runEnd{w: w, prog: prog, stream: stream, asJSON: opts.JSON, maxSteps: opts.MaxSteps, redact: redact})
}

// attachStream makes the loop stream the model's text to stdout; it
// returns nil when not streaming.
func attachStream(ios *IOStreams, loop *agent.Loop, prog *progress, on bool) *answerStream {
	if !on {
		return nil
	}
	s := &answerStream{out: ios.Out, prog: prog}
	if ios.IsStdoutTTY() {
		s.safe = &safeWriter{w: ios.Out}
		s.out = s.safe
	}
	loop.OnText = s.Text
	next := loop.OnEvent
	loop.OnEvent = func(e agent.Event) {
		s.Event(e)
		next(e)
	}
	return s
}

// runEnd is what a run (or a resumed run) needs to finish.
type runEnd struct {
	w        *transcript.Writer
	prog     *progress
	stream   *answerStream
	asJSON   bool
	maxSteps int
	redact   *transcript.Redactor
}

// finishRun closes the transcript, prints the outcome and maps it to an
// exit status; run and replay --resume end the same way.
func finishRun(ios *IOStreams, out *agent.Outcome, err error, e runEnd) error {
	if e.stream != nil {
		e.stream.Close()
	}
	e.prog.Close()
	path := ""
	if e.w != nil {
		path = e.w.Path()
		if cerr := e.w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	err = outcomeError(out, err, path, e.maxSteps)
	if err != nil {
		err = redactError(err, e.redact)
	}
	if e.asJSON {
		res := runResult{Answer: out.Answer, Reason: out.Reason, Steps: out.Steps, Usage: out.Usage, Transcript: path}
		if err != nil {
			res.Error = err.Error()
		}
		enc := json.NewEncoder(ios.Out)
		enc.SetEscapeHTML(false)
		if e := enc.Encode(res); e != nil {
			return e
		}
	} else if out.Answer != "" && !e.stream.answered() && (out.Reason == transcript.ReasonStop || out.Reason == transcript.ReasonMaxTokens || out.Reason == transcript.ReasonRefusal) {
		fmt.Fprintln(ios.Out, terminalText(ios, strings.TrimRight(out.Answer, "\n")))
	}
	return err
}

// outcomeError maps how a run ended to the error Execute turns into an
// exit status.
func outcomeError(out *agent.Outcome, err error, path string, maxSteps int) error {
	resume := ""
	if path != "" {
		resume = "; continue it with: agentloop replay --resume " + path
	}
	if err != nil {
		var pe *agent.ProviderError
		switch {
		case errors.Is(err, errInterrupted):
			return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted" + resume)}
		case errors.Is(err, errRunTimeout):
			return &ExitError{Code: ExitProvider, Err: err}
		case errors.As(err, &pe):
			return &ExitError{Code: ExitProvider, Err: err}
		}
		return err
	}
	switch out.Reason {
	case transcript.ReasonMaxSteps:
		return &ExitError{Code: ExitMaxSteps, Err: fmt.Errorf("step budget exhausted after %d step%s (--max-steps %d)%s", out.Steps, plural(out.Steps, "", "s"), maxSteps, resume)}
	case transcript.ReasonMaxTokens:
		return fmt.Errorf("the answer was cut off by the output token limit (raise --max-tokens)")
	case transcript.ReasonRefusal:
		return fmt.Errorf("the model refused to answer")
	}
	return nil
}

var errRunTimeout = errors.New("run timed out")

func withRunTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w after %s (--timeout)", errRunTimeout, d))
}

// redactError keeps secrets out of an error message.
func redactError(err error, r *transcript.Redactor) error {
	msg := err.Error()
	clean := r.RedactString(msg)
	if clean == msg {
		return err
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Err: errors.New(clean)}
	}
	return errors.New(clean)
}

// readPrompt joins the arguments and, when stdin holds data, reads it too.
func readPrompt(ios *IOStreams, args []string) (string, error) {
	for i, a := range args {
		if !utf8.ValidString(a) {
			return "", flagErrorf("the prompt is not text: argument %d is not valid UTF-8", i+1)
		}
	}
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if ios.HasStdinData() && !ios.IsStdinTTY() {
		data, err := io.ReadAll(io.LimitReader(ios.In, maxStdinPrompt+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(data) > maxStdinPrompt {
			return "", flagErrorf("stdin holds more than %d MiB: too large for a prompt", maxStdinPrompt>>20)
		}
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return "", flagErrorf("stdin is not text: NUL byte at offset %d", i)
		}
		if !utf8.Valid(data) {
			return "", flagErrorf("stdin is not text: it is not valid UTF-8")
		}
		text := strings.TrimSpace(string(data))
		switch {
		case text == "":
		case prompt == "":
			prompt = text
		default:
			prompt += "\n\n" + fence(text)
		}
	}
	if prompt == "" {
		return "", flagErrorf("no prompt: give it as arguments or on stdin")
	}
	return prompt, nil
}

// fence wraps text in a Markdown code fence longer than any backtick run in it.
func fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + text + "\n" + f
}

// defaultTranscriptPath is dir/<time>-<id>.jsonl; dir "" is
// $XDG_STATE_HOME/agentloop/transcripts.
func defaultTranscriptPath(ios *IOStreams, dir, id string) string {
	if dir == "" {
		dir = filepath.Join(stateDir(ios), "transcripts")
	}
	return filepath.Join(dir, time.Now().UTC().Format("20060102T150405Z")+"-"+id+".jsonl")
}

func stateDir(ios *IOStreams) string {
	if d := ios.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentloop")
	}
	if h := ios.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentloop")
	}
	return filepath.Join(".", ".agentloop")
}

// toolsDirsForHeader records the folders the tools came from.
func toolsDirsForHeader(dirs []string) []string {
	if len(dirs) == 0 {
		return []string{"tools.d"}
	}
	return dirs
}
