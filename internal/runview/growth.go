// Package runview words what a run does as it goes: the -v line of each
// step, --json's per_step, and the closing line on a terminal.
package runview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/agent"
)

var plural = english.Plural

// Step is one request as --json's per_step prints it.
type Step struct {
	Step         int   `json:"step"`
	InputTokens  int64 `json:"input_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	RequestBytes int   `json:"request_bytes"`
	// Cleared counts the results this request was the first to carry
	// cleared; Placeholders all it carried cleared.
	Cleared      int `json:"cleared"`
	ClearedBytes int `json:"cleared_bytes"`
	Placeholders int `json:"placeholders"`
	// Final marks the last request a budget allowed (tool choice none).
	Final   bool     `json:"final,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// PerStep is --json's per_step: each request's tokens, size, results
// cleared and cost.
func PerStep(reqs []agent.RequestStats) []Step {
	out := make([]Step, len(reqs))
	for i, r := range reqs {
		out[i] = Step{
			Step: r.Step, InputTokens: r.InputTokens, CachedTokens: r.CachedTokens, OutputTokens: r.OutputTokens,
			RequestBytes: r.Bytes, Cleared: r.Cleared, ClearedBytes: r.ClearedBytes, Placeholders: r.Placeholders, Final: r.Final,
		}
		if r.CostKnown {
			c := agent.RoundCost(r.Cost)
			out[i].CostUSD = &c
		}
	}
	return out
}

// RequestText is what -v says of a step's request: tokens in (cached) and
// out, the body's size, what it cleared.
func RequestText(r *agent.RequestStats) string {
	s := fmt.Sprintf("%s in", TokenCount(r.InputTokens))
	if r.CachedTokens > 0 {
		s += fmt.Sprintf(" (%s cached)", TokenCount(r.CachedTokens))
	}
	s += fmt.Sprintf(" → %s out tokens", TokenCount(r.OutputTokens))
	if r.Bytes > 0 {
		s += ", " + bytesize.Decimal(r.Bytes) + " sent"
	}
	if r.Cleared > 0 {
		s += fmt.Sprintf(", %d result%s cleared (%s)", r.Cleared, plural(r.Cleared, "", "s"), bytesize.Decimal(r.ClearedBytes))
	}
	if r.CostKnown {
		s += ", " + Dollars(r.Cost)
	}
	return s
}

// SummaryLine is the closing line of a run: how many steps, how the
// requests grew, what share of their input the prompt cache served, the
// tokens and the cost of the run.
//
//	12 steps · input 1.2k → 48.6k tokens per request (61% cached) · 312k tokens · $0.41
func SummaryLine(out *agent.Outcome) string {
	reqs := out.Requests
	if len(reqs) == 0 {
		return ""
	}
	var in, cached, total int64
	cleared := 0
	for _, r := range reqs {
		in += r.InputTokens
		cached += r.CachedTokens
		total += r.InputTokens + r.OutputTokens
		cleared += r.Cleared
	}
	parts := []string{fmt.Sprintf("%d step%s", len(reqs), plural(len(reqs), "", "s"))}
	growth := "input " + TokenCount(reqs[0].InputTokens)
	if len(reqs) > 1 {
		growth += " → " + TokenCount(reqs[len(reqs)-1].InputTokens)
	}
	growth += " tokens per request"
	if in > 0 {
		growth += fmt.Sprintf(" (%d%% cached)", cached*100/in)
	}
	parts = append(parts, growth, TokenCount(total)+" tokens")
	if cleared > 0 {
		parts = append(parts, fmt.Sprintf("%d result%s cleared", cleared, plural(cleared, "", "s")))
	}
	if out.CostKnown {
		parts = append(parts, Dollars(out.Cost))
	} else {
		parts = append(parts, "cost unknown")
	}
	return strings.Join(parts, " · ")
}

// TokenCount writes a number of tokens short: 850, 1.2k, 48.6k, 312k, 1.5M.
func TokenCount(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 100_000:
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	case n < 1_000_000:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

// Dollars writes a cost: cents when there are any, else four decimals.
func Dollars(c float64) string {
	if c >= 0.1 {
		return fmt.Sprintf("$%.2f", c)
	}
	return fmt.Sprintf("$%.4f", c)
}

// StepUsage is the -v account of a turn's request.
func StepUsage(e agent.Event) string {
	if e.Request == nil {
		return fmt.Sprintf("%d→%d tokens", e.Turn.Usage.InputTokens, e.Turn.Usage.OutputTokens)
	}
	s := RequestText(e.Request)
	if e.Request.Final {
		s += ", asked to answer without tools"
	}
	return s
}
