package cmd

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

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
their latest run.

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
	f.StringVar(&since, "since", "", "only runs started after `WHEN`: an age (7d, 12h), a date (2026-01-31) or an RFC 3339 time")
	c.AddCommand(newCmdLogShow(ios, nil))
	c.AddCommand(newCmdLogPath(ios, nil))
	c.AddCommand(newCmdLogPrune(ios, nil))
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
	sel, err := history.List(opts.Dir, history.Query{Limit: opts.Limit, Since: opts.Since, Search: opts.Search, Answers: opts.JSON})
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
		err = writeLogTable(out, ios, threads)
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
	Tokens   int64             `json:"tokens"`
	Prompt   string            `json:"prompt"`
	Answer   string            `json:"answer,omitempty"`
	Size     int64             `json:"size"`
	Problem  string            `json:"problem,omitempty"`
}

// threadRun is a run as the listing shows it, with the id of the
// conversation it belongs to ("" for a foreign file).
type threadRun struct {
	history.Run
	thread string
}

// flatten lists the runs of the threads in order.
func flatten(threads []history.Thread) []threadRun {
	var runs []threadRun
	for _, t := range threads {
		for _, r := range t {
			runs = append(runs, threadRun{r, t[0].ID()})
		}
	}
	return runs
}

// inParts calls f on consecutive parts of [0, n), part k of parts, at once
// on every core: the lines of a listing of thousands are formatted
// faster than one at a time, and written in order after.
func inParts(n int, f func(k, lo, hi int)) (parts int) {
	parts = max(1, min(runtime.GOMAXPROCS(0), n/256))
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { f(k, n*k/parts, n*(k+1)/parts) })
	}
	wg.Wait()
	return parts
}

func writeLogJSON(w io.Writer, threads []history.Thread) error {
	runs := flatten(threads)
	bufs := make([]bytes.Buffer, runtime.GOMAXPROCS(0))
	errs := make([]error, len(bufs))
	parts := inParts(len(runs), func(k, lo, hi int) {
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

func newLogLine(r threadRun) logLine {
	e := r.Entry
	l := logLine{ID: e.ID(), Path: e.Path, Time: e.Time(), End: e.State(), Steps: e.Steps(), Tokens: e.Tokens(),
		Prompt: e.Prompt, Answer: e.Answer, Size: e.Size, Problem: e.Problem}
	if h := e.Header; h != nil {
		l.Provider, l.Model, l.Command, l.ParentID = h.Provider, h.Model, h.Command, h.ParentID
		l.Thread = r.thread
	}
	if e.End != nil {
		u := e.End.Usage
		l.Usage, l.Error = &u, e.End.Error
	}
	return l
}

// logRowCells are the cells of a line of the table.
type logRowCells struct{ id, when, model, steps, tokens, end, prompt string }

// writeLogTable prints one aligned line a run, under a line of titles.
func writeLogTable(out io.Writer, ios *IOStreams, threads []history.Thread) error {
	runs := flatten(threads)
	rows := make([]logRowCells, 1+len(runs))
	rows[0] = logRowCells{"ID", "STARTED", "MODEL", "STEPS", "TOKENS", "END", "PROMPT"}
	inParts(len(runs), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[1+i] = logRow(runs[i].Run)
		}
	})
	entries := make([]*history.Entry, len(runs))
	for i, r := range runs {
		entries[i] = r.Entry
	}
	for i, id := range history.ShortIDs(entries) {
		if id != "" {
			rows[1+i].id = cell(id, 16)
		}
	}
	var w [6]int
	for _, r := range rows {
		for i, s := range []string{r.id, r.when, r.model, r.steps, r.tokens, r.end} {
			w[i] = max(w[i], textWidth(s))
		}
	}
	var line []byte
	for _, r := range rows {
		line = appendPad(line[:0], r.id, w[0], false)
		line = appendPad(append(line, "  "...), r.when, w[1], false)
		line = appendPad(append(line, "  "...), r.model, w[2], false)
		line = appendPad(append(line, "  "...), r.steps, w[3], true)
		line = appendPad(append(line, "  "...), r.tokens, w[4], true)
		line = appendPad(append(line, "  "...), r.end, w[5], false)
		line = append(append(line, "  "...), r.prompt...)
		line = bytes.TrimRight(line, " ")
		if ios.IsStdoutTTY() {
			line = append([]byte(truncateWidth(string(line), ios.Width())), '\n')
		} else {
			line = append(line, '\n')
		}
		if _, err := out.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// appendPad appends s padded with spaces to w columns: on the left when
// right (numbers align right), else on the right.
func appendPad(b []byte, s string, w int, right bool) []byte {
	const spaces = "                                "
	n := max(0, w-textWidth(s))
	if !right {
		b = append(b, s...)
	}
	for ; n > 0; n -= min(n, len(spaces)) {
		b = append(b, spaces[:min(n, len(spaces))]...)
	}
	if right {
		b = append(b, s...)
	}
	return b
}

func logRow(r history.Run) (row logRowCells) {
	e := r.Entry
	row.when = e.Time().Local().Format("2006-01-02 15:04")
	row.end = cell(e.State(), 20)
	if e.Header == nil {
		row.id, row.model, row.steps, row.tokens = "-", "-", "-", "-"
		row.prompt = oneLineText(filepath.Base(e.Path)+": "+e.Problem, 200)
		return row
	}
	row.id = cell(e.ShortID(), 8)
	row.model = cell(e.Header.Provider+"/"+e.Header.Model, 32)
	row.steps = strconv.Itoa(e.Steps())
	row.tokens = "-"
	if e.End != nil {
		row.tokens = shortCount(e.Tokens())
	}
	prompt := firstLine(e.Prompt)
	switch {
	case prompt == "":
		prompt = "(no prompt)"
	case strings.Contains(strings.TrimSpace(e.Prompt), "\n"):
		prompt += " …"
	}
	prompt = cell(prompt, 120)
	if r.Depth > 0 {
		prompt = strings.Repeat("  ", r.Depth-1) + "↳ " + prompt
	}
	row.prompt = prompt
	return row
}

// cell is text from a transcript made fit for one cell of the table: on
// one line, safe for a terminal, at most max characters. Most cells are
// short printable ASCII, which passes as it is.
func cell(s string, max int) string {
	if len(s) <= max {
		plain := true
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < ' ' || c > '~' {
				plain = false
				break
			}
		}
		if plain && !strings.Contains(s, "  ") {
			return s
		}
	}
	return oneLineText(s, max)
}

// shortCount writes a count in at most five characters: 950, 12.3k, 4.1M.
func shortCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 100_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}
