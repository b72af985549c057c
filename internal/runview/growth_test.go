package runview

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// The closing line of a run and the -v account of a step: how the
// requests grew, the cache's share of the input, the results cleared, the
// cost when it is known.
func TestGrowthLines(t *testing.T) {
	// Twelve requests growing from 1.2k to 48.6k input tokens, 61% of all
	// input served by the cache, 312k tokens in all, $0.41.
	var reqs []agent.RequestStats
	for i := 1; i <= 12; i++ {
		reqs = append(reqs, agent.RequestStats{Step: i, InputTokens: 25_000, CachedTokens: 15_250, OutputTokens: 1_000})
	}
	reqs[0].InputTokens, reqs[0].CachedTokens = 1_200, 732
	reqs[11].InputTokens, reqs[11].CachedTokens = 48_600, 29_646
	reqs[11].OutputTokens = 1_200
	tests := []struct {
		name string
		out  agent.Outcome
		want string
	}{
		{"the example", agent.Outcome{Requests: reqs, Cost: 0.41, CostKnown: true},
			"12 steps · input 1.2k → 48.6k tokens per request (61% cached) · 312k tokens · $0.41"},
		{"one step, no price", agent.Outcome{Requests: []agent.RequestStats{{Step: 1, InputTokens: 850, OutputTokens: 40}}},
			"1 step · input 850 tokens per request (0% cached) · 890 tokens · cost unknown"},
		{"results cleared, a cost under ten cents", agent.Outcome{
			Requests: []agent.RequestStats{{Step: 1, InputTokens: 900, OutputTokens: 50}, {Step: 2, InputTokens: 2_000, OutputTokens: 50, Cleared: 2}},
			Cost:     0.0123, CostKnown: true},
			"2 steps · input 900 → 2.0k tokens per request (0% cached) · 3.0k tokens · 2 results cleared · $0.0123"},
		{"no request", agent.Outcome{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SummaryLine(&tc.out); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}

	step := agent.RequestStats{Step: 6, InputTokens: 2_142, CachedTokens: 1_024, OutputTokens: 50, Bytes: 8_571, Cleared: 2, ClearedBytes: 4_864, Cost: 0.0007, CostKnown: true}
	if got, want := RequestText(&step), "2.1k in (1.0k cached) → 50 out tokens, 8.6 KB sent, 2 results cleared (4.9 KB), $0.0007"; got != want {
		t.Errorf("-v step:\ngot  %q\nwant %q", got, want)
	}
}
