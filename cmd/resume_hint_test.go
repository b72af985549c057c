package cmd

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
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
	got := resumeCommand("runs/it's.jsonl", resumeArgs(cfg))
	want := `agentloop replay --resume --base-url URL --tools-dir '../long tools' --tools-dir 'x;$(touch pwned)' --mcp-config servers.json 'runs/it'\''s.jsonl'`
	if got != want {
		t.Errorf("resumeCommand:\n got %s\nwant %s", got, want)
	}

	// Settings of the environment and the file apply again by themselves.
	cfg, err = config.Resolve(config.Input{Getenv: func(k string) string {
		return map[string]string{"AGENTLOOP_BASE_URL": "http://127.0.0.1:8080/v1", "AGENTLOOP_TOOLS_DIRS": "tools"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resumeCommand("t.jsonl", resumeArgs(cfg)); got != "agentloop replay --resume t.jsonl" {
		t.Errorf("with the environment's settings: %s", got)
	}
}
