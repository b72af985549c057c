package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// maxStdinPrompt caps a prompt read from stdin.
const maxStdinPrompt = 16 << 20

// RunOptions are the inputs of `agentloop run`.
type RunOptions struct {
	IO     *iostreams.IOStreams
	Prompt []string
	// Tools are the tools offered, all when empty.
	Tools []string
	// Force lets -o overwrite a file that is not a transcript.
	Force bool
	// Continue is the conversation to go on with (-c): "last", an id
	// prefix or a transcript's path; "" starts a new one.
	Continue string
	// Config fills, when continuing, the model settings that neither a
	// flag nor the transcript gives.
	Config *config.Config
	liveOptions
}

func newCmdRun(ios *iostreams.IOStreams, runF func(context.Context, *RunOptions) error) *cobra.Command {
	opts := &RunOptions{IO: ios}
	c := &cobra.Command{
		Use:   "run [PROMPT...]",
		Short: "Ask the model a question and let it use the tools",
		Long: `Send a prompt to the model with the tools of tools.d/, run every tool call it
makes, and print the final answer on stdout. The prompt is the arguments; when
stdin is a pipe or a file it is read too: as the prompt when there are no
arguments, else appended to them as context.

Every message is written to a JSONL transcript (-o, or a new file under
$XDG_STATE_HOME/agentloop/transcripts or the configured transcript_dir);
either way 'agentloop log' lists the run.

Defaults for the model, provider, base URL, tools folders, step budget and the
rest come from AGENTLOOP_* variables and the configuration file; see
'agentloop config --help'.

-c goes on with the last conversation (--continue=ID a given one: the start of
an id 'agentloop log' shows, or a transcript's path): the prompt is its next
message, asked with the same provider, model, tools and system prompt unless a
flag changes them (the provider cannot change). Calls the conversation left
pending are answered first, as 'replay --resume' does. A last message the
model never answered (the run failed or was interrupted before it) is not sent
again: the new prompt takes its place. The run writes a new transcript that
names the one it continues; that one is never modified.

A tool marked confirm: true asks before each call (y/N, on the terminal); with
no terminal to ask on the call is denied, and the model is told so. --yes and
--allow NAME run such calls without asking; --deny NAME leaves a tool out.

Long runs: --max-steps, --max-total-tokens and --max-cost are budgets; the
last request a budget allows asks for an answer without tools (not with
--no-final-answer). --context-limit clears the oldest tool results from what
is sent to keep each request under it. -v shows each step's tokens and size,
--json its per_step list. See docs/long-runs.md.

Exit codes: 0 answered, 1 failure, 2 usage, 3 a budget ran out (steps,
tokens, cost, context), 4 provider/API error, 130 interrupted.`,
		Example: `  agentloop run "Is it warmer in Paris or Dublin right now?"
  git diff | agentloop run "Review this change" -o review.jsonl
  agentloop run -c "and in Tokyo?"
  agentloop run --continue=3f2a9c --model gpt-4o "Explain that again, more simply"
  agentloop run --json --max-steps 5 "What changed in go.mod?" < go.mod
  agentloop run --base-url http://localhost:11434/v1 -m llama3.2 "What time is it in Tokyo?"`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Prompt = args
			opts.Verbose = verbose(c)
			if err := opts.useConfig(c); err != nil {
				return err
			}
			if err := opts.check(c); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
		},
	}
	addLiveFlags(c, &opts.liveOptions, "")
	c.Flags().StringArrayVar(&opts.Tools, "tool", nil, "offer only this tool (repeatable)")
	c.Flags().VarP(refValue{&opts.Continue}, "continue", "c", "go on with the last conversation, or with run ID's: --continue=ID")
	c.Flags().Lookup("continue").NoOptDefVal = history.Last
	c.Flags().BoolVar(&opts.Force, "force", false, "let -o overwrite a file that is not an agentloop transcript")
	return c
}

func runRun(ctx context.Context, opts *RunOptions) error {
	ios := opts.IO
	if opts.Continue == history.Last {
		if err := engine.RefInPrompt(opts.TranscriptDir, opts.Prompt); err != nil {
			return err
		}
	}
	prompt, err := readPrompt(ctx, ios, opts.Prompt)
	if errors.Is(err, errNoPrompt) && opts.Continue != "" {
		return flagErrorf("no prompt: -c goes on with a new message (to go on where a run stopped, without one: agentloop replay --resume FILE)")
	}
	if err != nil {
		return err
	}
	if opts.Continue != "" {
		return runContinue(ctx, opts, prompt)
	}
	run, err := startLive(ctx, ios, &opts.liveOptions, liveSetup{
		command: "run", model: &opts.Model, tools: toolsSource{opts.ToolsDirs, opts.toolsSetting}, only: opts.Tools, force: opts.Force, prompt: prompt,
	})
	if err != nil {
		return err
	}
	out, err := run.goOn()
	return run.finish(ios, out, err)
}

var errNoPrompt = errors.New("no prompt: give it as arguments or on stdin")

// refValue is --continue's value: a run's id or path, or "last" when the
// flag is given alone. Its type has no name, so that help shows the flag
// as --continue[=last], as short as it is used.
type refValue struct{ ref *string }

func (v refValue) String() string {
	if v.ref == nil {
		return ""
	}
	return *v.ref
}
func (v refValue) Set(s string) error {
	// --continue="$ID" with ID unset must not quietly start a new
	// conversation.
	if s == "" {
		return errors.New("give the start of a run's id or a transcript's path, or -c alone for the last run")
	}
	*v.ref = s
	return nil
}
func (v refValue) Type() string { return "" }

// readPrompt joins the arguments and, when stdin holds data, reads it too.
// An interrupt ends the read at once: a pipe whose writer neither writes
// nor exits would hold it, and Ctrl-C with it, for ever.
func readPrompt(ctx context.Context, ios *iostreams.IOStreams, args []string) (string, error) {
	for i, a := range args {
		if !utf8.ValidString(a) {
			return "", flagErrorf("the prompt is not text: argument %d is not valid UTF-8", i+1)
		}
	}
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if ios.HasStdinData() && !ios.IsStdinTTY() {
		// On a goroutine of its own, which an interrupt leaves blocked in
		// its read until the process exits.
		var data []byte
		err := interruptible(ctx, func() (err error) {
			data, err = io.ReadAll(io.LimitReader(ios.In, maxStdinPrompt+1))
			return err
		})
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(data) > maxStdinPrompt {
			return "", flagErrorf("stdin holds more than %d MiB: too large for a prompt", maxStdinPrompt>>20)
		}
		if prompt, err = engine.AddStdin(prompt, data); err != nil {
			return "", &FlagError{Err: err}
		}
	}
	if prompt == "" {
		return "", &FlagError{Err: errNoPrompt}
	}
	return prompt, nil
}
