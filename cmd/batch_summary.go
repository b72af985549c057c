package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/batch"
)

// batchEnd is how a batch's run went.
type batchEnd struct {
	plan    batch.Plan
	rep     batch.Report
	sum     batch.Summary
	limited httpretry.LimiterStatus
}

// printBatchSummary says on stderr how the batch went: the items by how
// they ended, what this run did, tokens and cost, the slowest items.
func printBatchSummary(ios *IOStreams, opts *BatchOptions, e *batchEnd) {
	w := ios.ErrOut
	plan, rep, sum := e.plan, e.rep, &e.sum
	scope := ""
	if opts.Shard.N > 1 {
		scope = fmt.Sprintf(" of shard %s", opts.Shard)
	}
	left := len(rep.Unfinished) + rep.NotStarted
	fmt.Fprintf(w, "batch: %d item%s%s: %d answered, %d failed, %d out of budget", sum.Items+left, plural(sum.Items+left, "", "s"), scope, sum.Answered, sum.Failed, sum.Budget)
	if left > 0 {
		fmt.Fprintf(w, ", %d not finished", left)
	}
	fmt.Fprintln(w)
	if len(sum.ByReason) > 0 {
		fmt.Fprintf(w, "  by reason: %s\n", reasons(sum.ByReason))
	}
	ran := len(rep.Finished) + len(rep.Unfinished)
	fmt.Fprintf(w, "  this run: %d run", ran)
	if plan.Retried > 0 {
		fmt.Fprintf(w, " (%d retried)", plan.Retried)
	}
	if n := len(plan.Finished); n > 0 {
		fmt.Fprintf(w, ", %d finished before", n)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  tokens: %d in, %d out", sum.Usage.InputTokens, sum.Usage.OutputTokens)
	fmt.Fprintln(w, costText(sum)+batchCostText(sum))
	if n := e.limited.Throttled; n > 0 {
		fmt.Fprintf(w, "  rate limited: %d answer%s asked to slow down; requests waited %s in all\n",
			n, plural(n, "", "s"), e.limited.Waited.Round(time.Millisecond))
	}
	printSlowest(w, sum)
	printFailures(w, sum)
	if sum.Retryable > 0 && !opts.RetryFailed {
		fmt.Fprintf(w, "  %d item%s ended in an error: --retry-failed runs %s again\n", sum.Retryable, plural(sum.Retryable, "", "s"), plural(sum.Retryable, "it", "them"))
	}
	if n := sum.Unrecorded; n > 0 {
		fmt.Fprintf(w, "  %d item%s could not be recorded in %s: make room, and run the same command again to run %s\n", n, plural(n, "", "s"), safeText(opts.Dir), plural(n, "it", "them"))
	}
	fmt.Fprintf(w, "  results: %s\n", safeText(filepath.Join(opts.Dir, batch.ResultsName)))
}

// printSlowest names the items that took longest.
func printSlowest(w io.Writer, sum *batch.Summary) {
	if len(sum.Slowest) == 0 {
		return
	}
	var parts []string
	for _, r := range sum.Slowest {
		parts = append(parts, fmt.Sprintf("%s %s", oneLineText(r.ID, 60), (time.Duration(r.DurationMS)*time.Millisecond).Round(time.Millisecond)))
	}
	fmt.Fprintf(w, "  slowest: %s\n", strings.Join(parts, " · "))
}

// printFailures names the first items that failed and why, in input
// order: piped, the summary is all a batch shows, and "11 failed" alone
// sends the reader to the results file for the first thing they want.
func printFailures(w io.Writer, sum *batch.Summary) {
	for _, f := range sum.Failures {
		why := f.Error
		if why == "" {
			why = f.Reason
		}
		fmt.Fprintf(w, "  failed: %s: %s\n", oneLineText(f.ID, 60), oneLineText(why, 200))
	}
	if n := sum.Failed - len(sum.Failures); n > 0 {
		fmt.Fprintf(w, "  … and %d more failed (the results file has each)\n", n)
	}
}

// costText ends the tokens line: the cost of the items priced, or that
// it is unknown (no price for their models), as run's closing line says.
func costText(sum *batch.Summary) string {
	switch {
	case sum.Cost == nil && sum.Items == 0 && sum.Usage.InputTokens+sum.Usage.OutputTokens == 0:
		return "" // nothing ran
	case sum.Cost == nil:
		return " · cost unknown"
	case sum.Priced < sum.Items:
		return fmt.Sprintf(" · cost $%.4f (%d of %d items priced)", *sum.Cost, sum.Priced, sum.Items)
	}
	return fmt.Sprintf(" · cost $%.4f", *sum.Cost)
}

// reasons lists counts by reason, most first.
func reasons(by map[string]int) string {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if by[a] != by[b] {
			return by[b] - by[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		// A reason comes from a results file, a shard's maybe: shown,
		// never obeyed.
		parts[i] = fmt.Sprintf("%s %d", oneLineText(k, 40), by[k])
	}
	return strings.Join(parts, " · ")
}

// batchSummaryJSON is what --json prints.
type batchSummaryJSON struct {
	batch.Summary
	Shard       string `json:"shard,omitempty"`
	Ran         int    `json:"ran"`
	Retried     int    `json:"retried"`
	Before      int    `json:"finished_before"`
	NotFinished int    `json:"not_finished"`
	Throttled   int    `json:"throttled"`
	Results     string `json:"results"`
}

func batchJSON(opts *BatchOptions, e *batchEnd) batchSummaryJSON {
	return batchSummaryJSON{
		Summary: e.sum, Shard: opts.Shard.String(), Ran: len(e.rep.Finished) + len(e.rep.Unfinished), Retried: e.plan.Retried,
		Before: len(e.plan.Finished), NotFinished: len(e.rep.Unfinished) + e.rep.NotStarted, Throttled: e.limited.Throttled,
		Results: filepath.Join(opts.Dir, batch.ResultsName),
	}
}

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
