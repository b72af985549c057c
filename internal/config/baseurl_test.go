package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSameBaseURL(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", true},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/", true},
		{"HTTP://LocalHost:11434/v1", "http://localhost:11434/v1", true},
		{"https://api.openai.com:443/v1", "https://api.openai.com/v1", true},
		{"http://h:80/v1", "http://h/v1", true},
		{"http://[::1]:8080/v1", "http://[::1]:8080/v1/", true},
		{"http://[::1]/v1", "http://[::1]:80/v1", true},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1", false},
		{"http://127.0.0.1:8080/v1", "https://127.0.0.1:8080/v1", false},
		{"http://localhost:8080/v1", "http://127.0.0.1:8080/v1", false},
		{"http://h/v1", "http://h/V1", false},
		{"http://h/v1", "http://h/v1/v1", false},
		{"http://h/v1?api-version=1", "http://h/v1?api-version=2", false},
		{"http://h:443/v1", "http://h/v1", false},
		{"http://a@h/v1", "http://h/v1", false},
		{"not a url", "http://h/v1", false},
		{"", "http://h/v1", false},
	}
	for _, tt := range tests {
		if got := SameBaseURL(tt.a, tt.b); got != tt.same {
			t.Errorf("SameBaseURL(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if got := SameBaseURL(tt.b, tt.a); got != tt.same {
			t.Errorf("SameBaseURL(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.same)
		}
	}
}

// A recorded base URL is found among those the file names, at the top
// level and in any profile, whichever profile is selected.
func TestConfiguredBaseURL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	file := "base_url: http://127.0.0.1:8080/v1\nprofiles:\n  ollama:\n    base_url: http://localhost:11434/v1/\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Resolve(Input{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if v, src, ok := cfg.ConfiguredBaseURL("http://LOCALHOST:11434/v1"); !ok || v != "http://localhost:11434/v1/" || src.Line != 4 || src.Profile != "ollama" {
		t.Errorf("the profile's: %q %+v %v", v, src, ok)
	}
	if v, src, ok := cfg.ConfiguredBaseURL("http://127.0.0.1:8080/v1/"); !ok || v != "http://127.0.0.1:8080/v1" || src.Line != 1 || src.Profile != "" {
		t.Errorf("the top level's: %q %+v %v", v, src, ok)
	}
	if _, _, ok := cfg.ConfiguredBaseURL("http://127.0.0.1:9999/v1"); ok {
		t.Error("an address the file does not name was found")
	}
	none, err := Resolve(Input{Path: filepath.Join(t.TempDir(), "none.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := none.ConfiguredBaseURL("http://127.0.0.1:8080/v1"); ok {
		t.Error("found without a file")
	}
}
