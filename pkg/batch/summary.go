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
	Retryable int              `json:"retryable"`
	Steps     int              `json:"steps"`
	Usage     transcript.Usage `json:"usage"`
	// Cost sums the costs known; Priced counts the items that had one.
	Cost   float64 `json:"cost"`
	Priced int     `json:"priced"`
	// Slowest are the items that took longest, slowest first.
	Slowest []Result `json:"slowest"`
}

// Summarize adds up results, keeping the slowest n.
func Summarize(results []Result, n int) Summary {
	s := Summary{ByReason: map[string]int{}}
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
			if r.Retryable() {
				s.Retryable++
			}
		}
		s.Steps += r.Steps
		s.Usage.Add(r.Usage)
		if r.Cost != nil {
			s.Cost += *r.Cost
			s.Priced++
		}
	}
	slow := slices.Clone(results)
	slices.SortStableFunc(slow, func(a, b Result) int {
		if c := cmp.Compare(b.DurationMS, a.DurationMS); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	s.Slowest = slow[:min(n, len(slow))]
	for i := range s.Slowest {
		// The summary names them; their answers are in the results file.
		s.Slowest[i].Answer, s.Slowest[i].Metadata = "", nil
	}
	return s
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
