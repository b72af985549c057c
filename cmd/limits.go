package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// limitOptions are what a live run may spend and send (engine.Limits),
// with the configuration they came from.
type limitOptions struct {
	engine.Limits

	// cfg is the configuration they came from: the prices, and where each
	// value was given; limitFrom is the transcript a resumed run took its
	// context limit from.
	cfg       *config.Config
	limitFrom string
}

func addLimitFlags(f *pflag.FlagSet, o *limitOptions) {
	f.IntVar(&o.MaxTotalTokens, "max-total-tokens", 0, "cap the run at `N` input and output tokens: the last request it allows asks for an answer without tools, and it exits 3 (default: none)")
	f.Float64Var(&o.MaxCost, "max-cost", 0, "cap the run's cost at `USD` dollars, priced by the configuration's prices: table; as --max-total-tokens (default: none)")
	f.IntVar(&o.ContextLimit, "context-limit", 0, "most input tokens (`N`) a request may carry: the oldest tool results are cleared from what is sent to stay under it (default: none)")
	f.BoolVar(&o.NoFinalAnswer, "no-final-answer", false, "when a budget runs out, stop without a last request for an answer")
}

// useConfig takes the settings of a configuration.
func (o *limitOptions) useConfig(cfg *config.Config) {
	o.cfg = cfg
	o.MaxTotalTokens, o.MaxCost, o.ContextLimit = cfg.MaxTotalTokens, cfg.MaxCost, cfg.ContextLimit
	o.ContextKeep, o.ContextKeepTools = cfg.ContextKeep, cfg.ContextKeepTools
	o.ContextClearAtLeast, o.ContextEditing = cfg.ContextClearAtLeast, cfg.ContextEditing
}

// given reports whether a setting came from a flag or a variable: what a
// resumed run's transcript does not override.
func (o *limitOptions) given(key string) bool {
	if o.cfg == nil {
		return false
	}
	k := o.cfg.Source(key).Kind
	return k == config.SourceFlag || k == config.SourceEnv
}

// useRecorded continues a recorded run (the transcript at path) with the
// clearing policy it had, but for the settings given by a flag or a
// variable: its cleared results, and the prompt cache they shaped, then
// stay as they were.
func (o *limitOptions) useRecorded(h *transcript.Header, path string) {
	if h == nil || h.Context == nil {
		return
	}
	p := h.Context
	if !o.given("context_limit") {
		o.ContextLimit, o.limitFrom = int(p.Limit), path
	}
	if !o.given("context_keep") {
		o.ContextKeep = p.Keep
	}
	if !o.given("context_keep_tools") {
		o.ContextKeepTools = p.KeepTools
	}
	if !o.given("context_clear_at_least") {
		o.ContextClearAtLeast = int(p.ClearAtLeast)
	}
	if !o.given("context_editing") && p.Editing != "" {
		o.ContextEditing = p.Editing
	}
}

// givenAs names a setting and its value the way they were given, for a
// message: the flag (or its default), the variable, the configuration
// file's line, or the transcript a resumed run took it from.
func (o *limitOptions) givenAs(key, value string) string {
	if key == "context_limit" && o.limitFrom != "" {
		return fmt.Sprintf("%s %s (recorded in %s)", key, value, o.limitFrom)
	}
	flag := "--" + strings.ReplaceAll(key, "_", "-")
	if o.cfg == nil {
		return flag + " " + value
	}
	switch s := o.cfg.Source(key); s.Kind {
	case config.SourceEnv:
		return s.Name + "=" + value
	case config.SourceFile:
		return fmt.Sprintf("%s %s (%s:%d)", key, value, s.File, s.Line)
	}
	return flag + " " + value
}

// price is the model's price, when the configuration gives it.
func (o *limitOptions) price(model string) (agent.Price, bool) {
	if o.cfg == nil {
		return agent.Price{}, false
	}
	p, _, ok := o.cfg.PriceOf(model)
	return p, ok
}

// forModel are the limits of a run of model: its price, and the cost
// budget named as it was given, for the engine's messages.
func (o *limitOptions) forModel(model string) engine.Limits {
	l := o.Limits
	if p, ok := o.price(model); ok {
		l.Price = &p
	}
	l.MaxCostGiven = o.givenAs("max_cost", strconv.FormatFloat(o.MaxCost, 'f', -1, 64))
	return l
}
