package config

import (
	"strings"
	"testing"
)

func TestSourceDescribe(t *testing.T) {
	home := "/home/me"
	tests := []struct {
		src  Source
		want string
	}{
		{Source{Kind: SourceDefault}, "default"},
		{Source{Kind: SourceFlag, Name: "--model"}, "flag"},
		{Source{Kind: SourceEnv, Name: "AGENTLOOP_MODEL"}, "env AGENTLOOP_MODEL"},
		{Source{Kind: SourceFile, File: "/home/me/.config/agentloop/config.yaml", Line: 3}, "file ~/.config/agentloop/config.yaml"},
		{Source{Kind: SourceFile, File: "/etc/agentloop/config.yaml", Profile: "ollama"}, "file /etc/agentloop/config.yaml (profile ollama)"},
	}
	for _, tt := range tests {
		if got := tt.src.Describe(home); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestParseFileProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // the problems, after "config.yaml:"
	}{
		{"unknown key", "modle: x\n", []string{"1: unknown key 'modle' (did you mean 'model'?)"}},
		{"unknown key without suggestion", "flavour: x\n", []string{"1: unknown key 'flavour'"}},
		{"unknown key in a profile", "profiles:\n  a:\n    max_step: 3\n", []string{"3: profile 'a': unknown key 'max_step' (did you mean 'max_steps'?)"}},
		{"api key", "api_key: sk-abc\n", []string{"1: api_key: API keys are never read from the configuration file; set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment"}},
		{"api key in a profile", "profiles:\n  a:\n    openai_api_key: sk-abc\n", []string{"3: profile 'a': openai_api_key: API keys are never read"}},
		{"negative steps", "max_steps: -1\n", []string{"1: max_steps -1: must be at least 1"}},
		{"zero parallel", "parallel: 0\n", []string{"1: parallel 0: must be at least 1"}},
		{"negative retries", "max_retries: -2\n", []string{"1: max_retries -2: must be 0 or more"}},
		{"timeout soon", "timeout: soon\n", []string{`1: timeout "soon": not a duration`}},
		{"negative timeout", "timeout: -5s\n", []string{"1: timeout -5s: must be positive"}},
		{"quoted number", "max_steps: \"5\"\n", []string{`1: max_steps "5": not a whole number (write it without quotes)`}},
		{"float", "max_steps: 2.5\n", []string{`1: max_steps "2.5": not a whole number`}},
		{"provider", "provider: gemini\n", []string{`1: provider "gemini": use openai, responses or anthropic`}},
		{"base url", "base_url: localhost:11434\n", []string{`1: base_url "localhost:11434": want an http:// or https:// URL`}},
		{"empty model", "model: \"\"\n", []string{`1: model "": must not be empty`}},
		// "" is offered only where it is a value the key takes.
		{"no value", "model:\n", []string{"1: model: no value (give one, or remove the line)"}},
		{"no value, a number", "max_steps:\n", []string{"1: max_steps: no value (give one, or remove the line)"}},
		{"no value, a text", "system:\n", []string{`1: system: no value (write "" for an empty one, or remove the line)`}},
		{"list wanted", "tools_dirs: tools.d\n", []string{"1: tools_dirs: want a list, e.g. [tools.d, ~/agentloop-tools]"}},
		{"tools kept, not a list", "context_keep_tools: todo\n", []string{"1: context_keep_tools: want a list, e.g. [todo, read_plan]"}},
		{"mcp_config, not a list", "mcp_config: servers.json\n", []string{"1: mcp_config: want a list, e.g. [~/mcp.json]"}},
		{"list of lists", "models: [[a]]\n", []string{"1: models: each entry must be a string"}},
		{"mapping for a scalar", "model: {a: b}\n", []string{"1: model: want a single value"}},
		{"duplicate key", "model: a\nmodel: b\n", []string{"2: duplicate key 'model' (first at line 1)"}},
		{"merge key in a profile", "profiles:\n  a: &a\n    model: x\n  b:\n    <<: *a\n    max_steps: 3\n", []string{"5: profile 'b': YAML merge keys (<<) are not read in the configuration; write the settings out (a profile takes what it does not set from the top level)"}},
		{"duplicate profile", "profiles:\n  a: {}\n  a: {}\n", []string{"3: duplicate profile 'a' (first at line 2)"}},
		{"nested profiles", "profiles:\n  a:\n    profiles: {}\n", []string{"3: profile 'a': profiles cannot be nested"}},
		{"profiles not a mapping", "profiles: [a]\n", []string{"1: profiles: want a mapping of profile names"}},
		{"profile not a mapping", "profiles:\n  a: [1]\n", []string{"2: profile 'a': want a mapping of settings"}},
		{"not a mapping", "- model\n", []string{"1: the file must be a mapping"}},
		{"syntax", "model: [a\n", []string{"1: did not find expected ',' or ']'"}},
		// yaml.v3 names line 2 (where the profile's mapping starts,
		// counted from 0); the key to move is on line 6.
		{"key misindented in a profile", "model: gpt-4o\nprofiles:\n  ollama:\n    model: llama3.2\n    max_steps: 3\n   timeout: 1m\n", []string{"6: did not find expected key"}},
		{"two documents", "model: a\n---\nmodel: b\n", []string{"2: more than one YAML document"}},
		{"mcp server key", "mcp_servers:\n  gh:\n    comand: [x]\n", []string{"3: unknown key 'comand' (did you mean 'command'?)"}},
		{"mcp servers not a mapping", "mcp_servers: [gh]\n", []string{"1: mcp_servers: want a mapping of server names"}},
		{"mcp server in a profile", "profiles:\n  p:\n    mcp_servers:\n      gh: {url: ftp://h}\n", []string{"4: url ftp://h: want an http:// or https:// URL"}},
		{"every problem at once", "modle: a\nmax_steps: 0\nprofiles:\n  x:\n    timeout: later\n", []string{
			"1: unknown key 'modle'", "2: max_steps 0: must be at least 1", `5: profile 'x': timeout "later": not a duration`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := ParseFile("config.yaml", []byte(tt.file), "/home/me")
			if len(probs) != len(tt.want) {
				t.Fatalf("problems %q, want %d", probs, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(probs[i], "config.yaml:"+w) {
					t.Errorf("problem %q, want it to start with %q", probs[i], "config.yaml:"+w)
				}
			}
		})
	}
}

func TestParseFileAccepted(t *testing.T) {
	for _, file := range []string{
		"", "# nothing yet\n", "~\n", "profiles:\n", "profiles:\n  empty:\n",
		"system: \"\"\nbase_url: \"\"\ntimeout: 0\n",
		"defaults: &d {model: a}\nprofiles:\n  x: *d\n" + "", // an anchor is not a key: refused below
	} {
		_, probs := ParseFile("c.yaml", []byte(file), "")
		if strings.HasPrefix(file, "defaults") {
			if len(probs) != 1 || !strings.Contains(probs[0], "unknown key 'defaults'") {
				t.Errorf("%q: %q", file, probs)
			}
			continue
		}
		if len(probs) > 0 {
			t.Errorf("%q: %q", file, probs)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "apiKey": true, "OPENAI_API_KEY": true, "anthropic-key": true, "token": true, "auth_token": true,
		"password": true, "model": false, "base_url": false, "max_steps": false,
	} {
		if isSecretKey(name) != want {
			t.Errorf("%s: %v", name, !want)
		}
	}
}
