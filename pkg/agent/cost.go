package agent

import (
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Price is what a model's tokens cost, in US dollars per million tokens.
// agentloop keeps no table of its own: prices change, and a stale one would
// misstate money without anyone noticing. They come from the configuration.
type Price struct {
	// Input is the price of input tokens read without the prompt cache.
	Input float64
	// CachedInput is the price of input tokens read from the prompt cache.
	CachedInput float64
	// CacheWrite is the price of input tokens written to the prompt cache
	// (Anthropic bills those apart).
	CacheWrite float64
	Output     float64
}

// Cost is what a request's usage costs, in US dollars. The shape says how
// to read the counts (see transcript.RequestTokens).
func (p Price) Cost(shape wire.Shape, u transcript.Usage) float64 {
	in, cached := transcript.RequestTokens(string(shape), u)
	written := u.CacheCreationInputTokens
	if !shape.CacheApart() {
		written = 0
	}
	fresh := max(in-cached-written, 0)
	return (float64(fresh)*p.Input + float64(cached)*p.CachedInput +
		float64(written)*p.CacheWrite + float64(u.OutputTokens)*p.Output) / 1e6
}

// Discounted is the price with a discount taken off each of its rates: a
// Batch API's price, the live one less a fraction (0.5: half).
func (p Price) Discounted(discount float64) Price {
	f := 1 - discount
	return Price{Input: p.Input * f, CachedInput: p.CachedInput * f, CacheWrite: p.CacheWrite * f, Output: p.Output * f}
}
