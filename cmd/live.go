package cmd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// liveOptions are the options of a run against the live model, shared by
// run and replay --resume: one struct, one registration of their flags
// (addLiveFlags), one setup (startLive).
type liveOptions struct {
	Model        modelOptions
	ToolsDirs    []string
	toolsDirsSet bool   // --tools-dir was given
	toolsSetting string // the setting that gave ToolsDirs (see toolsSource)
	MaxSteps     int
	Parallel     int
	Output       string
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

// liveOnly marks the flags that only a live run takes, on a command where
// a live run is one mode of several.
const liveOnly = "agentloop_live_only"

// addLiveFlags registers the flags of a live run. mode names the flag
// that selects the live run on a command that also does something else
// (replay's "--resume"), "" when a live run is all the command does: the
// flags only a live run takes then say so in their help, and
// givenLiveOnly finds them. -v is the root's, for every command.
func addLiveFlags(c *cobra.Command, o *liveOptions, mode string) {
	addLoopFlags(c, o, mode)
	c.Flags().StringVarP(&o.Output, "output", "o", "", "write the transcript to `FILE` (its folder must exist; an earlier transcript there is replaced)")
	live := pflag.NewFlagSet("", pflag.ContinueOnError)
	live.BoolVar(&o.NoTranscript, "no-transcript", false, "write no transcript")
	live.BoolVar(&o.JSON, "json", false, "print one JSON object {answer, reason, steps, usage, transcript} instead of the answer")
	live.BoolVarP(&o.Quiet, "quiet", "q", false, "show nothing on stderr but errors")
	live.BoolVar(&o.Stream, "stream", false, "print the model's text as it is generated, also when stdout is not a terminal (text written before tool calls included)")
	live.BoolVar(&o.NoStream, "no-stream", false, "print the answer only when it is complete, also on a terminal")
	addModeFlags(c, live, mode)

	c.MarkFlagsMutuallyExclusive("output", "no-transcript")
	c.MarkFlagsMutuallyExclusive("stream", "no-stream")
	c.MarkFlagsMutuallyExclusive("stream", "json")
}

// addLoopFlags registers the flags that set up the loop itself: the tools,
// their approval, the model and the step budget. A batch takes these and
// not those of one run's output.
func addLoopFlags(c *cobra.Command, o *liveOptions, mode string) {
	f := c.Flags()
	addToolsDirFlag(c, &o.ToolsDirs)
	f.IntVar(&o.Parallel, "parallel", agent.DefaultParallel, "tool calls of one turn run at once")
	addApprovalFlags(c, &o.Approval)
	live := pflag.NewFlagSet("", pflag.ContinueOnError)
	addModelFlags(live, &o.Model)
	live.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "cap on this run's model calls; it exits 3 when it is reached")
	addModeFlags(c, live, mode)
}

// addModeFlags adds the flags of fs to c; with a mode, each says in its
// help that it goes with that mode, and givenLiveOnly finds it.
func addModeFlags(c *cobra.Command, fs *pflag.FlagSet, mode string) {
	fs.VisitAll(func(fl *pflag.Flag) {
		if mode != "" {
			fl.Usage = "with " + mode + ": " + fl.Usage
			if fl.Annotations == nil {
				fl.Annotations = map[string][]string{}
			}
			fl.Annotations[liveOnly] = []string{mode}
		}
		c.Flags().AddFlag(fl)
	})
}

// givenLiveOnly names a flag given that only a live run takes, or "".
func givenLiveOnly(c *cobra.Command) string {
	name := ""
	c.Flags().Visit(func(fl *pflag.Flag) {
		if _, ok := fl.Annotations[liveOnly]; ok && name == "" {
			name = fl.Name
		}
	})
	return name
}

// verbose reads the root's -v.
func verbose(c *cobra.Command) bool {
	v, _ := c.Flags().GetBool("verbose")
	return v
}

// check validates the flags of a live run that the configuration does not.
func (o *liveOptions) check(c *cobra.Command) error {
	if err := o.Model.check(c); err != nil {
		return err
	}
	if c.Flags().Changed("output") && o.Output == "" {
		return flagErrorf("-o needs a file name (--no-transcript writes none)")
	}
	return nil
}

// recordedTools are the tools folders for a recorded conversation:
// --tools-dir, else the folders the run recorded, else the configured ones.
// Recorded folders are agentloop's choice, not the user's: a transcript may
// come from anywhere, so they are used as ./tools.d is (those that exist
// and are trusted; a tool gone is a "missing tool" row).
func (o *liveOptions) recordedTools(conv *transcript.Conversation) toolsSource {
	if !o.toolsDirsSet && conv.Header != nil && len(conv.Header.ToolsDirs) > 0 {
		return toolsSource{dirs: conv.Header.ToolsDirs}
	}
	return toolsSource{o.ToolsDirs, o.toolsSetting}
}

// liveSetup is what differs between the live runs: a new one (run) and
// one that goes on with a recorded conversation (replay --resume, run -c).
type liveSetup struct {
	command string        // the header's command: "run", "resume" or "continue"
	model   *modelOptions // resolved: flags, then transcript, then configuration
	tools   toolsSource   // where the tools are
	only    []string      // run --tool: offer only these
	// recorded, when set, are the tools the recording offered: of those,
	// the ones still loaded are offered (run -c without --tool).
	recorded *[]string
	// parent is the transcript continued and conv its conversation, which
	// the new transcript starts with; "" and nil for a new run.
	parent string
	conv   *transcript.Conversation
	// force lets -o overwrite a file that is not a transcript.
	force bool
	// path, when set, is the transcript's path as agentloop chose it (a
	// batch item's), not -o's.
	path string
}

// liveRun is a live run set up: the loop, wired to the provider, the tools
// (behind approval), the transcript and the progress display.
type liveRun struct {
	loop   *agent.Loop
	ctx    context.Context
	cancel context.CancelFunc
	ap     *approver
	end    runEnd
}

// startLive sets up a live run: it loads the tools, builds the provider,
// creates the transcript (its file name and header carry one id) and wires
// the loop. The caller runs the loop with run.ctx and ends with finish.
func startLive(ctx context.Context, ios *IOStreams, o *liveOptions, s liveSetup) (*liveRun, error) {
	reg, err := liveTools(ios, o, s)
	if err != nil {
		return nil, err
	}
	prog := newProgress(ios, o.Verbose, o.Quiet)
	ap := newApprover(ios, reg, o.Approval, false, prog)
	loop, w, err := newLoop(ios, o, s, ap, liveNet{})
	if err != nil {
		prog.Close()
		ap.Close()
		return nil, err
	}
	if w != nil {
		if s.parent != "" {
			prog.transcriptPath(fmt.Sprintf("transcript: %s (continues %s)", w.Path(), s.parent))
		} else {
			prog.transcriptPath("transcript: " + w.Path())
		}
	}
	run := &liveRun{ap: ap, loop: loop}
	run.ctx, run.cancel = withRunTimeout(ctx, s.model.Timeout)
	loop.OnEvent = ap.Observe(prog.Event)
	stream := attachStream(ios, loop, prog, wantStream(ios, o.Stream, o.NoStream, o.JSON))
	run.end = runEnd{w: w, prog: prog, stream: stream, asJSON: o.JSON, maxSteps: o.MaxSteps, redact: secrets(ios)}
	return run, nil
}

// liveTools loads the tools of a live run and narrows them to those the
// flags offer.
func liveTools(ios *IOStreams, o *liveOptions, s liveSetup) (*tools.Registry, error) {
	reg, err := loadTools(ios, s.tools)
	if err != nil {
		return nil, err
	}
	if err := o.Approval.check(reg); err != nil {
		return nil, err
	}
	if len(s.only) > 0 {
		if reg, err = reg.Subset(s.only); err != nil {
			return nil, flagErrorf("--tool: %v", err)
		}
	} else if s.recorded != nil {
		var keep, gone []string
		for _, n := range *s.recorded {
			if reg.Has(n) {
				keep = append(keep, n)
			} else {
				gone = append(gone, n)
			}
		}
		if len(gone) > 0 && !o.Quiet {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: the conversation's tool%s %s %s gone: not offered now\n", plural(len(gone), "", "s"), safeText(strings.Join(gone, ", ")), plural(len(gone), "is", "are"))
		}
		if reg, err = reg.Subset(keep); err != nil {
			return nil, err
		}
	}
	return reg.Without(o.Approval.Deny...), nil
}

// newLoop builds the provider, creates the transcript (at -o, else a new
// file in the transcripts folder) and wires a loop to them and to exec,
// the tools behind their approval. The runs of a batch share exec and net.
func newLoop(ios *IOStreams, o *liveOptions, s liveSetup, exec *approver, net liveNet) (*agent.Loop, *transcript.Writer, error) {
	prov, baseURL, err := newProvider(ios, s.model, net)
	if err != nil {
		return nil, nil, err
	}
	defs, err := prov.ToolDefs(toolSpecs(exec.reg.Definitions()))
	if err != nil {
		return nil, nil, err
	}
	var w *transcript.Writer
	if !o.NoTranscript {
		id := transcript.NewID()
		path, explicit := o.Output, o.Output != ""
		switch {
		case s.path != "":
			path, explicit = s.path, false
		case path == "":
			path = defaultTranscriptPath(ios, o.TranscriptDir, id)
		}
		h := transcript.Header{
			ID: id, Command: s.command, Provider: prov.Name(), Model: prov.Model(), BaseURL: baseURL,
			ToolsDirs: toolsDirsForHeader(s.tools.dirs), Tools: defs, System: s.model.System, MaxSteps: o.MaxSteps,
			Parallel: o.Parallel,
		}
		if w, err = createTranscript(ios, path, explicit, s.force, s.parent, s.conv, h); err != nil {
			return nil, nil, err
		}
	}
	loop := &agent.Loop{
		Provider: prov, Tools: exec, ToolDefs: defs, System: s.model.System,
		MaxSteps: o.MaxSteps, Parallel: o.Parallel, Transcript: w,
	}
	return loop, w, nil
}

// finish ends a live run the same way whichever command started it.
func (r *liveRun) finish(ios *IOStreams, out *agent.Outcome, err error) error {
	r.ap.Close()
	defer r.cancel()
	return finishRun(ios, out, err, r.end)
}

// createTranscript creates a run's transcript at path, -o's when explicit
// (see createOutput). One that continues another names its parent and
// starts with the parent's whole conversation, so it stands on its own for
// validate, replay and a later resume.
func createTranscript(ios *IOStreams, path string, explicit, force bool, parent string, conv *transcript.Conversation, h transcript.Header) (*transcript.Writer, error) {
	if parent == "" {
		var (
			w   *transcript.Writer
			err error
		)
		if explicit {
			w, err = createOutput(path, secrets(ios), force, false)
		} else {
			w, err = transcript.Create(path, secrets(ios))
		}
		if err != nil {
			return nil, err
		}
		h.Agentloop = Version()
		if err := w.WriteHeader(h); err != nil {
			w.Close()
			return nil, err
		}
		return w, nil
	}
	// The copy of the conversation is made whole before the transcript
	// takes its name: a crash while it is written must not leave a file
	// that looks like the conversation with its last calls unanswered,
	// which a resume would run again.
	w, err := createChild(ios, path, explicit, force, parent, conv, h, true)
	if err != nil {
		return nil, err
	}
	// In one write, so that a kill cannot leave part of a turn.
	if err := w.WriteMessages(conv.Messages...); err != nil {
		w.Close()
		return nil, err
	}
	// So do the results of calls that finished before the run stopped:
	// should this run stop too before they are sent, they are still not
	// run again.
	for _, rec := range conv.Finished {
		if err := w.WriteResult(rec); err != nil {
			w.Close()
			return nil, err
		}
	}
	if err := w.Commit(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
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
