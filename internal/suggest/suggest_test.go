package suggest

import "testing"

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"echo", "echo", 0},
		{"ehco", "echo", 1},
		{"descripton", "description", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	keys := []string{"name", "description", "parameters", "timeout", "max_output", "env"}
	for in, want := range map[string]string{
		"descripton": "description", "Name": "name", "paramters": "parameters",
		"max-output": "max_output", "timout": "timeout", "foo": "", "environment": "",
	} {
		if got := Nearest(in, keys); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	keys := []string{"model", "models", "max_steps", "max_retries", "timeout"}
	for in, want := range map[string]string{
		"modle": " (did you mean 'model'?)", "max_step": " (did you mean 'max_steps'?)", "MODEL": " (did you mean 'model'?)",
		"timeuot": " (did you mean 'timeout'?)", "colour": "", "x": "",
	} {
		if got := DidYouMean(in, keys); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
