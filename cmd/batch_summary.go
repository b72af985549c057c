package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	resume := 0
	if opts.Dir != "" {
		if err := inputError(ios, batch.OtherPrompts(opts.Dir, items, plan.Finished, itemPrompt), opts.Input); err != nil {
			return err
		}
		for _, t := range plan.Tasks {
			if _, err := os.Stat(filepath.Join(opts.Dir, batch.FileName(t.Item.ID)+".jsonl")); err == nil {
				resume++
			}
		}
	}
	out := struct {
		Input       string `json:"input"`
		Items       int    `json:"items"`
		Shard       string `json:"shard,omitempty"`
		OtherShards int    `json:"other_shards"`
		ToRun       int    `json:"to_run"`
		Retry       int    `json:"retry"`
		Continue    int    `json:"continue"`
		Finished    int    `json:"finished"`
	}{opts.Input, len(items), opts.Shard.String(), plan.OtherShards, len(plan.Tasks), plan.Retried, resume, len(plan.Finished)}
	if opts.JSON {
		return writeJSON(ios, out)
	}
	fmt.Fprintf(ios.Out, "%s: %d item%s, no problems\n", safeText(opts.Input), len(items), plural(len(items), "", "s"))
	if opts.Shard.N > 1 {
		fmt.Fprintf(ios.Out, "shard %s: %d item%s (%d in other shards)\n", opts.Shard, len(items)-plan.OtherShards, plural(len(items)-plan.OtherShards, "", "s"), plan.OtherShards)
	}
	if opts.Dir == "" {
		fmt.Fprintf(ios.Out, "a run would run %d item%s\n", len(plan.Tasks), plural(len(plan.Tasks), "", "s"))
		return nil
	}
	fmt.Fprintf(ios.Out, "%s: %d finished, %d to run", safeText(opts.Dir), len(plan.Finished), len(plan.Tasks))
	var notes []string
	if plan.Retried > 0 {
		notes = append(notes, fmt.Sprintf("%d retried", plan.Retried))
	}
	if resume > 0 {
		notes = append(notes, fmt.Sprintf("%d going on from %s transcript%s", resume, plural(resume, "its", "their"), plural(resume, "", "s")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(ios.Out, " (%s)", strings.Join(notes, ", "))
	}
	fmt.Fprintln(ios.Out)
	return nil
}
