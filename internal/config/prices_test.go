package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

func TestPrices(t *testing.T) {
	file := `prices:
  gpt-4o-mini: {input: 0.15, cached_input: 0.075, output: 0.6}
  claude-sonnet-4-5:
    input: 3
    cached_input: 0.30
    cache_write: 3.75
    output: 15
  local: {input: 0, output: 0}
`
	c, err := Resolve(input(t, file, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		model string
		want  agent.Price
		line  int
	}{
		{"gpt-4o-mini", agent.Price{Input: 0.15, CachedInput: 0.075, CacheWrite: 0.15, Output: 0.6}, 2},
		{"claude-sonnet-4-5", agent.Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}, 3},
		{"local", agent.Price{}, 8},
	} {
		got, src, ok := c.PriceOf(tt.model)
		if !ok || got != tt.want || src.Kind != SourceFile || src.Line != tt.line {
			t.Errorf("%s: %+v from %+v (%v), want %+v at line %d", tt.model, got, src, ok, tt.want, tt.line)
		}
	}
	// Named exactly, or not at all: a dated snapshot may cost something else.
	for _, m := range []string{"gpt-4o-mini-2024-07-18", "GPT-4o-mini", "gpt-4o"} {
		if _, _, ok := c.PriceOf(m); ok {
			t.Errorf("%s has a price", m)
		}
	}
	if got := c.PricedModels(); !reflect.DeepEqual(got, []string{"claude-sonnet-4-5", "gpt-4o-mini", "local"}) {
		t.Errorf("PricedModels %v", got)
	}
}

// A model's Batch API discount is half unless its price says otherwise.
func TestBatchDiscount(t *testing.T) {
	c, probs := ParseFile("config.yaml", []byte("prices:\n  a: {input: 1, output: 2}\n  b: {input: 1, output: 2, batch_discount: 0.25}\n"), "")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	cfg := &Config{Prices: c.Prices}
	for model, want := range map[string]float64{"a": 0.5, "b": 0.25, "unpriced": 0.5} {
		if got := cfg.BatchDiscountOf(model); got != want {
			t.Errorf("%s: discount %g, want %g", model, got, want)
		}
	}
}

func TestPricesProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string
	}{
		{"not a mapping", "prices: [a]\n", []string{"1: prices: want a mapping of model names to prices"}},
		{"entry not a mapping", "prices:\n  m: 0.15\n", []string{"2: prices: m: want a mapping, e.g. {input: 0.15, output: 0.60}"}},
		{"no output", "prices:\n  m: {input: 1}\n", []string{"2: prices: m: no output price"}},
		{"unknown key", "prices:\n  m: {input: 1, ouput: 2}\n", []string{"2: prices: m: unknown key 'ouput' (did you mean 'output'?) (want input, cached_input, cache_write, output, batch_discount)"}},
		{"a currency sign", "prices:\n  m: {input: $1, output: 2}\n", []string{`2: prices: m: input "$1": not a number: write it in decimal, e.g. 0.50`}},
		{"negative", "prices:\n  m: {input: -1, output: 2}\n", []string{"2: prices: m: input -1: a price is 0 or more"}},
		{"duplicate model", "prices:\n  m: {input: 1, output: 2}\n  m: {input: 1, output: 2}\n", []string{"3: prices: duplicate model 'm' (first at line 2)"}},
		{"in a profile", "profiles:\n  p:\n    prices: {}\n", []string{"3: profile 'p': prices belong to the top level"}},
		{"a whole discount", "prices:\n  m: {input: 1, output: 2, batch_discount: 1}\n", []string{"2: prices: m: batch_discount 1: a fraction of the price from 0 to below 1 (0.5: half)"}},
		{"a list for a price", "prices:\n  m: {input: [1], output: 2}\n", []string{"2: prices: m: input: want a number of US dollars per million tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := ParseFile("config.yaml", []byte(tt.file), "")
			if len(probs) != len(tt.want) {
				t.Fatalf("problems %q, want %q", probs, tt.want)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(probs[i], "config.yaml:"+w) {
					t.Errorf("problem %q, want it to start with %q", probs[i], "config.yaml:"+w)
				}
			}
		})
	}
}

func TestBudgetAndContextKeys(t *testing.T) {
	file := "max_total_tokens: 50000\nmax_cost: 0.5\ncontext_limit: 32000\ncontext_keep: 2\ncontext_keep_tools: [plan]\ncontext_clear_at_least: 4000\ncontext_editing: server\n"
	c, err := Resolve(input(t, file, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxTotalTokens != 50000 || c.MaxCost != 0.5 || c.ContextLimit != 32000 || c.ContextKeep != 2 ||
		!reflect.DeepEqual(c.ContextKeepTools, []string{"plan"}) || c.ContextClearAtLeast != 4000 || c.ContextEditing != ContextEditingServer {
		t.Errorf("%+v", c)
	}

	d, err := Resolve(input(t, "", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if d.MaxTotalTokens != 0 || d.MaxCost != 0 || d.ContextLimit != 0 || d.ContextKeep != agent.DefaultContextKeep || d.ContextEditing != ContextEditingClient {
		t.Errorf("defaults %+v", d)
	}

	e, err := Resolve(input(t, file, map[string][]string{"max-cost": {"1.25"}}, map[string]string{"AGENTLOOP_CONTEXT_LIMIT": "8000", "AGENTLOOP_MAX_TOTAL_TOKENS": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	if e.MaxCost != 1.25 || e.Source("max_cost").Kind != SourceFlag || e.ContextLimit != 8000 || e.MaxTotalTokens != 7 {
		t.Errorf("flags and env %+v", e)
	}

	for _, tt := range []struct {
		name  string
		file  string
		flags map[string][]string
		env   map[string]string
		want  string
	}{
		{"negative cost in the file", "max_cost: -1\n", nil, nil, "max_cost -1: must be 0 or more (0 means no limit)"},
		{"cost with a dollar sign", "max_cost: $2\n", nil, nil, `max_cost "$2": not a number`},
		{"quoted cost", "max_cost: \"2\"\n", nil, nil, `max_cost "2": not a number`},
		{"cost flag", "", map[string][]string{"max-cost": {"lots"}}, nil, "--max-cost lots: not a number: write it in decimal, e.g. 0.50"},
		{"NaN cost", "", map[string][]string{"max-cost": {"NaN"}}, nil, "--max-cost NaN: not a number"},
		{"cost variable", "", nil, map[string]string{"AGENTLOOP_MAX_COST": "1e3"}, "AGENTLOOP_MAX_COST=1e3: not a number"},
		{"editing", "context_editing: both\n", nil, nil, `context_editing "both": use client or server`},
		{"negative limit", "", map[string][]string{"context-limit": {"-5"}}, nil, "--context-limit -5: must be 0 or more (0 means no limit)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(input(t, tt.file, tt.flags, tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}
