package batch

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
)

// The summaries batch and batch merge print on stderr. Ids, reasons and
// errors come from the input, from results files and from servers: they
// are shown escaped, never obeyed.

var plural = english.Plural

// RunEnd is how a batch's run went: what was planned, what ran, what the
// results add up to, and how often the servers asked it to slow down.
type RunEnd struct {
	Plan      Plan
	Report    Report
	Summary   Summary
	Throttled int
	Waited    time.Duration
}

// Write says how the batch went: the items by how they ended, what this
// run did, tokens and cost, the slowest items, the first failures. dir
// is OUTDIR; retryFailed is whether failed items were run again.
func (e *RunEnd) Write(w io.Writer, shard Shard, dir string, retryFailed bool) {
	plan, rep, sum := e.Plan, e.Report, &e.Summary
	scope := ""
	if shard.N > 1 {
		scope = fmt.Sprintf(" of shard %s", shard)
	}
	left := len(rep.Unfinished) + rep.NotStarted
	fmt.Fprintf(w, "batch: %d item%s%s: %d answered, %d failed, %d out of budget", sum.Items+left, plural(sum.Items+left, "", "s"), scope, sum.Answered, sum.Failed, sum.Budget)
	if left > 0 {
		fmt.Fprintf(w, ", %d not finished", left)
	}
	fmt.Fprintln(w)
	if len(sum.ByReason) > 0 {
		fmt.Fprintf(w, "  by reason: %s\n", sum.Reasons())
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
	fmt.Fprintln(w, sum.CostText())
	if n := e.Throttled; n > 0 {
		fmt.Fprintf(w, "  rate limited: %d answer%s asked to slow down; requests waited %s in all\n",
			n, plural(n, "", "s"), e.Waited.Round(time.Millisecond))
	}
	sum.WriteNamed(w)
	if sum.Retryable > 0 && !retryFailed {
		fmt.Fprintf(w, "  %d item%s ended in an error: --retry-failed runs %s again\n", sum.Retryable, plural(sum.Retryable, "", "s"), plural(sum.Retryable, "it", "them"))
	}
	if n := sum.Unrecorded; n > 0 {
		fmt.Fprintf(w, "  %d item%s could not be recorded in %s: make room, and run the same command again to run %s\n", n, plural(n, "", "s"), termtext.Safe(dir), plural(n, "it", "them"))
	}
	fmt.Fprintf(w, "  results: %s\n", termtext.Safe(filepath.Join(dir, ResultsName)))
}

// RunJSON is what batch --json prints.
type RunJSON struct {
	Summary
	Shard       string `json:"shard,omitempty"`
	Ran         int    `json:"ran"`
	Retried     int    `json:"retried"`
	Before      int    `json:"finished_before"`
	NotFinished int    `json:"not_finished"`
	Throttled   int    `json:"throttled"`
	Results     string `json:"results"`
}

// JSON is the run's summary as batch --json prints it.
func (e *RunEnd) JSON(shard Shard, dir string) RunJSON {
	return RunJSON{
		Summary: e.Summary, Shard: shard.String(), Ran: len(e.Report.Finished) + len(e.Report.Unfinished), Retried: e.Plan.Retried,
		Before: len(e.Plan.Finished), NotFinished: len(e.Report.Unfinished) + e.Report.NotStarted, Throttled: e.Throttled,
		Results: filepath.Join(dir, ResultsName),
	}
}

// WriteMerge says what batch merge put together: the items by how they
// ended, tokens and cost, the slowest, the first failures, and the items
// of input (when given) that no folder has.
func WriteMerge(w io.Writer, m *Merged, sum *Summary, input string) {
	fmt.Fprintf(w, "merge: %d item%s from %d folder%s: %d answered, %d failed, %d out of budget", sum.Items, plural(sum.Items, "", "s"),
		m.Folders, plural(m.Folders, "", "s"), sum.Answered, sum.Failed, sum.Budget)
	if len(m.Missing) > 0 {
		fmt.Fprintf(w, ", %d missing", len(m.Missing))
	}
	fmt.Fprintln(w)
	if len(sum.ByReason) > 0 {
		fmt.Fprintf(w, "  by reason: %s\n", sum.Reasons())
	}
	fmt.Fprintf(w, "  tokens: %d in, %d out", sum.Usage.InputTokens, sum.Usage.OutputTokens)
	fmt.Fprintln(w, sum.CostText())
	sum.WriteNamed(w)
	for i, it := range m.Missing {
		if i == 10 {
			fmt.Fprintf(w, "  … and %d more missing\n", len(m.Missing)-10)
			break
		}
		fmt.Fprintf(w, "  missing: %s:%d %s\n", termtext.Safe(input), it.Line, termtext.OneLine(it.ID, 80))
	}
}

// WriteNamed names the items that took longest, then the first items
// that failed and why, in input order: piped, the summary is all a batch
// shows, and "11 failed" alone sends the reader to the results file for
// the first thing they want.
func (s *Summary) WriteNamed(w io.Writer) {
	if len(s.Slowest) > 0 {
		var parts []string
		for _, r := range s.Slowest {
			parts = append(parts, fmt.Sprintf("%s %s", termtext.OneLine(r.ID, 60), (time.Duration(r.DurationMS)*time.Millisecond).Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "  slowest: %s\n", strings.Join(parts, " · "))
	}
	for _, f := range s.Failures {
		why := f.Error
		if why == "" {
			why = f.Reason
		}
		fmt.Fprintf(w, "  failed: %s: %s\n", termtext.OneLine(f.ID, 60), termtext.OneLine(why, 200))
	}
	if n := s.Failed - len(s.Failures); n > 0 {
		fmt.Fprintf(w, "  … and %d more failed (the results file has each)\n", n)
	}
}

// CostText ends the tokens line: the cost of the items priced, or that
// it is unknown (no price for their models), as run's closing line says;
// for items priced at a Batch API's price, beside what they would have
// cost live.
func (s *Summary) CostText() string {
	text := s.costText()
	if s.Cost != nil && s.CostLive != nil {
		text += fmt.Sprintf(" at the batch price ($%.4f live)", *s.CostLive)
	}
	return text
}

func (s *Summary) costText() string {
	switch {
	case s.Cost == nil && s.Items == 0 && s.Usage.InputTokens+s.Usage.OutputTokens == 0:
		return "" // nothing ran
	case s.Cost == nil:
		return " · cost unknown"
	case s.Priced < s.Items:
		return fmt.Sprintf(" · cost $%.4f (%d of %d items priced)", *s.Cost, s.Priced, s.Items)
	}
	return fmt.Sprintf(" · cost $%.4f", *s.Cost)
}

// Reasons lists the counts by reason, most first.
func (s *Summary) Reasons() string {
	by := s.ByReason
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
		parts[i] = fmt.Sprintf("%s %d", termtext.OneLine(k, 40), by[k])
	}
	return strings.Join(parts, " · ")
}

// FailedText says how many items did not answer, for -q; missing counts
// the items of the input no folder has.
func (s *Summary) FailedText(missing int) string {
	var parts []string
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d missing", missing))
	}
	if s.Budget > 0 {
		parts = append(parts, fmt.Sprintf("%d ran out of budget", s.Budget))
	}
	return fmt.Sprintf("%d of %d items: %s", s.Failed+s.Budget+missing, s.Items+missing, strings.Join(parts, ", "))
}
