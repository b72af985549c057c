package engine

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/agent"
)

// The command printed to go on with a run names the flags it was given that
// its transcript does not carry on, each a word for the shell as it is, and
// never a password of the address: URL stands in for such an address.
func TestResumeCommand(t *testing.T) {
	flags := map[string][]string{
		"base-url":   {"http://user:secret@127.0.0.1:8080/v1"},
		"tools-dir":  {"../long tools", "x;$(touch pwned)"},
		"mcp-config": {"servers.json"},
	}
	cfg, err := config.Resolve(config.Input{Flag: func(name string) (string, []string, bool) {
		v, ok := flags[name]
		if !ok {
			return "", nil, false
		}
		return strings.Join(v, ","), v, true
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := ResumeCommand("runs/it's.jsonl", ResumeArgs(cfg))
	want := `agentloop replay --resume --base-url URL --tools-dir '../long tools' --tools-dir 'x;$(touch pwned)' --mcp-config servers.json 'runs/it'\''s.jsonl'`
	if got != want {
		t.Errorf("ResumeCommand:\n got %s\nwant %s", got, want)
	}

	// Settings of the environment and the file apply again by themselves.
	cfg, err = config.Resolve(config.Input{Getenv: func(k string) string {
		return map[string]string{"AGENTLOOP_BASE_URL": "http://127.0.0.1:8080/v1", "AGENTLOOP_TOOLS_DIRS": "tools"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ResumeCommand("t.jsonl", ResumeArgs(cfg)); got != "agentloop replay --resume t.jsonl" {
		t.Errorf("with the environment's settings: %s", got)
	}
}

// A budget that ended a run is named as it was given, and the answer it
// asked for without tools is said.
func TestExhaustedMessage(t *testing.T) {
	given := func(key, value string) string { return GivenAs(nil, "", key, value) }
	out := &agent.Outcome{Exhausted: agent.ExhaustedSteps, Steps: 1, Answer: "done"}
	if got, want := ExhaustedMessage(out, 1, Limits{}, given), "step budget exhausted after 1 step (--max-steps 1); the last step was asked to answer without tools"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	out = &agent.Outcome{Exhausted: agent.ExhaustedCost, Cost: 0.25}
	if got, want := ExhaustedMessage(out, 5, Limits{MaxCost: 0.2}, given), "cost budget reached: $0.25 spent (--max-cost 0.2)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	out = &agent.Outcome{Exhausted: agent.ExhaustedContext, Estimate: "the next request is 900 tokens"}
	if got, want := ExhaustedMessage(out, 5, Limits{ContextLimit: 800}, func(k, v string) string { return GivenAs(nil, "old.jsonl", k, v) }),
		"context limit reached: clearing old tool results cannot keep the requests under context_limit 800 (recorded in old.jsonl): the next request is 900 tokens"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
