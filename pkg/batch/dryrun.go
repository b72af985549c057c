package batch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/termtext"
)

// DryRun is what a run of a batch would do, as batch --dry-run says it.
type DryRun struct {
	Input       string `json:"input"`
	Items       int    `json:"items"`
	Shard       string `json:"shard,omitempty"`
	OtherShards int    `json:"other_shards"`
	ToRun       int    `json:"to_run"`
	Retry       int    `json:"retry"`
	Continue    int    `json:"continue"`
	Finished    int    `json:"finished"`

	shard Shard
	dir   string
}

// NewDryRun says what a run of plan, made of the items of input, would
// do in dir ("" for none): the tasks of which a transcript in dir is gone
// on from are counted.
func NewDryRun(input string, items []Item, plan Plan, shard Shard, dir string) DryRun {
	d := DryRun{Input: input, Items: len(items), Shard: shard.String(), OtherShards: plan.OtherShards, ToRun: len(plan.Tasks),
		Retry: plan.Retried, Finished: len(plan.Finished), shard: shard, dir: dir}
	if dir != "" {
		for _, t := range plan.Tasks {
			if _, err := os.Stat(filepath.Join(dir, FileName(t.Item.ID)+".jsonl")); err == nil {
				d.Continue++
			}
		}
	}
	return d
}

// Write says it in words.
func (d *DryRun) Write(w io.Writer) {
	fmt.Fprintf(w, "%s: %d item%s, no problems\n", termtext.Safe(d.Input), d.Items, plural(d.Items, "", "s"))
	if d.shard.N > 1 {
		n := d.Items - d.OtherShards
		fmt.Fprintf(w, "shard %s: %d item%s (%d in other shards)\n", d.shard, n, plural(n, "", "s"), d.OtherShards)
	}
	if d.dir == "" {
		fmt.Fprintf(w, "a run would run %d item%s\n", d.ToRun, plural(d.ToRun, "", "s"))
		return
	}
	fmt.Fprintf(w, "%s: %d finished, %d to run", termtext.Safe(d.dir), d.Finished, d.ToRun)
	var notes []string
	if d.Retry > 0 {
		notes = append(notes, fmt.Sprintf("%d retried", d.Retry))
	}
	if n := d.Continue; n > 0 {
		notes = append(notes, fmt.Sprintf("%d going on from %s transcript%s", n, plural(n, "its", "their"), plural(n, "", "s")))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(notes, ", "))
	}
	fmt.Fprintln(w)
}
