package replay

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
)

// WriteReport writes the rows, each divergence's diff after its row, and
// the summary to w (stderr), and says whether any call diverged.
func WriteReport(w io.Writer, rows []Row) bool {
	// Ids, names and diffs come from the recording and the tools: shown,
	// not obeyed.
	idW, nameW := 0, 0
	for i := range rows {
		rows[i].ID, rows[i].Name = termtext.Display(rows[i].ID, 200), termtext.Display(rows[i].Name, 200)
		idW, nameW = max(idW, len(rows[i].ID)), max(nameW, len(rows[i].Name))
	}
	counts := map[Status]int{}
	failed := false
	for _, r := range rows {
		prefix := ""
		if r.Line > 0 {
			prefix = fmt.Sprintf("line %d ", r.Line)
		}
		status := string(r.Status)
		if r.Status == NotRun && r.Recorded != "" {
			status += " (" + termtext.Display(r.Recorded, 100) + " in the recording)"
		}
		fmt.Fprintf(w, "%sstep %d  %-*s  %-*s  %s\n", prefix, r.Step, idW, r.ID, nameW, r.Name, status)
		counts[r.Status]++
		if r.Status.Diverged() {
			failed = true
			io.WriteString(w, termtext.Safe(string(r.Diff)))
		}
	}
	var parts []string
	for _, s := range Statuses {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ToLower(string(s))))
		}
	}
	summary := "no tool calls to replay"
	if len(rows) > 0 {
		summary = fmt.Sprintf("%d call%s: %s", len(rows), english.Plural(len(rows), "", "s"), strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "replay: %s\n", summary)
	return failed
}

// WriteConformance says on w (stderr) whether the replayed answer matches
// the schema the recording records, and reports whether it does not (a
// failure of the replay, as a divergence is); nil says nothing.
func WriteConformance(w io.Writer, c *Conformance) bool {
	if c == nil {
		return false
	}
	if c.OK {
		fmt.Fprintln(w, "replay: the answer matches the recorded schema")
		return false
	}
	fmt.Fprintf(w, "replay: the answer does not match the recorded schema: %s\n", termtext.Display(strings.Join(c.Problems, "; "), 2000))
	return true
}
