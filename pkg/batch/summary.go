package batch

import (
	"cmp"
	"slices"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Summary is what a set of results adds up to.
type Summary struct {
	Items    int            `json:"items"`
	Answered int            `json:"answered"`
	Budget   int            `json:"budget"`
	Failed   int            `json:"failed"`
	ByReason map[string]int `json:"by_reason"`
	// Retryable counts the failures --retry-failed would run again.
	Retryable int `json:"retryable"`
	// Unrecorded counts the failures whose runs could not be recorded,
	// which any rerun runs again.
	Unrecorded int              `json:"unrecorded"`
	Steps      int              `json:"steps"`
	Usage      transcript.Usage `json:"usage"`
	// Cost sums the costs known, nil when no item had one (unknown, not
	// free); Priced counts the items that had one.
	Cost   *float64 `json:"cost"`
	Priced int      `json:"priced"`
	// CostLive sums what the items priced at a Batch API's price would
	// have cost live; nil when none was.
	CostLive *float64 `json:"cost_live,omitempty"`
	// Slowest are the items that took longest, slowest first.
	Slowest []Mention `json:"slowest"`
	// Failures are the first failed items in input order, with why.
	Failures []Mention `json:"failures"`
}

// Mention is an item as a summary names it: which it is, how it ended and
// why; its answer and metadata are in the results file.
type Mention struct {
	ID         string `json:"id"`
	Line       int    `json:"line,omitempty"`
	Reason     string `json:"reason"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	Transcript string `json:"transcript,omitempty"`
}

func mention(r *Result) Mention {
	return Mention{ID: r.ID, Line: r.Line, Reason: r.Reason, ExitCode: r.ExitCode, DurationMS: r.DurationMS, Error: r.Error, Transcript: r.Transcript}
}

// Summarize adds up results, naming the slowest n and the first n that
// failed.
func Summarize(results []Result, n int) Summary {
	s := Summary{ByReason: map[string]int{}, Slowest: []Mention{}, Failures: []Mention{}}
	var failed []*Result
	for i := range results {
		r := &results[i]
		s.Items++
		s.ByReason[r.Reason]++
		switch r.Class() {
		case Answered:
			s.Answered++
		case Budget:
			s.Budget++
		default:
			s.Failed++
			failed = append(failed, r)
			switch {
			case r.Retryable():
				s.Retryable++
			case r.Unrecorded():
				s.Unrecorded++
			}
		}
		s.spend(r)
		if r.Cost != nil {
			s.Priced++
		}
	}
	slow := make([]*Result, len(results))
	for i := range results {
		slow[i] = &results[i]
	}
	slices.SortStableFunc(slow, func(a, b *Result) int {
		if c := cmp.Compare(b.DurationMS, a.DurationMS); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, r := range slow[:min(n, len(slow))] {
		s.Slowest = append(s.Slowest, mention(r))
	}
	// In input order (a merge without the input: by id).
	slices.SortStableFunc(failed, func(a, b *Result) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, r := range failed[:min(n, len(failed))] {
		s.Failures = append(s.Failures, mention(r))
	}
	return s
}

// AddSpent counts in the tokens, steps and cost of items that did not
// finish (interrupted): they were spent, and paid for, as far as the items
// went. Their counts by class are not touched: they have no outcome yet.
func (s *Summary) AddSpent(unfinished []Result) {
	for i := range unfinished {
		s.spend(&unfinished[i])
	}
}

// spend adds the steps, tokens and cost of r to the totals.
func (s *Summary) spend(r *Result) {
	s.Steps += r.Steps
	s.Usage.Add(r.Usage)
	if r.Cost != nil {
		if s.Cost == nil {
			s.Cost = new(float64)
		}
		*s.Cost = transcript.RoundCost(*s.Cost + *r.Cost)
	}
	if r.CostLive != nil {
		if s.CostLive == nil {
			s.CostLive = new(float64)
		}
		*s.CostLive = transcript.RoundCost(*s.CostLive + *r.CostLive)
	}
}

// Worst is the class that decides a batch's exit status: Failed if any
// item failed, else Budget if any ran out of budget, else Answered. A
// failure outranks a budget: it needs a person, a budget only a higher
// limit.
func (s *Summary) Worst() Class {
	switch {
	case s.Failed > 0:
		return Failed
	case s.Budget > 0:
		return Budget
	}
	return Answered
}
