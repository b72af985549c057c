package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// batchDryRun says what a run would do, having checked the input, the
// flags, the tools and the providers; it calls no model and writes
// nothing.
func batchDryRun(ios *iostreams.IOStreams, opts *BatchOptions, items []batch.Item) error {
	var done []batch.Result
	if opts.Dir != "" {
		rs, _, err := batch.ReadResults(filepath.Join(opts.Dir, batch.ResultsName))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		done = rs
	}
	plan := batch.NewPlan(items, done, batch.PlanOptions{Shard: opts.Shard, RetryFailed: opts.RetryFailed})
	if opts.Dir != "" {
		if err := inputError(ios, batch.OtherPrompts(opts.Dir, items, plan.Finished, engine.ItemPrompt), opts.Input); err != nil {
			return err
		}
	}
	d := batch.NewDryRun(opts.Input, items, plan, opts.Shard, opts.Dir)
	if opts.JSON {
		return writeJSON(ios, d)
	}
	d.Write(ios.Out)
	return nil
}

// batchExit is the batch's exit status, in this order: interrupted (130),
// a result not written (1), a failed item (1), a budget run out (3), else
// 0. Every item of the input in this shard counts, those an earlier run
// finished too.
func batchExit(ctx context.Context, opts *BatchOptions, rep batch.Report, sum *batch.Summary) error {
	left := len(rep.Unfinished) + rep.NotStarted
	switch {
	case rep.Err != nil:
		return fmt.Errorf("%w; the batch stopped: %d item%s did not finish (run the same command again to go on)", rep.Err, left, plural(left, "", "s"))
	case left > 0 || errors.Is(context.Cause(ctx), errInterrupted):
		return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted: %d item%s did not finish; run the same command again to go on", left, plural(left, "", "s"))}
	}
	var msg error
	if opts.Quiet && sum.Worst() != batch.Answered {
		msg = fmt.Errorf("%s (see %s)", sum.FailedText(0), filepath.Join(opts.Dir, batch.ResultsName))
	}
	switch sum.Worst() {
	case batch.Failed:
		return &ExitError{Code: ExitFailure, Err: msg}
	case batch.Budget:
		return &ExitError{Code: ExitBudget, Err: msg}
	}
	return nil
}
