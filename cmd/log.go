package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

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
--dir for another), newest first, one line each: the short id, when it started,
the provider and model, the model calls made, the tokens used, how it ended
(stop, max_steps, error, interrupted, …; "unfinished" for a run still going or
killed, "torn" for a file whose last line was cut off, "foreign" for a file
that is not a transcript) and the first line of the prompt.

A run that continued another ('agentloop run -c', 'replay --resume') is shown
under it, marked ↳: a conversation reads as one thread, the threads ordered by
their latest run.

Of each run only the first records and the last ones are read, and only the runs
shown: a file's name holds its start time. The newest runs of a folder of
thousands take a fraction of a second; listing all of them (-n 0, --search) about
0.1 ms a run.`,
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
		return fmt.Errorf("read the transcript folder: %w", err)
	}
	if len(sel) == 0 {
		if !opts.JSON {
			what := "no runs in " + opts.Dir
			if opts.Search != "" || !opts.Since.IsZero() {
				what = "no runs match"
			}
			fmt.Fprintln(ios.ErrOut, what)
		}
		return nil
	}
	threads := history.Threads(sel)
	if opts.JSON {
		return writeLogJSON(ios, threads)
	}
	return writeLogTable(ios, threads)
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

func writeLogJSON(ios *IOStreams, threads []history.Thread) error {
	enc := json.NewEncoder(ios.Out)
	enc.SetEscapeHTML(false)
	for _, t := range threads {
		for _, r := range t {
			e := r.Entry
			l := logLine{ID: e.ID(), Path: e.Path, Time: e.Time(), End: e.State(), Steps: e.Steps(), Tokens: e.Tokens(),
				Prompt: e.Prompt, Answer: e.Answer, Size: e.Size, Problem: e.Problem}
			if h := e.Header; h != nil {
				l.Provider, l.Model, l.Command, l.ParentID = h.Provider, h.Model, h.Command, h.ParentID
				l.Thread = t[0].ID()
			}
			if e.End != nil {
				u := e.End.Usage
				l.Usage, l.Error = &u, e.End.Error
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeLogTable prints one aligned line a run, under a line of titles.
func writeLogTable(ios *IOStreams, threads []history.Thread) error {
	type row struct{ id, when, model, steps, tokens, end, prompt string }
	rows := []row{{"ID", "STARTED", "MODEL", "STEPS", "TOKENS", "END", "PROMPT"}}
	for _, t := range threads {
		for _, r := range t {
			rows = append(rows, logRow(r))
		}
	}
	var w [6]int
	for _, r := range rows {
		for i, s := range []string{r.id, r.when, r.model, r.steps, r.tokens, r.end} {
			w[i] = max(w[i], utf8.RuneCountInString(s))
		}
	}
	for _, r := range rows {
		line := fmt.Sprintf("%s  %s  %s  %s  %s  %s  %s", pad(r.id, w[0]), pad(r.when, w[1]), pad(r.model, w[2]),
			padLeft(r.steps, w[3]), padLeft(r.tokens, w[4]), pad(r.end, w[5]), r.prompt)
		line = strings.TrimRight(line, " ")
		if ios.IsStdoutTTY() {
			line = truncate(line, ios.Width())
		}
		if _, err := fmt.Fprintln(ios.Out, line); err != nil {
			return err
		}
	}
	return nil
}

func logRow(r history.Run) (row struct{ id, when, model, steps, tokens, end, prompt string }) {
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
	row.steps = fmt.Sprint(e.Steps())
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
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 100_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))) + s
}
