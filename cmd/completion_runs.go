package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// completeRuns offers the runs of the transcript folder (log show, log
// path, --continue=): "last", then the newest runs' short ids, each
// described by when it started and the first line of its prompt, shown as
// text (a prompt's escape sequences are not sent to the terminal).
func completeRuns(ios *iostreams.IOStreams) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const none = cobra.ShellCompDirectiveNoFileComp
		if c.Name() != "run" && len(args) > 0 {
			return nil, none
		}
		if history.IsPath(toComplete) {
			// A transcript named by its path.
			return []string{"jsonl", "json"}, cobra.ShellCompDirectiveFilterFileExt
		}
		var dir string
		if c.Name() == "run" {
			cfg, err := configFor(c, ios)
			if err != nil {
				return nil, none
			}
			dir = cfg.TranscriptDir
		} else {
			d, err := logDir(c, ios)
			if err != nil {
				return nil, none
			}
			dir = d
		}
		entries, err := history.List(dir, history.Query{Limit: maxRunCompletions, RunsOnly: true})
		if err != nil || len(entries) == 0 {
			return nil, none
		}
		var out []cobra.Completion
		if strings.HasPrefix(history.Last, toComplete) {
			out = append(out, shownCompletion(history.Last, "the newest run"))
		}
		for i, id := range history.ShortIDs(entries) {
			if !strings.HasPrefix(strings.ToLower(id), strings.ToLower(toComplete)) {
				continue
			}
			e := entries[i]
			desc := e.Time().Local().Format("2006-01-02 15:04") + "  " + termtext.OneLine(firstLine(e.Prompt), 60)
			out = append(out, shownCompletion(id, desc))
		}
		return out, none | cobra.ShellCompDirectiveKeepOrder
	}
}

// maxRunCompletions is how many of the newest runs completion offers.
const maxRunCompletions = 50
