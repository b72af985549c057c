package provider_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/provider"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

func TestCheckAPIKey(t *testing.T) {
	const key = "sk-test-abcdef123456"
	tests := []struct {
		name, key, want string
	}{
		{"plain", key, ""},
		{"local server's word", "ollama", ""},
		{"line end", key + "\n", "OPENAI_API_KEY holds a line break at its end"},
		{"CRLF line end", key + "\r\n", "OPENAI_API_KEY holds a line break at its end"},
		{"carriage return", key + "\r", "OPENAI_API_KEY holds a line break at its end"},
		{"trailing space", key + " ", "OPENAI_API_KEY holds a space at its end"},
		{"leading space", " " + key, "OPENAI_API_KEY holds a space at its start"},
		{"two keys", key + " " + key, "OPENAI_API_KEY holds a space at byte 21 of 41"},
		{"curly quote", "\u201c" + key + "\u201d", "OPENAI_API_KEY holds a character that is not printable ASCII at its start"},
		{"NUL", "sk\x00x", "holds a character that is not printable ASCII at byte 3 of 4"},
		{"DEL", "sk\x7fx", "not printable ASCII at byte 3 of 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := provider.CheckAPIKey("OPENAI_API_KEY", tt.key)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if err == nil || !errors.Is(err, provider.ErrBadAPIKey) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want ErrBadAPIKey holding %q", err, tt.want)
			}
			if strings.Contains(err.Error(), strings.TrimSpace(tt.key)) && len(strings.TrimSpace(tt.key)) > 4 {
				t.Fatalf("the error shows the key: %v", err)
			}
		})
	}
}

// TestProvidersRefuseBadKeys: each provider refuses a key with a line end
// when it is built, before any request, naming the variable.
func TestProvidersRefuseBadKeys(t *testing.T) {
	bad := "sk-test-abcdef123456\n"
	_, err := openai.NewChat(openai.Config{APIKey: bad, Model: "m"})
	if !errors.Is(err, provider.ErrBadAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("openai: %v", err)
	}
	_, err = openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{APIKey: bad, Model: "m"}})
	if !errors.Is(err, provider.ErrBadAPIKey) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("responses: %v", err)
	}
	_, err = anthropic.NewMessages(anthropic.Config{APIKey: bad, Model: "m", BaseURL: "http://127.0.0.1:1"})
	if !errors.Is(err, provider.ErrBadAPIKey) || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("anthropic: %v", err)
	}
}
