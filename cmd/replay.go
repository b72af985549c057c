package cmd

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/replay"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// ReplayOptions are the inputs of `agentloop replay`.
type ReplayOptions struct {
	IO   *iostreams.IOStreams
	File string

	Show   bool
	Resume bool
	Force  bool
	Ignore []*regexp.Regexp
	// HTML is the file --html writes the page to, "-" for stdout.
	HTML string

	// The options of a live run, for --resume; an offline replay takes
	// the tools folders, --parallel, -o, -v and the approval flags of
	// them. A replay asks nobody: the calls of confirm: true tools that
	// ran in the recording are re-run only when --yes or --allow allows
	// them.
	liveOptions
	// Config fills the model settings that neither a flag nor the
	// transcript gives.
	Config *config.Config
}

func newCmdReplay(ios *iostreams.IOStreams, runF func(context.Context, *ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: ios}
	var ignore []string
	c := &cobra.Command{
		Use:   "replay FILE",
		Short: "Re-run a transcript's tool calls offline, show it, or resume it",
		Long: `Re-drive a saved run. By default the recorded assistant turns stand in for the
model (no network, no key): every tool call runs again on its recorded
arguments and its fresh result is compared with the recorded one. The report
(one line per call, a diff for each difference) goes to stderr, the answer the
recorded run printed to stdout; the exit status is 1 when any result differs.

--show renders the transcript for reading, a record at a time, wrapped to the
terminal; it does not check it ('agentloop validate' does). --html FILE draws it
as one self-contained web page: a timeline of the model and tool calls (calls
that ran in parallel overlap), the tokens of each request, a table of the steps
and every message, collapsible; it loads nothing from the network. --resume
sends the conversation to the live model and continues the loop where it
stopped (after --max-steps, an API error or an interrupt), answering calls left
pending first, into a new transcript; the old file is never modified. A pending
call that had finished before the run stopped (its result is in a result
record) is answered with that result and not run again. The answer a budget
asked for without tools is left out, and the model goes on with its tools; a
run that ended with the model's own answer has nothing to resume (exit 2;
'agentloop run --continue=FILE MESSAGE' goes on with a new message).

A replay asks nobody: the calls of tools marked confirm: true are skipped
(reported, not a difference) unless --allow NAME or --yes lets them run again;
--deny NAME skips the calls of NAME too. A call the recording did not run (a
person declined it, nobody could be asked, a replay skipped it) is not run now
either, whatever these flags say. With --resume they work as for
'agentloop run'.

FILE is an agentloop transcript, a JSONL file of bare messages, or a JSON
request body; "-" reads stdin. A transcript that fails 'agentloop validate' is
refused unless --force.`,
		Example: `  agentloop replay run.jsonl                      # did any tool's output change?
  agentloop replay --ignore '\d{2}:\d{2}:\d{2}' run.jsonl
  agentloop replay --show run.jsonl | less
  agentloop replay --html run.html run.jsonl
  agentloop replay --resume --max-steps 5 run.jsonl`,
		Args: exactArgs(1, "FILE"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Verbose = verbose(c)
			if err := opts.useConfig(c); err != nil {
				return err
			}
			for _, re := range ignore {
				rx, err := regexp.Compile(re)
				if err != nil {
					return flagErrorf("--ignore %q: %v", re, err)
				}
				opts.Ignore = append(opts.Ignore, rx)
			}
			if !opts.Resume {
				if name := givenLiveOnly(c); name != "" {
					return flagErrorf("--%s applies to --resume only", name)
				}
			} else if err := opts.check(c); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			switch {
			case opts.HTML != "":
				return writeHTMLReport(c.Context(), ios, opts.File, opts.HTML)
			case opts.Show:
				return runReplayShow(c.Context(), opts)
			case opts.Resume:
				return runReplayResume(c.Context(), opts)
			}
			return runReplay(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.Show, "show", false, "render the transcript for reading")
	f.StringVar(&opts.HTML, "html", "", "draw the transcript as a self-contained web page in `FILE` (- for stdout)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the conversation with the live model, into a new transcript")
	f.BoolVar(&opts.Force, "force", false, "replay a transcript even when it fails validation, and let -o overwrite a file that is not an agentloop transcript")
	f.StringArrayVar(&ignore, "ignore", nil, "mask text matching `REGEX` in both results before comparing (repeatable)")
	addLiveFlags(c, &opts.liveOptions, "--resume")
	f.Lookup("output").Usage = "record the replay (or the resumed run) to `FILE`"
	f.Lookup("tools-dir").Usage = "read tool definitions from `DIR`, trusted or not (repeatable; default AGENTLOOP_TOOLS_DIRS, else the folders the run recorded, used once trusted)"

	c.MarkFlagsMutuallyExclusive("show", "resume")
	c.MarkFlagsMutuallyExclusive("resume", "ignore")
	for _, name := range []string{"output", "ignore", "yes", "allow", "deny"} {
		c.MarkFlagsMutuallyExclusive("show", name)
		c.MarkFlagsMutuallyExclusive("html", name)
	}
	c.MarkFlagsMutuallyExclusive("html", "show", "resume")
	return c
}

func runReplay(ctx context.Context, opts *ReplayOptions) error {
	ios := opts.IO
	convs, err := engine.LoadConversations(opts.File, ios.In, ios.ErrOut, engine.ForcePolicy(opts.Force))
	if err != nil {
		return err
	}
	if len(convs) > 1 && opts.Output != "" {
		return flagErrorf("-o records one conversation; %s holds %d", opts.File, len(convs))
	}
	var rows []replay.Row
	answer := ""
	var schema *replay.Conformance
	for _, conv := range convs {
		res, err := replayConversation(ctx, opts, conv)
		if err != nil {
			if errors.Is(err, errInterrupted) {
				return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted")}
			}
			if conv.Line > 0 {
				return fmt.Errorf("%s:%d: %w", opts.File, conv.Line, err)
			}
			return err
		}
		rows, answer = append(rows, res.Rows...), res.Answer
		if res.Schema != nil && (schema == nil || schema.OK) {
			schema = res.Schema
		}
	}
	failed := replay.WriteReport(ios.ErrOut, rows)
	if replay.WriteConformance(ios.ErrOut, schema) {
		failed = true
	}
	if answer != "" && len(convs) == 1 {
		fmt.Fprintln(ios.Out, terminalText(ios, strings.TrimRight(answer, "\n")))
	}
	if failed {
		return errSilent
	}
	return nil
}

// replayConversation loads the tools a recorded conversation needs and
// replays it.
func replayConversation(ctx context.Context, opts *ReplayOptions, conv *transcript.Conversation) (*replay.Result, error) {
	ios := opts.IO
	// A tool gone since the recording is a "missing tool" row.
	tools := opts.recordedTools(conv)
	dirs := tools.dirs
	d := agent.DialectFor(conv.Shape)
	called := engine.CalledTools(d, conv)
	warnToolsDirsGone(ios, &opts.liveOptions, conv, called)
	// The servers started are those that could offer a tool the
	// recording called.
	src := toolSources{toolsSource: tools, mcpFiles: opts.MCPConfig, mcpSetting: opts.mcpSetting, mcpServers: opts.mcpServers, sandbox: opts.Sandbox}
	ts, err := loadToolSet(ctx, ios, src, toolset.Selection{Only: called, Restricted: true}, nil)
	if err != nil {
		return nil, err
	}
	defer ts.Close()
	if err := opts.Approval.check(ts); err != nil {
		return nil, err
	}
	if _, err := checkSandbox(ios, ts, opts.Sandbox.settings, false); err != nil {
		return nil, err
	}
	redact := toolSecrets(ios, ts)

	var w *transcript.Writer
	if opts.Output != "" {
		defs, err := ts.ToolDefs(d)
		if err != nil {
			return nil, err
		}
		h := engine.ReplayHeader(conv, d.Name(), defs, dirs, ts.Header(), Version())
		if w, err = engine.CreateChild(opts.Output, true, opts.Force, opts.File, conv, h, redact, false); err != nil {
			return nil, err
		}
	}
	ap := newApprover(ios, ts, opts.Approval, true, nil)
	defer ap.Close()
	ropts := replay.Options{
		Tools: ap, Loaded: ts.Has, Parallel: opts.Parallel, Ignore: opts.Ignore,
		Redact: redact, Transcript: w,
	}
	if opts.Verbose {
		prog := newProgress(ios, true, false)
		prog.SetRedact(redact.RedactString)
		defer prog.Close()
		ropts.OnEvent = prog.Event
	}
	res, err := replay.Run(ctx, conv, ropts)
	if err != nil && conv.Line == 0 && !errors.Is(err, errInterrupted) {
		// (A conversation of a file of several is named by its line.)
		err = fmt.Errorf("%s: %w", opts.File, err)
	}
	return res, err
}
