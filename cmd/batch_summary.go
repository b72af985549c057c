package cmd

import (
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/pkg/batch"
)

// batchDryRun says what a run would do, having checked the input, the
// flags, the tools and the providers; it calls no model and writes
// nothing.
func batchDryRun(ios *IOStreams, opts *BatchOptions, items []batch.Item) error {
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
		if err := inputError(ios, batch.OtherPrompts(opts.Dir, items, plan.Finished, itemPrompt), opts.Input); err != nil {
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
