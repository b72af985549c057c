package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// LogOptions are the inputs of `agentloop log`.
type LogOptions struct {
	IO *IOStreams
	// Dir is the folder of transcripts: --dir, else the configured
	// transcript_dir.
	Dir    string
	Limit  int
	JSON   bool
	Search string
	Since  time.Time
}

func newCmdLog(ios *IOStreams, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{IO: ios}
	var since string
	c := &cobra.Command{
		Use:   "log",
		Short: "List past runs, newest first",
		Long: `List the runs whose transcripts are in the transcript folder
($XDG_STATE_HOME/agentloop/transcripts, or transcript_dir in the configuration;
--dir for another), and those written elsewhere with -o, which the folder's
index names, newest first, one line each: the short id, when it started,
the provider and model, the model calls made, the tokens used, how it ended
(stop, max_steps, error, interrupted, …; "unfinished" for a run still going or
killed, "torn" for a file whose last line was cut off, "foreign" for a file
that is not a transcript) and the first line of the prompt.

A run that continued another ('agentloop run -c', 'replay --resume') is shown
under it, marked ↳: a conversation reads as one thread, the threads ordered by
their latest run. -n counts runs; neither it nor a filter changes where a
listed run sits in its conversation.

Of each run only the first records and the last ones are read, and only the runs
shown: a file's name holds its start time. The newest runs of a folder of
thousands take a fraction of a second; listing all of them (-n 0, --search)
about 50 µs of CPU time a run.`,
		Example: `  agentloop log
  agentloop log -n 5 --search tokyo
  agentloop log --since 7d --json | jq -r .id
  agentloop log show last
  agentloop validate "$(agentloop log path last)"
  agentloop log prune --older-than 30d --yes`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return flagErrorf("-n %d: give a number of runs, or 0 for all", opts.Limit)
			}
			if since != "" {
				t, err := history.ParseSince(since, time.Now())
				if err != nil {
					return flagErrorf("--since: %v", err)
				}
				opts.Since = t
			}
			dir, err := logDir(c, ios)
			if err != nil {
				return err
			}
			opts.Dir = dir
			if runF != nil {
				return runF(opts)
			}
			return runLog(opts)
		},
	}
	c.PersistentFlags().String("dir", "", "read the transcripts in `DIR` instead of the transcript folder")
	f := c.Flags()
	f.IntVarP(&opts.Limit, "limit", "n", 20, "show the newest `N` runs; 0 for all")
	f.BoolVar(&opts.JSON, "json", false, "print one JSON object a line instead of the table")
	f.StringVar(&opts.Search, "search", "", "only runs whose prompt or answer holds `TEXT` (ignoring case)")
	f.StringVar(&since, "since", "", "only runs started after `WHEN`: an age (7d, 12h, 90min), a date (2026-01-31) or an RFC 3339 time")
	c.AddCommand(newCmdLogShow(ios, nil))
	c.AddCommand(newCmdLogPath(ios, nil))
	c.AddCommand(newCmdLogPrune(ios, nil))
	c.AddCommand(newCmdLogExport(ios, nil))
	return c
}

// logDir is --dir, else the configured transcript folder.
func logDir(c *cobra.Command, ios *IOStreams) (string, error) {
	if d, _ := c.Flags().GetString("dir"); d != "" {
		// A folder named by hand that is not there is a typo, not an
		// empty history (the transcript folder is made by the first run).
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("--dir %s: no such folder", displayText(d, 200))}
		}
		return d, nil
	}
	cfg, err := configFor(c, ios)
	if err != nil {
		return "", err
	}
	return cfg.TranscriptDir, nil
}

func runLog(opts *LogOptions) error {
	ios := opts.IO
	sel, err := history.List(opts.Dir, history.Query{Limit: opts.Limit, Since: opts.Since, Search: opts.Search, Answers: opts.JSON, Parents: true})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("read the transcript folder: %w", err)}
	}
	if len(sel) == 0 {
		if !opts.JSON {
			what := "no runs in " + displayText(opts.Dir, len(opts.Dir))
			if opts.Search != "" || !opts.Since.IsZero() {
				what = "no runs match"
			}
			fmt.Fprintln(ios.ErrOut, what)
		}
		return nil
	}
	threads := history.Threads(sel)
	// Thousands of lines go out in a few writes, not one each.
	w := ios.Out
	if opts.JSON {
		w = jsonOut(ios)
	}
	out := bufio.NewWriterSize(w, 64<<10)
	if opts.JSON {
		err = writeLogJSON(out, threads)
	} else {
		err = history.WriteTable(out, threads, ios.IsStdoutTTY(), ios.Width())
	}
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

// logLine is one run as `agentloop log --json` prints it.
type logLine struct {
	ID       string            `json:"id,omitempty"`
	Path     string            `json:"path"`
	Time     time.Time         `json:"time"`
	Provider string            `json:"provider,omitempty"`
	Model    string            `json:"model,omitempty"`
	Command  string            `json:"command,omitempty"`
	ParentID string            `json:"parent_id,omitempty"`
	Thread   string            `json:"thread,omitempty"`
	End      string            `json:"end"`
	Error    string            `json:"error,omitempty"`
	Steps    int               `json:"steps"`
	Usage    *transcript.Usage `json:"usage,omitempty"`
	CostUSD  *float64          `json:"cost_usd,omitempty"`
	Tokens   int64             `json:"tokens"`
	Prompt   string            `json:"prompt"`
	Answer   string            `json:"answer,omitempty"`
	Size     int64             `json:"size"`
	Problem  string            `json:"problem,omitempty"`
}

func writeLogJSON(w io.Writer, threads []history.Thread) error {
	runs := history.Flatten(threads)
	bufs := make([]bytes.Buffer, runtime.GOMAXPROCS(0))
	errs := make([]error, len(bufs))
	parts := history.InParts(len(runs), func(k, lo, hi int) {
		enc := json.NewEncoder(&bufs[k])
		enc.SetEscapeHTML(false)
		for _, r := range runs[lo:hi] {
			if errs[k] = enc.Encode(newLogLine(r)); errs[k] != nil {
				return
			}
		}
	})
	for k := range parts {
		if errs[k] != nil {
			return errs[k]
		}
		if _, err := bufs[k].WriteTo(w); err != nil {
			return err
		}
	}
	return nil
}

func newLogLine(r history.ThreadRun) logLine {
	e := r.Entry
	l := logLine{ID: e.ID(), Path: e.Path, Time: e.Time(), End: e.State(), Steps: e.Steps(), Tokens: e.Tokens(),
		Prompt: e.Prompt, Answer: e.Answer, Size: e.Size, Problem: e.Problem}
	if h := e.Header; h != nil {
		l.Provider, l.Model, l.Command, l.ParentID = h.Provider, h.Model, h.Command, h.ParentID
		l.Thread = r.Thread
	}
	if e.End != nil {
		u := e.End.Usage
		l.Usage, l.Error = &u, e.End.Error
		if c := e.End.CostUSD; c != nil {
			// Written by an earlier version, it may carry float noise.
			cost := agent.RoundCost(*c)
			l.CostUSD = &cost
		}
	}
	return l
}
