package htmlview

import "github.com/agentloop/agentloop/pkg/wire"

// How an outcome reads: an answer, a stop that is no failure (a budget
// the user set, an interrupt), or a failure.
const (
	toneOK   = "ok"
	toneWarn = "warn"
	toneErr  = "err"
)

// endReasons say what each end reason means, in words, and how it reads.
// A budget that ran out ends a run as it was told to (exit 3): it is not
// drawn as an error.
var endReasons = map[string]struct{ why, tone string }{
	wire.ReasonStop: {"The model answered: its last turn asked for no tool.", toneOK},
	wire.ReasonMaxSteps: {"The step budget (--max-steps) ran out. The last request it allowed asked for an answer without tools " +
		"(unless --no-final-answer); agentloop replay --resume goes on with the tools.", toneWarn},
	wire.ReasonBudget: {"The token or cost budget (--max-total-tokens, --max-cost) ran out. The last request it allowed asked for an answer " +
		"without tools (unless --no-final-answer); agentloop replay --resume goes on with the tools.", toneWarn},
	wire.ReasonContext: {"The context limit (--context-limit) was reached: clearing old tool results could not keep the next request under it, " +
		"so the last request that fit asked for an answer without tools. agentloop replay --resume --context-limit TOKENS goes on under a larger limit.", toneWarn},
	wire.ReasonInterrupted: {"The run was interrupted (Ctrl-C, SIGTERM, or its terminal closed). The calls that had finished keep their " +
		"results; agentloop replay --resume runs the others and goes on.", toneWarn},
	wire.ReasonMaxTokens: {"The answer was cut off: the model reached its output token limit (--max-tokens, or the model's own).", toneErr},
	wire.ReasonRefusal:   {"The model refused; the calls it had asked for were not run.", toneErr},
	wire.ReasonSchema: {"The answer did not match the run's schema (--schema), and still did not after it was told what failed " +
		"as many times as --schema-retries allows; the last answer and what failed are below.", toneErr},
	wire.ReasonError: {"The run stopped on an error, shown below: from the API after its retries, from the tools, or writing the transcript.", toneErr},
}

// endReason says what an end record's reason means and how it reads.
func endReason(reason string) (why, tone string) {
	if r, ok := endReasons[reason]; ok {
		return r.why, r.tone
	}
	return "This is not an end reason agentloop writes.", toneErr
}
