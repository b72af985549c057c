package history

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/termtext"
)

// rowCells are the cells of a line of the table.
type rowCells struct{ id, when, model, steps, tokens, end, prompt string }

// WriteTable prints one aligned line a run, under a line of titles: the
// table agentloop log prints. On a terminal (tty) each line is cut to
// width columns.
func WriteTable(out io.Writer, threads []Thread, tty bool, width int) error {
	runs := Flatten(threads)
	rows := make([]rowCells, 1+len(runs))
	rows[0] = rowCells{"ID", "STARTED", "MODEL", "STEPS", "TOKENS", "END", "PROMPT"}
	InParts(len(runs), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			rows[1+i] = row(runs[i].Run)
		}
	})
	entries := make([]*Entry, len(runs))
	for i, r := range runs {
		entries[i] = r.Entry
	}
	for i, id := range ShortIDs(entries) {
		if id != "" {
			rows[1+i].id = cell(id, 16)
		}
	}
	var w [6]int
	for _, r := range rows {
		for i, s := range []string{r.id, r.when, r.model, r.steps, r.tokens, r.end} {
			w[i] = max(w[i], termtext.Width(s))
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
		if tty {
			line = append([]byte(termtext.TruncateWidth(string(line), width)), '\n')
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
	n := max(0, w-termtext.Width(s))
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

func row(r Run) (row rowCells) {
	e := r.Entry
	row.when = e.Time().Local().Format("2006-01-02 15:04")
	row.end = cell(e.State(), 20)
	if e.Header == nil {
		row.id, row.model, row.steps, row.tokens = "-", "-", "-", "-"
		row.prompt = termtext.OneLine(filepath.Base(e.Path)+": "+e.Problem, 200)
		return row
	}
	row.id = cell(e.ShortID(), 8)
	row.model = cell(e.Header.Provider+"/"+e.Header.Model, 32)
	row.steps = strconv.Itoa(e.Steps())
	row.tokens = "-"
	if e.End != nil {
		row.tokens = shortCount(e.Tokens())
	}
	prompt, _, _ := strings.Cut(strings.TrimSpace(e.Prompt), "\n")
	prompt = strings.TrimSpace(prompt)
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
	return termtext.OneLine(s, max)
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

// ThreadRun is a run as a listing shows it, with the id of the
// conversation it belongs to ("" for a foreign file).
type ThreadRun struct {
	Run
	Thread string
}

// Flatten lists the runs of the threads in order.
func Flatten(threads []Thread) []ThreadRun {
	var runs []ThreadRun
	for _, t := range threads {
		for _, r := range t {
			runs = append(runs, ThreadRun{r, t.ID()})
		}
	}
	return runs
}

// InParts calls f on consecutive parts of [0, n), part k of parts, at once
// on every core: the lines of a listing of thousands are formatted
// faster than one at a time, and written in order after.
func InParts(n int, f func(k, lo, hi int)) (parts int) {
	parts = max(1, min(runtime.GOMAXPROCS(0), n/256))
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { f(k, n*k/parts, n*(k+1)/parts) })
	}
	wg.Wait()
	return parts
}
