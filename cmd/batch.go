package cmd

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/tracing"
)

// BatchOptions are the inputs of `agentloop batch`.
type BatchOptions struct {
	IO          *iostreams.IOStreams
	Input       string
	Dir         string
	Jobs        int
	Shard       batch.Shard
	RetryFailed bool
	DryRun      bool
	Format      batch.Format
	// Tools are the tools offered, all when empty.
	Tools []string
	// config resolves each item's model and base URL.
	config *config.Config
	// batchSpan is the batch's span, its items' parent in a trace.
	batchSpan string
	// API sends the requests through the providers' Batch APIs.
	API batchAPIOptions
	liveOptions
}

func newCmdBatch(ios *iostreams.IOStreams, runF func(context.Context, *BatchOptions) error) *cobra.Command {
	opts := &BatchOptions{IO: ios}
	var shard, format string
	c := &cobra.Command{
		Use:   "batch INPUT -d OUTDIR",
		Short: "Run many prompts through the loop, resumably",
		Long: `Run every prompt of INPUT through the same loop as 'agentloop run', with the
same flags and settings, -j at a time, and keep the outcome of each in OUTDIR:
a transcript per item (ID.jsonl) and results.jsonl, one line per item as it
finishes (id, answer, reason, exit_code, steps, usage, cost, duration_ms,
error, metadata, transcript).

INPUT is JSONL, one item a line:
  {"id": "a", "prompt": "…", "system": "…", "model": "…", "max_steps": 5,
   "stdin": "context given with the prompt", "metadata": {…carried to the result}}
(only prompt is required; the id defaults to the line number), or plain text,
one prompt a line, each item's id its line number. - reads stdin.

All items share one rate limit: a 429 or 529 (and a 503) pauses every item
for the Retry-After the server asked, and slows them all until the server
stops refusing.

Run the same command again to go on: items already finished are skipped
(an OUTDIR whose finished items ran other prompts is refused: give another -d),
items stopped mid-way (Ctrl-C, a kill, a crash) continue from their
transcripts with their pending calls first and no finished call run again,
items whose transcripts could not be written (a full disk: "unrecorded") run
again, and with --retry-failed the items that ended in an error run again.
--shard K/N runs the items whose id hashes to K of N, for schedulers that
split a set by index; 'agentloop batch merge' puts the shards together.

--batch-api (or batch_api: true) sends the model requests through the
provider's Batch API, at its price (half, as a rule): the requests of every
item waiting for the model go out as one batch, a round; when it ends, the
items run their tools and the next round goes out. For evals and backfills,
not interactive work: a batch may take hours. OUTDIR's rounds.jsonl records
each batch before it is sent, so a rerun after a kill polls the batches in
flight and submits nothing twice. 'agentloop batch status OUTDIR' shows the
rounds, 'agentloop batch cancel OUTDIR' cancels the batches in flight.

A tool marked confirm: true is denied with no terminal to ask on, as in run;
--yes or --allow NAME runs it. Progress shows on a terminal; a summary ends
the run on stderr (--json prints it on stdout).

Exit codes: 0 every item answered, 1 an item failed (or a result could not be
written), 3 an item ran out of budget and none failed, 2 usage, bad input, or an
OUTDIR in use or holding other prompts' results, 4 no API key, 130 interrupted
(run again to go on).
See docs/batch.md.`,
		Example: `  agentloop batch evals.jsonl -d out
  agentloop batch prompts.txt -d out -j 16 -m gpt-4o-mini
  agentloop batch evals.jsonl -d out --retry-failed
  agentloop batch evals.jsonl -d out-$JOB_COMPLETION_INDEX --shard $JOB_COMPLETION_INDEX/8
  agentloop batch merge out-* > results.jsonl
  agentloop batch evals.jsonl -d out --batch-api
  agentloop batch --dry-run evals.jsonl`,
		Args: exactArgs(1, "INPUT"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Input = args[0]
			opts.toolsDirsSet = c.Flags().Changed("tools-dir")
			opts.Verbose = verbose(c)
			if err := opts.parse(c, shard, format); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatch(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Dir, "dir", "d", "", "write the transcripts and results.jsonl to `OUTDIR` (made if missing)")
	f.IntVarP(&opts.Jobs, "jobs", "j", batch.DefaultJobs, "items run at once")
	f.StringVar(&shard, "shard", "", "run only the items of shard `K/N` (K from 0): those whose id hashes to K of N")
	f.BoolVar(&opts.RetryFailed, "retry-failed", false, "run again the items that ended in an error (an API failure, a time limit)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "check the input (and say what a run would do in OUTDIR) without calling a model")
	f.StringVar(&format, "format", "", "INPUT's format: jsonl or text (default: by its extension, else by its first line)")
	f.StringArrayVar(&opts.Tools, "tool", nil, "offer only this tool (repeatable)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object on stdout")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "show nothing on stderr but errors")
	addLoopFlags(c, &opts.liveOptions, "")
	addBatchAPIFlags(f, &opts.API)
	// The loop's limits hold for each item, not for the batch.
	f.Lookup("timeout").Usage = "time limit for each item, e.g. 5m (default: none)"
	f.Lookup("max-steps").Usage = "cap on each item's model calls (an item's max_steps replaces it); an item that reaches it ends with exit_code 3"
	f.Lookup("max-total-tokens").Usage = "cap each item at `N` input and output tokens: the last request it allows asks for an answer without tools, and the item ends with exit_code 3 (default: none)"
	f.Lookup("max-cost").Usage = "cap each item's cost at `USD` dollars, priced by the configuration's prices: table; as --max-total-tokens (default: none)"
	c.AddCommand(newCmdBatchMerge(ios, nil), newCmdBatchStatus(ios, nil), newCmdBatchCancel(ios, nil))
	return c
}

// parse checks the flags and reads the configuration.
func (o *BatchOptions) parse(c *cobra.Command, shard, format string) error {
	if o.Dir == "" && !o.DryRun {
		return flagErrorf("-d OUTDIR is required: the folder for the transcripts and results.jsonl")
	}
	if o.Jobs < 1 {
		return flagErrorf("-j %d: run at least 1 item at once", o.Jobs)
	}
	if shard != "" {
		s, err := batch.ParseShard(shard)
		if err != nil {
			return flagErrorf("--shard %v", err)
		}
		o.Shard = s
	}
	switch batch.Format(format) {
	case batch.FormatAuto, batch.FormatJSONL, batch.FormatText:
		o.Format = batch.Format(format)
	default:
		return flagErrorf("--format %q: use jsonl or text", format)
	}
	cfg, err := configFor(c, o.IO)
	if err != nil {
		return err
	}
	o.config = cfg
	if err := o.checkBatchAPI(c, cfg); err != nil {
		return err
	}
	useModel(cfg, &o.Model)
	o.ToolsDirs, o.toolsSetting = cfg.ToolsDirs, toolsSetting(cfg)
	o.MCPConfig, o.mcpSetting, o.mcpServers = cfg.MCPConfig, mcpSetting(cfg), cfg.MCPServers
	o.MaxSteps, o.Parallel = cfg.MaxSteps, cfg.Parallel
	o.Limits.useConfig(cfg)
	o.OTel = otelSetting(cfg)
	if err := o.Schema.useConfig(cfg); err != nil {
		return err
	}
	if o.Sandbox, err = sandboxFrom(o.IO, cfg); err != nil {
		return err
	}
	return o.check(c)
}

func runBatch(ctx context.Context, opts *BatchOptions) error {
	ios := opts.IO
	items, err := readBatchInput(ios, opts.Input, opts.Format)
	if err != nil {
		return err
	}
	if opts.Dir != "" {
		if err := batch.CheckDir(opts.Dir); err != nil {
			return flagErrorf("-d %s: %v; name a folder for the transcripts and %s", opts.Dir, err, batch.ResultsName)
		}
	}
	// The tools load once for the batch: its MCP servers start once and
	// serve every item.
	ts, started, err := liveTools(ctx, ios, &opts.liveOptions, opts.setup(&opts.Model))
	if err != nil {
		return err
	}
	defer ts.Close()
	if opts.Verbose && !opts.Quiet {
		for _, line := range started {
			fmt.Fprintln(ios.ErrOut, line)
		}
	}
	if err := opts.checkProviders(items); err != nil {
		if !opts.DryRun {
			return err
		}
		// The input is what a dry run checks; a key it was not given is
		// the run's to need.
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: a run would stop here: %s\n", termtext.Safe(secrets(ios).RedactString(err.Error())))
	}
	if opts.DryRun {
		return batchDryRun(ios, opts, items)
	}

	dir, done, torn, err := batch.OpenDir(opts.Dir)
	if err != nil {
		// Nothing ran: the folder given is not one a batch can use.
		return &ExitError{Code: ExitUsage, Err: err}
	}
	defer dir.Close()
	if torn != nil {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s:%d: the last line was cut short (the batch writing it was stopped) and is removed; that item's result is read again from its transcript\n",
			termtext.Safe(filepath.Join(opts.Dir, batch.ResultsName)), torn.Line)
	}
	if dir.Caseless() {
		if err := inputError(ios, batch.CaseClashes(items), opts.Input); err != nil {
			return err
		}
	}
	plan := batch.NewPlan(items, done, batch.PlanOptions{Shard: opts.Shard, RetryFailed: opts.RetryFailed})
	if err := inputError(ios, batch.OtherPrompts(opts.Dir, items, plan.Finished, engine.ItemPrompt), opts.Input); err != nil {
		return err
	}
	if n := len(plan.Unknown); n > 0 && !opts.Quiet {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s holds %d result%s of ids %s does not have; they are left as they are\n",
			termtext.Safe(filepath.Join(opts.Dir, batch.ResultsName)), n, plural(n, "", "s"), termtext.Safe(opts.Input))
	}

	prog := newBatchProgress(ios, opts.Verbose, opts.Quiet, len(plan.Tasks))
	b := &batchItems{
		ios: ios, opts: opts, dir: dir, prog: prog,
		net: liveNet{Net: engine.Net{Client: httpretry.NewClient(opts.Jobs), Limiter: httpretry.NewLimiter()}, trace: newTracer(ctx, ios, opts.OTel, opts.Verbose)},
	}
	defer b.net.trace.Close()
	opts.batchSpan = tracing.NewBatchSpan(ios.Getenv("TRACEPARENT"))
	// The pool's connections end with the batch, not with the process:
	// they would otherwise outlive it (a batch run from a program).
	defer b.net.Client.CloseIdleConnections()
	prog.SetLimiter(b.net.Limiter)
	prog.SetRedact(toolSecrets(ios, ts).RedactString)
	b.ap = newApprover(ios, ts, opts.Approval, false, prog)
	run, jobs, runCtx := b.run, opts.Jobs, ctx
	if opts.API.On {
		// Every item runs at once: each waits on its round's batch.
		if b.rounds, runCtx, err = startRounds(ctx, opts, prog, len(plan.Tasks)); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		run, jobs = b.rounds.Run(b.run), max(len(plan.Tasks), 1)
	}
	rep := batch.Run(runCtx, plan.Tasks, batch.Options{
		Jobs: jobs, Run: run, Record: dir.Results.Append, OnStart: prog.Start, OnDone: prog.Done,
	})
	var stopped error
	if b.rounds != nil {
		stopped = engine.RoundsStopped(runCtx, errInterrupted)
		b.rounds.Wait()
	}
	b.ap.Close()
	prog.Close()
	if stopped != nil {
		fmt.Fprintf(ios.ErrOut, "agentloop: the batch stopped: %s\n", termtext.Safe(secrets(ios).RedactString(stopped.Error())))
	}

	limited := b.net.Limiter.Status()
	e := &batch.RunEnd{Plan: plan, Report: rep, Throttled: limited.Throttled, Waited: limited.Waited}
	e.Summary = batch.Summarize(append(plan.Finished, rep.Finished...), 5)
	e.Summary.AddSpent(rep.Unfinished)
	if !opts.Quiet {
		e.Write(ios.ErrOut, opts.Shard, opts.Dir, opts.RetryFailed)
	}
	if opts.JSON {
		if err := writeJSON(ios, e.JSON(opts.Shard, opts.Dir)); err != nil {
			return err
		}
	}
	return batchExit(ctx, opts, rep, &e.Summary)
}

// setup is the live-run setup of an item run with mo.
func (o *BatchOptions) setup(mo *modelOptions) liveSetup {
	return liveSetup{command: "batch", model: mo, tools: toolsSource{o.ToolsDirs, o.toolsSetting}, only: o.Tools, batchSpan: o.batchSpan}
}
