package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/replacefile"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// BatchMergeOptions are the inputs of `agentloop batch merge`.
type BatchMergeOptions struct {
	IO     *iostreams.IOStreams
	Dirs   []string
	Output string
	Input  string
	Format batch.Format
	JSON   bool
	Quiet  bool
}

func newCmdBatchMerge(ios *iostreams.IOStreams, runF func(context.Context, *BatchMergeOptions) error) *cobra.Command {
	opts := &BatchMergeOptions{IO: ios}
	var format string
	c := &cobra.Command{
		Use:   "merge OUTDIR...",
		Short: "Put the results of a batch's shards together",
		Long: `Read the results.jsonl of each OUTDIR (the shards of one batch) and print
them as one results file, one line per item, in input order; each line's
transcript is made a path from here (OUTDIR/ID.jsonl). A summary of the whole
set goes to stderr (--json prints it on stdout, with the results in -o).

An id found in two folders (a shard run twice) keeps the result that finished
last. With --input, the items of the input that no folder has a result for
are listed, and the merge fails.

Exit codes as batch: 0 every item answered, 1 an item failed or is missing,
3 an item ran out of budget and none failed, 2 usage or a folder that is not
a batch's OUTDIR (no results.jsonl).`,
		Example: `  agentloop batch merge out-0 out-1 out-2 out-3 > results.jsonl
  agentloop batch merge shards/* --input evals.jsonl -o results.jsonl`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return flagErrorf("%s needs at least one OUTDIR", c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.Dirs = args
			opts.Format = batch.Format(format)
			if opts.JSON && opts.Output == "" {
				return flagErrorf("--json prints the summary on stdout: give -o FILE for the results")
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runBatchMerge(opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write the merged results to `FILE` (default: stdout)")
	f.StringVarP(&opts.Input, "input", "i", "", "the batch's `INPUT`: order the results as it does, and report the items no shard has")
	f.StringVar(&format, "format", "", "INPUT's format: jsonl or text (default: by its extension, else by its first line)")
	f.BoolVar(&opts.JSON, "json", false, "print the summary as one JSON object on stdout")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "show nothing on stderr but errors")
	return c
}

func runBatchMerge(opts *BatchMergeOptions) error {
	ios := opts.IO
	if err := batch.CheckMergeOutput(opts.Output, opts.Input, opts.Dirs); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var items []batch.Item
	if opts.Input != "" {
		var err error
		if items, err = readBatchInput(ios, opts.Input, opts.Format); err != nil {
			return err
		}
	}
	m, err := batch.Merge(opts.Dirs, items)
	if err != nil {
		// A folder that is not a batch's OUTDIR, or whose results file
		// is not one: nothing was merged.
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !opts.Quiet {
		for _, d := range m.Torn {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s: the last line was cut short (the batch writing it was stopped); it is left out\n", termtext.Safe(filepath.Join(d, batch.ResultsName)))
		}
		for _, d := range m.Duplicates {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s is in %s; the result that finished last is kept\n", termtext.OneLine(d.ID, 80), termtext.Safe(strings.Join(d.Dirs, " and ")))
		}
	}
	if err := writeMerged(ios, opts.Output, m.Results); err != nil {
		return err
	}
	sum := batch.Summarize(m.Results, 5)
	if !opts.Quiet {
		batch.WriteMerge(ios.ErrOut, m, &sum, opts.Input)
	}
	if opts.JSON {
		out := struct {
			batch.Summary
			Missing    int `json:"missing"`
			Duplicates int `json:"duplicates"`
		}{sum, len(m.Missing), len(m.Duplicates)}
		if err := writeJSON(ios, out); err != nil {
			return err
		}
	}
	var msg error
	if opts.Quiet && (sum.Worst() != batch.Answered || len(m.Missing) > 0) {
		msg = errors.New(sum.FailedText(len(m.Missing)))
	}
	switch {
	case sum.Worst() == batch.Failed || len(m.Missing) > 0:
		return &ExitError{Code: ExitFailure, Err: msg}
	case sum.Worst() == batch.Budget:
		return &ExitError{Code: ExitBudget, Err: msg}
	}
	return nil
}

// writeMerged writes the results, one a line, to stdout or to a file made
// whole (0600) before it takes its name.
func writeMerged(ios *iostreams.IOStreams, path string, results []batch.Result) error {
	write := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	if path == "" || path == "-" {
		return write(jsonOut(ios))
	}
	return replacefile.Write(path, write)
}
