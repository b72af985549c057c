package engine

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Each API of the table builds its provider; what an API does not take is
// refused before anything is sent, each with the kind of error that says
// what to fix.
func TestNewProvider(t *testing.T) {
	for _, shape := range []wire.Shape{wire.Chat, wire.Responses, wire.Messages} {
		p, err := NewProvider(Model{Provider: string(shape), APIKey: "sk-test", BaseURL: "http://127.0.0.1:1/v1", BaseURLFrom: "--base-url"}, Net{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		if p.Name() != string(shape) || p.Model() == "" || !strings.HasPrefix(BaseURLOf(p), "http://127.0.0.1:1") {
			t.Errorf("%s: provider %s, model %q, base URL %q", shape, p.Name(), p.Model(), BaseURLOf(p))
		}
	}
	tests := []struct {
		name string
		m    Model
		kind Kind
		say  string
	}{
		{"an unknown API", Model{Provider: "gemini", APIKey: "k"}, Flag, `--provider "gemini"`},
		{"store without responses", Model{Provider: "openai", APIKey: "k", Store: true}, Flag, "--store"},
		{"an output cap Responses refuses", Model{Provider: "responses", APIKey: "k", MaxTokens: 1}, Flag, "--max-tokens 1"},
		{"no key", Model{Provider: "anthropic"}, Key, "ANTHROPIC_API_KEY"},
		{"an address of a variable", Model{Provider: "openai", APIKey: "k", BaseURL: "ftp://x", BaseURLFrom: "OPENAI_BASE_URL"}, Usage, "OPENAI_BASE_URL=ftp://x"},
		{"an address of the flag", Model{Provider: "openai", APIKey: "k", BaseURL: "ftp://x", BaseURLFrom: "--base-url"}, Flag, `--base-url "ftp://x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewProvider(tt.m, Net{}, nil)
			if KindOf(err) != tt.kind || !strings.Contains(err.Error(), tt.say) {
				t.Errorf("got %v (kind %v), want kind %v saying %q", err, KindOf(err), tt.kind, tt.say)
			}
		})
	}
}

// A cost budget needs the model's price; server-side clearing needs an
// API that clears.
func TestLimitsCheck(t *testing.T) {
	l := Limits{MaxCost: 2, MaxCostGiven: "--max-cost 2"}
	if err := l.Check("openai", "m"); KindOf(err) != Flag || !strings.Contains(err.Error(), "the price of m is not known") {
		t.Errorf("got %v", err)
	}
	l.MaxCostGiven = "AGENTLOOP_MAX_COST=2"
	if err := l.Check("openai", "m"); KindOf(err) != Usage {
		t.Errorf("a variable's budget: got %v (kind %v)", err, KindOf(err))
	}
	l.Price = &agent.Price{Input: 1, Output: 2}
	if err := l.Check("openai", "m"); err != nil {
		t.Errorf("with a price: %v", err)
	}
	l = Limits{ContextLimit: 1000, ContextEditing: "server"}
	if err := l.Check("openai", "m"); KindOf(err) != Usage || !strings.Contains(err.Error(), "use client") {
		t.Errorf("server clearing with openai: %v", err)
	}
	if err := l.Check("anthropic", "m"); err != nil {
		t.Errorf("server clearing with anthropic: %v", err)
	}
}

// An end record's error names the API that failed, or the time limit.
func TestProviderErrorText(t *testing.T) {
	for msg, want := range map[string]bool{
		"openai: 500 Internal Server Error":        true,
		"responses: 429 Too Many Requests":         true,
		"anthropic: 529 Overloaded":                true,
		"run timed out after 5s (--timeout)":       true,
		"tool look: exit status 1":                 false,
		"interrupted; continue it with: agentloop": false,
	} {
		if got := ProviderErrorText(msg); got != want {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}
