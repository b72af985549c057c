package history

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Line is one run as `agentloop log --json` prints it.
type Line struct {
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

// WriteJSON writes the runs of threads as JSON Lines, a Line each, in
// their order.
func WriteJSON(w io.Writer, threads []Thread) error {
	runs := Flatten(threads)
	bufs := make([]bytes.Buffer, runtime.GOMAXPROCS(0))
	errs := make([]error, len(bufs))
	parts := InParts(len(runs), func(k, lo, hi int) {
		enc := json.NewEncoder(&bufs[k])
		enc.SetEscapeHTML(false)
		for _, r := range runs[lo:hi] {
			if errs[k] = enc.Encode(NewLine(r)); errs[k] != nil {
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

// NewLine is the line of one run.
func NewLine(r ThreadRun) Line {
	e := r.Entry
	l := Line{ID: e.ID(), Path: e.Path, Time: e.Time(), End: e.State(), Steps: e.Steps(), Tokens: e.Tokens(),
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
			cost := transcript.RoundCost(*c)
			l.CostUSD = &cost
		}
	}
	return l
}
