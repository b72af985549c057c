package cmd

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// The base URL a transcript's header names is used only when it is an
// address the user configured; the provider's own address, where the key
// goes anyway, needs nothing configured.
func TestRecordedBaseURL(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		vars     []string
		flag     string
		recorded string
		want     string // the base URL used; "" for the provider's own
		refused  bool
	}{
		{name: "a loopback port nobody configured", recorded: "http://127.0.0.1:8080/v1", refused: true},
		{name: "localhost nobody configured", recorded: "http://localhost:11434/v1", refused: true},
		{name: "another server nobody configured", recorded: "https://llm.example/v1", refused: true},
		{name: "the provider's own, nothing configured", recorded: "https://api.openai.com/v1/"},
		{name: "the provider's own, the file naming another", file: "base_url: http://127.0.0.1:8080/v1\n", recorded: "https://api.openai.com/v1", want: "http://127.0.0.1:8080/v1"},
		{name: "the file's, written another way", file: "base_url: http://127.0.0.1:8080/v1/\n", recorded: "HTTP://127.0.0.1:8080/v1", want: "http://127.0.0.1:8080/v1/"},
		{name: "a profile's, not selected", file: "profiles:\n  local:\n    base_url: http://localhost:11434/v1\n", recorded: "http://localhost:11434/v1", want: "http://localhost:11434/v1"},
		{name: "the file names another port", file: "base_url: http://127.0.0.1:8081/v1\n", recorded: "http://127.0.0.1:8080/v1", refused: true},
		{name: "the flag", flag: "http://127.0.0.1:9000/v1", recorded: "http://127.0.0.1:8080/v1", want: "http://127.0.0.1:9000/v1"},
		{name: "the provider's variable", vars: []string{"OPENAI_BASE_URL", "http://127.0.0.1:9000/v1"}, recorded: "http://127.0.0.1:8080/v1", want: "http://127.0.0.1:9000/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newConfigEnv(t, tt.file, tt.vars...)
			ios := e.ios()
			cfg, err := resolveConfig(ios, nil)
			if err != nil {
				t.Fatal(err)
			}
			conv := &transcript.Conversation{Shape: "openai", Header: &transcript.Header{Provider: "openai", Model: "m", BaseURL: tt.recorded}}
			mo, err := recordedModel(ios, cfg, modelOptions{BaseURL: tt.flag}, "t.jsonl", conv, "resumed")
			switch {
			case tt.refused:
				if err == nil || exitStatus(err) != ExitUsage || !strings.Contains(err.Error(), "an address you have not configured") || !strings.Contains(err.Error(), "pass --base-url "+tt.recorded) {
					t.Fatalf("want exit 2 naming --base-url %s, got %v (base URL %q)", tt.recorded, err, mo.BaseURL)
				}
			case err != nil:
				t.Fatal(err)
			case mo.BaseURL != tt.want:
				t.Errorf("base URL %q, want %q", mo.BaseURL, tt.want)
			}
		})
	}
}

// exitStatus is the exit status err gives.
func exitStatus(err error) int {
	code, _ := exitCode(err)
	return code
}
