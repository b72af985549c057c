package batch

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestReasons(t *testing.T) {
	s := Summary{ByReason: map[string]int{"stop": 3, "error": 5, "budget": 3, "evil\x1b[2J": 1}}
	if got, want := s.Reasons(), `error 5 · budget 3 · stop 3 · evil\u001b[2J 1`; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestCostText(t *testing.T) {
	c, live := 0.12345, 0.2469
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{}, ""},
		{Summary{Items: 2}, " · cost unknown"},
		{Summary{Items: 2, Cost: &c, Priced: 1}, " · cost $0.1235 (1 of 2 items priced)"},
		{Summary{Items: 2, Cost: &c, Priced: 2}, " · cost $0.1235"},
		{Summary{Items: 2, Cost: &c, Priced: 2, CostLive: &live}, " · cost $0.1235 at the batch price ($0.2469 live)"},
	} {
		if got := tc.s.CostText(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestFailedText(t *testing.T) {
	s := Summary{Items: 10, Failed: 2, Budget: 1}
	if got, want := s.FailedText(3), "6 of 13 items: 2 failed, 3 missing, 1 ran out of budget"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A batch's summary: the count with the items not finished, the shard,
// what this run did, the pause for a rate limit, the slowest, the first
// failures and how many more, and what to do about errors.
func TestRunEndWrite(t *testing.T) {
	e := RunEnd{
		Plan:   Plan{Retried: 1, Finished: make([]Result, 2)},
		Report: Report{Finished: make([]Result, 3), NotStarted: 1},
		Summary: Summary{Items: 5, Answered: 2, Failed: 3, ByReason: map[string]int{"stop": 2, "error": 3}, Retryable: 3,
			Slowest:  []Mention{{ID: "slow", DurationMS: 1500}},
			Failures: []Mention{{ID: "a", Error: "boom"}, {ID: "b", Reason: "error"}}},
		Throttled: 2, Waited: 1234 * time.Millisecond,
	}
	var b bytes.Buffer
	e.Write(&b, Shard{K: 1, N: 2}, "out", false)
	want := `batch: 6 items of shard 1/2: 2 answered, 3 failed, 0 out of budget, 1 not finished
  by reason: error 3 · stop 2
  this run: 3 run (1 retried), 2 finished before
  tokens: 0 in, 0 out · cost unknown
  rate limited: 2 answers asked to slow down; requests waited 1.234s in all
  slowest: slow 1.5s
  failed: a: boom
  failed: b: error
  … and 1 more failed (the results file has each)
  3 items ended in an error: --retry-failed runs them again
  results: out/results.jsonl
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	j := e.JSON(Shard{K: 1, N: 2}, "out")
	if j.Ran != 3 || j.Before != 2 || j.NotFinished != 1 || j.Throttled != 2 || j.Shard != "1/2" || j.Results != "out/results.jsonl" {
		t.Errorf("%+v", j)
	}
}

// A merge names at most ten missing items, with the input's line.
func TestWriteMerge(t *testing.T) {
	m := &Merged{Folders: 2}
	for i := range 12 {
		m.Missing = append(m.Missing, Item{ID: fmt.Sprint("m", i), Line: i + 1})
	}
	sum := Summary{Items: 1, Answered: 1}
	var b bytes.Buffer
	WriteMerge(&b, m, &sum, "in.jsonl")
	out := b.String()
	if !strings.HasPrefix(out, "merge: 1 item from 2 folders: 1 answered, 0 failed, 0 out of budget, 12 missing\n") ||
		!strings.Contains(out, "  missing: in.jsonl:10 m9\n  … and 2 more missing\n") || strings.Contains(out, "m10") {
		t.Errorf("%s", out)
	}
}
