package agent_test

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/wire"
)

// The grammar scenarios pass with streaming on too: the turn appended is
// the accumulated one, and the fake servers check every request as before.
func TestScenariosWithStreaming(t *testing.T) {
	failing := &fakeTools{fns: map[string]func(map[string]any) agent.ToolResult{
		"get_weather": weatherTools().fns["get_weather"],
		"slow": func(map[string]any) agent.ToolResult {
			return agent.ToolResult{IsError: true, Kind: wire.KindTimeout, ExitCode: -1, Content: "timed out after 1s"}
		},
	}}
	scenarios := []struct {
		name     string
		steps    []fakeapi.Step
		ex       agent.Executor
		maxSteps int
		reason   string
		answer   string
		streamed string // every turn's text, in order
	}{
		{"parallel calls", []fakeapi.Step{
			{Text: text("Checking both."), ToolCalls: []fakeapi.ToolCall{
				{ID: "c_1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
				{ID: "c_2", Name: "get_weather", Arguments: `{"city":"Dublin"}`}}},
			{Text: text("Paris is warmer."), Expect: &fakeapi.Expect{Results: map[string]string{"c_1": "Paris", "c_2": "Dublin"}}},
		}, weatherTools(), 0, "stop", "Paris is warmer.", "Checking both.Paris is warmer."},
		// Deltas are cut where a character ends, never inside one: the
		// text and the arguments arrive whole, accents, CJK and emoji.
		{"beyond ASCII", []fakeapi.Step{
			{Text: text("Je vérifie — 日本語で確認します"), ToolCalls: []fakeapi.ToolCall{
				{ID: "c_1", Name: "get_weather", Arguments: `{"city":"Zürich"}`}}},
			{Text: text("À Zürich : 8 °C, brouillard 🌫️🌫️"), Expect: &fakeapi.Expect{Results: map[string]string{"c_1": "Zürich: 8 C, fog"}}},
		}, weatherTools(), 0, "stop", "À Zürich : 8 °C, brouillard 🌫️🌫️", "Je vérifie — 日本語で確認しますÀ Zürich : 8 °C, brouillard 🌫️🌫️"},
		{"failures", []fakeapi.Step{
			{ToolCalls: []fakeapi.ToolCall{
				{ID: "c_1", Name: "nope", Arguments: `{}`},
				{ID: "c_2", Name: "get_weather", Arguments: `{"city":"Atlantis"}`},
				{ID: "c_3", Name: "slow", Arguments: `{}`}}},
			{Text: text("Nothing worked."), Expect: &fakeapi.Expect{Errors: []string{"c_1", "c_2", "c_3"}}},
		}, failing, 0, "stop", "Nothing worked.", "Nothing worked."},
		{"max steps", []fakeapi.Step{
			{ToolCalls: []fakeapi.ToolCall{{ID: "c_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
			{Text: text("Paris: 19 C, clear."), Expect: &fakeapi.Expect{Results: map[string]string{"c_1": "19 C"}}},
		}, weatherTools(), 2, "max_steps", "Paris: 19 C, clear.", "Paris: 19 C, clear."},
	}
	for _, sc := range scenarios {
		for _, provider := range []string{"openai", "responses", "anthropic"} {
			t.Run(sc.name+"/"+provider, func(t *testing.T) {
				var streamed strings.Builder
				configure := func(l *agent.Loop) {
					l.OnText = func(s string) { streamed.WriteString(s) }
					l.MaxSteps = sc.maxSteps
				}
				var out *agent.Outcome
				var err error
				switch provider {
				case "openai":
					out, _, _, err = run(t, sc.steps, sc.ex, configure)
				case "responses":
					out, _, _, err = runResp(t, sc.steps, sc.ex, openai.ResponsesConfig{}, configure)
				default:
					out, _, _, err = runAnt(t, sc.steps, sc.ex, configure)
				}
				if err != nil {
					t.Fatal(err)
				}
				if out.Reason != sc.reason || out.Answer != sc.answer {
					t.Errorf("outcome %+v", out)
				}
				if streamed.String() != sc.streamed {
					t.Errorf("streamed %q, want %q", streamed.String(), sc.streamed)
				}
			})
		}
	}
}
