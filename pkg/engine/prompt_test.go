package engine

import "testing"

// The fence around stdin's text is longer than any backtick run in it.
func TestWithInput(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"plain", "q\n\n```\nplain\n```"},
		{"a ```` b ` c", "q\n\n`````\na ```` b ` c\n`````"},
	} {
		if got := WithInput("q", tt.text); got != tt.want {
			t.Errorf("WithInput(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
