package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

func TestDisplayValue(t *testing.T) {
	tests := []struct {
		v       any
		path    bool
		profile bool
		want    string
	}{
		{"", false, false, `""`},
		{"", false, true, "(none)"},
		{"plain words", false, false, "plain words"},
		{"two\nlines", false, false, `"two\nlines"`},
		{" lead", false, false, `" lead"`},
		{"/home/me/x", true, false, "~/x"},
		{"/home/me/x", false, false, "/home/me/x"},
		{[]string{"a", "/home/me/b"}, true, false, "[a, ~/b]"},
		{[]string{}, false, false, "[]"},
		{7, false, false, "7"},
	}
	for _, tt := range tests {
		if got := DisplayValue(tt.v, tt.path, "/home/me", tt.profile); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.v, got, tt.want)
		}
	}
}

// A secret is redacted part by part: in each path, in each server's
// command and URL; a server's command that was all secret is left out.
func TestRedactValue(t *testing.T) {
	r := transcript.NewRedactor("sk-secret-value-123")
	got := RedactValue(r, []ServerSummary{{Name: "a", Command: []string{"srv", "--key=sk-secret-value-123"}, URL: "https://x/?k=sk-secret-value-123"}})
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "sk-secret-value-123") || !strings.Contains(string(b), "srv") {
		t.Errorf("%s", b)
	}
	if got := RedactValue(r, []string{"a", "sk-secret-value-123"}).([]string); got[0] != "a" || strings.Contains(got[1], "secret") {
		t.Errorf("%q", got)
	}
}

// --json keeps the settings in config show's order, and says of each
// provider key only whether it is set.
func TestShowJSON(t *testing.T) {
	c, err := Resolve(input(t, "model: m\n", nil, map[string]string{"AGENTLOOP_MAX_STEPS": "9"}))
	if err != nil {
		t.Fatal(err)
	}
	rows := c.Rows(func(string) string { return "https://api" }, []string{"/t"})
	env := map[string]string{"OPENAI_API_KEY": "k"}
	b, err := json.Marshal(c.Show(rows, transcript.NewRedactor(), func(k string) string { return env[k] }))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i, j := strings.Index(s, `"profile":`), strings.Index(s, `"sandbox_required":`); i < 0 || j < i {
		t.Errorf("settings out of order: %s", s)
	}
	if !strings.Contains(s, `"max_steps":{"value":9,"source":"env","env":"AGENTLOOP_MAX_STEPS"}`) || !strings.Contains(s, `"model":{"value":"m","source":"file"`) {
		t.Errorf("sources: %s", s)
	}
	if !strings.Contains(s, `"credentials":{"ANTHROPIC_API_KEY":"unset","OPENAI_API_KEY":"set"}`) || !strings.Contains(s, `"base_url":{"value":"https://api"`) {
		t.Errorf("%s", s)
	}
}
