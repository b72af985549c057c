package transcript

import (
	"math"

	"github.com/agentloop/agentloop/pkg/wire"
)

// RequestTokens reads a request's usage the same way whatever the provider:
// input is every input token of the request, cached those of them read from
// the prompt cache. The APIs count differently: Chat Completions'
// prompt_tokens and Responses' input_tokens hold the cached tokens, while
// Anthropic's input_tokens leaves out the tokens read from and written to
// the cache, which it counts apart.
func RequestTokens(provider string, u Usage) (input, cached int64) {
	if wire.Shape(provider).CacheApart() {
		return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens, u.CacheReadInputTokens
	}
	return u.InputTokens, u.CacheReadInputTokens
}

// costScale is 10^d for the d decimal places of a dollar a cost is written
// with. A price is per million tokens, so one given to four decimals (a
// hundredth of a cent, finer than any provider's) makes a cost exact to
// ten: rounding there drops the noise of binary floating point
// (0.000036899999999999996 for 246 tokens at $0.15) and never a digit of
// the cost itself.
const costScale = 1e10

// RoundCost is a cost in US dollars as it is written wherever one is (the
// transcript's end record, --json, a batch's results and summaries): to
// ten decimal places, so that it prints as the shortest decimal that says
// it. Costs are added up unrounded and rounded once written.
func RoundCost(usd float64) float64 {
	return math.Round(usd*costScale) / costScale
}
