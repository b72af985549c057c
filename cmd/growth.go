package cmd

import (
	"fmt"
	"strconv"

	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/agent"
)

// How a run grew is worded by internal/runview; these are its names here.
type stepJSON = runview.Step

var (
	perStep = runview.PerStep
	dollars = runview.Dollars
)

// exhaustedMessage says which budget ended a run, and how.
func exhaustedMessage(out *agent.Outcome, e runEnd) string {
	var spent int64
	for _, r := range out.Requests {
		spent += r.InputTokens + r.OutputTokens
	}
	var what string
	switch out.Exhausted {
	case agent.ExhaustedSteps:
		what = fmt.Sprintf("step budget exhausted after %d step%s (%s)", out.Steps, plural(out.Steps, "", "s"), e.limits.givenAs("max_steps", strconv.Itoa(e.maxSteps)))
	case agent.ExhaustedTokens:
		what = fmt.Sprintf("token budget reached: %d tokens spent (%s)", spent, e.limits.givenAs("max_total_tokens", strconv.Itoa(e.limits.MaxTotalTokens)))
	case agent.ExhaustedCost:
		what = fmt.Sprintf("cost budget reached: %s spent (%s)", dollars(out.Cost), e.limits.givenAs("max_cost", strconv.FormatFloat(e.limits.MaxCost, 'f', -1, 64)))
	default:
		what = fmt.Sprintf("context limit reached: clearing old tool results cannot keep the requests under %s", e.limits.givenAs("context_limit", strconv.Itoa(e.limits.ContextLimit)))
	}
	switch {
	case out.Answer != "":
		what += "; the last step was asked to answer without tools"
	case out.Estimate != "":
		what += ": " + out.Estimate
	}
	return what
}
