package config

import "testing"

// A profile is summed up by its model at its address, the address's
// password left out.
func TestProfileSummary(t *testing.T) {
	f, probs := ParseFile("config.yaml", []byte(`profiles:
  local:
    model: qwen3
    base_url: http://user:secret@127.0.0.1:11434/v1
  cloud:
    model: gpt-4o
  bare:
    max_steps: 3
`), "/home/u")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for name, want := range map[string]string{"local": "qwen3 at http://user:[REDACTED]@127.0.0.1:11434/v1", "cloud": "gpt-4o", "bare": ""} {
		if got := f.ProfileSummary(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
