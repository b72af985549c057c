package engine

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Limits are what a run may spend and send: its token and cost budgets,
// the clearing of old tool results, and whether the last request a
// budget allows asks for an answer.
type Limits struct {
	MaxTotalTokens int
	MaxCost        float64
	ContextLimit   int
	NoFinalAnswer  bool
	// The rest of the clearing policy.
	ContextKeep         int
	ContextKeepTools    []string
	ContextClearAtLeast int
	ContextEditing      string
	// Price is the model's, when the configuration gives it: a cost
	// budget needs it.
	Price *agent.Price
	// MaxCostGiven names the cost budget as it was given, for the error
	// of a budget without a price: "--max-cost 2", "AGENTLOOP_MAX_COST=2"
	// or the configuration file's line.
	MaxCostGiven string
}

// Policy is the clearing policy; nil when nothing is cleared.
func (l *Limits) Policy() *agent.ContextPolicy {
	if l.ContextLimit <= 0 {
		return nil
	}
	return &agent.ContextPolicy{
		Limit: int64(l.ContextLimit), Keep: l.ContextKeep, KeepTools: l.ContextKeepTools,
		ClearAtLeast: int64(l.ContextClearAtLeast),
	}
}

// ServerClearing reports whether the API clears old results itself.
func (l *Limits) ServerClearing() bool {
	return l.ContextLimit > 0 && l.ContextEditing == config.ContextEditingServer
}

// Check refuses what cannot be done with the provider and model chosen.
func (l *Limits) Check(provider, model string) error {
	if l.ServerClearing() && !apis[wire.Shape(provider)].serverClearing {
		// context_editing has no flag: --help would not set it right.
		return usagef("context_editing: server has the Anthropic API clear old tool results; with %s, use client", provider)
	}
	if l.MaxCost > 0 && l.Price == nil {
		given := l.MaxCostGiven
		if given == "" {
			given = fmt.Sprintf("--max-cost %g", l.MaxCost)
		}
		err := &SetupError{Kind: Usage, Err: fmt.Errorf("%s: the price of %s is not known, so its cost cannot be counted; add it to the configuration file:\n  prices:\n    %s: {input: …, cached_input: …, output: …}   # US dollars per million tokens",
			given, model, model)}
		if strings.HasPrefix(given, "--") {
			// A variable or the file: the pointer to --help would not help.
			err.Kind = Flag
		}
		return err
	}
	return nil
}

// apply sets the loop's budgets, price and clearing.
func (l *Limits) apply(loop *agent.Loop, maxTokens int64) {
	loop.NoFinalAnswer = l.NoFinalAnswer
	loop.MaxOutputTokens = maxTokens
	if l.MaxTotalTokens > 0 || l.MaxCost > 0 {
		loop.Budget = &agent.Budget{MaxTotalTokens: int64(l.MaxTotalTokens), MaxCost: l.MaxCost}
	}
	if l.Price != nil {
		p := *l.Price
		loop.Price = &p
	}
	if !l.ServerClearing() {
		loop.Context = l.Policy()
	}
}

// record writes the budgets and the clearing policy into a header.
func (l *Limits) record(h *transcript.Header) {
	h.MaxTotalTokens, h.MaxCost = int64(l.MaxTotalTokens), l.MaxCost
	if p := l.Policy(); p != nil {
		h.Context = &transcript.ContextPolicy{
			Limit: p.Limit, Keep: p.Keep, KeepTools: p.KeepTools, ClearAtLeast: p.ClearAtLeast, Editing: l.ContextEditing,
		}
		if l.ServerClearing() {
			h.Context.ContextManagement, h.Context.Beta = anthropic.ServerClearing(p), anthropic.ServerClearingBeta
		}
	}
}
