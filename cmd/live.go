package cmd

import (
	"context"
	"fmt"
	"net/http"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tracing"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// liveOptions are the options of a run against the live model, shared by
// run and replay --resume: one struct, one registration of their flags
// (addLiveFlags), one setup (startLive).
type liveOptions struct {
	Model        modelOptions
	ToolsDirs    []string
	toolsDirsSet bool   // --tools-dir or AGENTLOOP_TOOLS_DIRS named the folders (toolsChosen)
	toolsSetting string // the setting that gave ToolsDirs (see toolsSource)
	// MCPConfig are the {"mcpServers": …} files read; mcpServers the
	// configuration file's servers.
	MCPConfig    []string
	mcpSetting   string // the setting that gave MCPConfig (see toolsSource)
	mcpServers   []*mcp.Config
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
	Limits        limitOptions
	Sandbox       sandboxOptions
	Schema        schemaOptions
	// resumeArgs are the flags a command that goes on with this run's
	// transcript needs (see resumeArgs).
	resumeArgs []string
	// OTel is the otel setting (--otel, AGENTLOOP_OTEL, otel:): with an
	// OTLP endpoint in the environment, it says whether the run is traced.
	OTel tracing.Setting
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
	live.BoolVar(&o.JSON, "json", false, "print one JSON object {answer, reason, steps, usage, cost_usd, per_step, transcript, error} instead of the answer (with --schema also answer_json, schema_ok, schema_problems)")
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
	addMCPConfigFlag(c, &o.MCPConfig)
	f.IntVar(&o.Parallel, "parallel", agent.DefaultParallel, "tool calls of one turn run at once")
	addApprovalFlags(c, &o.Approval)
	addSandboxFlags(c)
	live := pflag.NewFlagSet("", pflag.ContinueOnError)
	addModelFlags(live, &o.Model)
	live.Bool("otel", false, "send the run's spans and metrics over OTLP/HTTP (docs/tracing.md); the OTEL_EXPORTER_OTLP_* variables say where")
	live.IntVar(&o.MaxSteps, "max-steps", agent.DefaultMaxSteps, "cap on this run's model calls; the last is asked for an answer without tools, and it exits 3")
	addLimitFlags(live, &o.Limits)
	addSchemaFlags(live, &o.Schema)
	addModeFlags(c, live, mode)
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
	// batchSpan is a batch item's batch span (tracing.NewBatchSpan).
	batchSpan string
	// schema is a batch item's own schema, which replaces the batch's.
	schema *answerschema.Schema
	// prompt starts the conversation; state, when set, goes on with a
	// recorded one.
	prompt string
	state  *agent.State
}

// liveRun is a live run set up: the loop, wired to the provider, the tools
// (behind approval), the transcript and the progress display.
type liveRun struct {
	run    *engine.Run
	ctx    context.Context
	cancel context.CancelFunc
	// stopPipes lets a closed pipe kill the process again.
	stopPipes func()
	tools     *toolset.Set
	ap        *approver
	end       runEnd
	// client is the run's connection pool, closed at the end: its
	// connections would otherwise outlive the run in the process.
	client *http.Client
	trace  *engine.Tracer
}

// startLive sets up a live run: it loads the tools, builds the provider,
// creates the transcript (its file name and header carry one id) and wires
// the loop. The caller runs it with goOn and ends with finish.
func startLive(ctx context.Context, ios *IOStreams, o *liveOptions, s liveSetup) (run *liveRun, err error) {
	stopPipes := catchBrokenPipes()
	ts, started, err := liveTools(ctx, ios, o, s)
	if err != nil {
		stopPipes()
		return nil, err
	}
	defer func() {
		if err != nil {
			ts.Close()
			stopPipes()
		}
	}()
	prog := newProgress(ios, o.Verbose, o.Quiet)
	redact := toolSecrets(ios, ts)
	prog.redact = redact // -v shows results, which may hold what a server was given
	ap := newApprover(ios, ts, o.Approval, false, prog)
	net := liveNet{Net: engine.Net{Client: httpretry.NewClient(1)}, trace: newTracer(ctx, ios, o.OTel, o.Verbose)}
	er, err := newLoop(ios, o, s, ap, net)
	if err != nil {
		net.trace.Close()
		prog.Close()
		ap.Close()
		return nil, err
	}
	if o.Verbose {
		for _, line := range started {
			prog.Printf("%s", line)
		}
	}
	loop, w := er.Loop, er.Transcript
	if w != nil {
		if s.parent != "" {
			prog.transcriptPath(fmt.Sprintf("transcript: %s (continues %s)", w.Path(), s.parent))
		} else {
			prog.transcriptPath("transcript: " + w.Path())
		}
	}
	run = &liveRun{tools: ts, ap: ap, run: er, stopPipes: stopPipes, client: net.Client, trace: net.trace}
	var stop context.CancelCauseFunc
	run.ctx, stop = context.WithCancelCause(ctx)
	run.cancel = func() { stop(nil) }
	loop.OnEvent = ap.Observe(prog.Event)
	out := &closedOutput{w: ios.Out, closed: func() { stop(errStdoutClosed) }}
	// An answer held to a schema is printed once checked, never streamed.
	stream := attachStream(ios, out, loop, prog, wantStream(ios, o.Stream, o.NoStream, o.JSON || o.Schema.on()))
	run.end = runEnd{w: w, prog: prog, stream: stream, asJSON: o.JSON, maxSteps: o.MaxSteps, limits: &o.Limits, redact: redact, resumeArgs: o.resumeArgs, schema: &o.Schema}
	return run, nil
}

// newLoop sets up the engine's run of o and s: the provider, the
// transcript (at -o, else a new file in the transcripts folder) and the
// loop wired to them and to exec, the tools behind their approval. The
// runs of a batch share exec and net.
func newLoop(ios *IOStreams, o *liveOptions, s liveSetup, exec *approver, net liveNet) (*engine.Run, error) {
	m := s.model.engineModel(ios)
	es := engine.Settings{
		Command: s.command, Model: m, System: s.model.System, Timeout: s.model.Timeout,
		MaxSteps: o.MaxSteps, Parallel: o.Parallel, Limits: o.Limits.forModel(m.Model), ToolsDirs: s.tools.dirs,
		Parent: s.parent, Conv: s.conv, BatchSpan: s.batchSpan, Version: Version(), Prompt: s.prompt, State: s.state,
		Output: engine.Output{None: o.NoTranscript, Path: o.Output, Explicit: o.Output != "", Force: s.force, Dir: transcriptsDir(ios, o.TranscriptDir)},
	}
	if s.path != "" {
		es.Output.Path, es.Output.Explicit = s.path, false
	}
	es.TraceParent, es.TraceState = engine.TraceParent(ios.Getenv)
	es.Answer = o.Schema.with(s.schema).engine()
	run, err := engine.New(es, engine.Tools{Set: exec.tools, Exec: exec, Redact: toolSecrets(ios, exec.tools)}, net.Net, net.trace)
	if err != nil {
		return nil, err
	}
	if w := run.Transcript; w != nil && es.Output.Explicit {
		recordElsewhere(ios, o, run.Header.ID, w.Path())
	}
	return run, nil
}

// newTracer traces the runs of a command that asked for it (the otel
// setting, or an OTLP endpoint in the environment), saying why not with -v.
func newTracer(ctx context.Context, ios *IOStreams, otel tracing.Setting, verbose bool) *engine.Tracer {
	return engine.NewTracer(ctx, ios.Getenv, otel, verbose, Version(), ios.ErrOut)
}

// goOn runs the conversation to its end.
func (r *liveRun) goOn() (*agent.Outcome, error) { return r.run.Go(r.ctx) }

// finish ends a live run the same way whichever command started it.
func (r *liveRun) finish(ios *IOStreams, out *agent.Outcome, err error) error {
	r.ap.Close()
	r.tools.Close()
	defer r.client.CloseIdleConnections()
	defer r.stopPipes()
	defer r.cancel()
	defer r.trace.Close() // after the transcript's end record

	return finishRun(ios, out, err, r.end)
}
