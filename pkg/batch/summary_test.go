package batch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

func TestSummarize(t *testing.T) {
	cost := 0.5
	rs := []Result{
		{ID: "a", Reason: "stop", DurationMS: 100, Steps: 2, Usage: transcript.Usage{InputTokens: 10, OutputTokens: 1}, Cost: &cost, Answer: "long answer"},
		{ID: "b", Reason: "stop", DurationMS: 900, Steps: 1, Usage: transcript.Usage{InputTokens: 20, OutputTokens: 2}, Cost: &cost},
		{ID: "c", Reason: "max_steps", ExitCode: 3, DurationMS: 900, Steps: 10},
		{ID: "e", Line: 9, Reason: "refusal", ExitCode: 1, DurationMS: 5000},
		{ID: "d", Line: 4, Reason: "error", ExitCode: 4, DurationMS: 50, Error: "openai: 400 Bad Request: bad"},
	}
	s := Summarize(rs, 3)
	if s.Items != 5 || s.Answered != 2 || s.Budget != 1 || s.Failed != 2 || s.Retryable != 1 {
		t.Errorf("counts %+v", s)
	}
	if s.ByReason["stop"] != 2 || s.ByReason["max_steps"] != 1 || s.ByReason["error"] != 1 || s.ByReason["refusal"] != 1 {
		t.Errorf("by reason %v", s.ByReason)
	}
	if s.Usage.InputTokens != 30 || s.Steps != 13 || s.Cost == nil || *s.Cost != 1.0 || s.Priced != 2 {
		t.Errorf("totals %+v", s)
	}
	if len(s.Slowest) != 3 || s.Slowest[0].ID != "e" || s.Slowest[1].ID != "b" || s.Slowest[2].ID != "c" {
		t.Errorf("slowest %v", s.Slowest)
	}
	if len(s.Failures) != 2 || s.Failures[0].ID != "d" || s.Failures[1].ID != "e" {
		t.Errorf("failures %v", s.Failures)
	}
	if rs[0].Answer != "long answer" {
		t.Error("Summarize changed its input")
	}
	if s.Worst() != Failed {
		t.Errorf("worst %v", s.Worst())
	}
	if s.Failures[0].Error != "openai: 400 Bad Request: bad" {
		t.Errorf("failure without its error: %+v", s.Failures[0])
	}
	if one := Summarize(rs, 1); len(one.Failures) != 1 || one.Failures[0].ID != "d" {
		t.Errorf("first failure of 1: %v", one.Failures)
	}
	s = Summarize(rs[:3], 3)
	if s.Worst() != Budget {
		t.Errorf("worst of answers and a budget: %v", s.Worst())
	}
	if unpriced := Summarize(rs[2:], 3); unpriced.Cost != nil || unpriced.Priced != 0 {
		t.Errorf("no item priced: cost %v, priced %d", unpriced.Cost, unpriced.Priced)
	}
	if s.Worst() != Budget {
		t.Errorf("worst of answers and a budget: %v", s.Worst())
	}
	s = Summarize(rs[:2], 3)
	if s.Worst() != Answered {
		t.Errorf("worst of answers: %v", s.Worst())
	}
}

func TestMerge(t *testing.T) {
	root := t.TempDir()
	write := func(dir string, rs ...Result) string {
		p := filepath.Join(root, dir)
		os.MkdirAll(p, 0o700)
		f, _, _, err := OpenResults(filepath.Join(p, ResultsName))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			f.Append(r)
		}
		f.Close()
		return p
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(r Result, line int, d time.Duration) Result {
		r.Line, r.Time, r.Transcript = line, t0.Add(d), FileName(r.ID)+".jsonl"
		return r
	}
	s0 := write("s0", at(result("c", "stop", 0), 3, 0), at(result("a", "error", 4), 1, 0), at(result("a", "stop", 0), 1, time.Second))
	s1 := write("s1", at(result("b", "stop", 0), 2, 0), at(result("a", "error", 4), 1, 2*time.Second))
	// A torn last line in s1: left out, reported.
	f, _ := os.OpenFile(filepath.Join(s1, ResultsName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"d","rea`)
	f.Close()

	m, err := Merge([]string{s0, s1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := ""
	for _, r := range m.Results {
		ids += r.ID
	}
	if ids != "abc" {
		t.Errorf("order %q", ids)
	}
	if a := m.Results[0]; a.Reason != "error" || a.Transcript != filepath.Join(s1, "a.jsonl") {
		t.Errorf("a duplicate keeps the latest: %+v", a)
	}
	if len(m.Duplicates) != 1 || m.Duplicates[0].ID != "a" || len(m.Torn) != 1 || m.Torn[0] != s1 {
		t.Errorf("duplicates %v torn %v", m.Duplicates, m.Torn)
	}
	m, err = Merge([]string{s0, s1}, []Item{{ID: "c"}, {ID: "b"}, {ID: "a"}, {ID: "d"}})
	if err != nil || len(m.Missing) != 1 || m.Missing[0].ID != "d" || m.Results[0].ID != "c" {
		t.Errorf("with the input: %+v %v", m, err)
	}
	if _, err := Merge([]string{filepath.Join(root, "nope")}, nil); err == nil {
		t.Error("a folder without results")
	}
}

// TestMergeFolderGivenTwice: a folder named twice (out and ./out/, or a
// glob that overlaps a name) is read once; its ids are not duplicates of
// themselves.
func TestMergeFolderGivenTwice(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	os.MkdirAll(dir, 0o700)
	f, _, _, err := OpenResults(filepath.Join(dir, ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	f.Append(result("a", "stop", 0))
	f.Close()
	m, err := Merge([]string{dir, dir + "/", filepath.Join(root, ".", "out")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Results) != 1 || len(m.Duplicates) != 0 || m.Folders != 1 {
		t.Errorf("results %v, duplicates %v", m.Results, m.Duplicates)
	}
	if m.Results[0].Transcript != filepath.Join(dir, "a.jsonl") && m.Results[0].Transcript != "" {
		t.Errorf("transcript %q", m.Results[0].Transcript)
	}
}

// TestSummaryAddSpent: the tokens and cost of items interrupted count in
// the totals (they were paid for); the items do not count as ended.
func TestSummaryAddSpent(t *testing.T) {
	cost := 0.25
	s := Summarize([]Result{{ID: "a", Reason: "stop", Steps: 1, Usage: transcript.Usage{InputTokens: 10, OutputTokens: 2}}}, 3)
	s.AddSpent([]Result{{ID: "b", Reason: "interrupted", Steps: 2, Usage: transcript.Usage{InputTokens: 30, OutputTokens: 4}, Cost: &cost}})
	if s.Items != 1 || s.Answered != 1 || s.Failed != 0 || s.ByReason["interrupted"] != 0 {
		t.Errorf("counts %+v", s)
	}
	if s.Usage.InputTokens != 40 || s.Usage.OutputTokens != 6 || s.Steps != 3 || s.Cost == nil || *s.Cost != 0.25 {
		t.Errorf("totals %+v cost %v", s.Usage, s.Cost)
	}
}

// An item whose run could not be recorded is a failure the summary counts
// apart: --retry-failed is not what runs it again.
func TestSummarizeUnrecorded(t *testing.T) {
	rs := []Result{
		{ID: "a", Reason: "stop"},
		{ID: "b", Reason: ReasonUnrecorded, ExitCode: 1, Error: "write transcript out/b.jsonl: no space left on device", Steps: 1, Usage: transcript.Usage{InputTokens: 7}},
		{ID: "c", Reason: "error", ExitCode: 4},
	}
	s := Summarize(rs, 5)
	if s.Failed != 2 || s.Unrecorded != 1 || s.Retryable != 1 || s.ByReason[ReasonUnrecorded] != 1 || s.Worst() != Failed {
		t.Errorf("counts %+v", s)
	}
	if s.Usage.InputTokens != 7 || s.Steps != 1 {
		t.Errorf("what the unrecorded run spent is not counted: %+v", s)
	}
}
