package shell

import (
	"os/exec"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"tools.d/x.sh":  "tools.d/x.sh",
		"a b":           "'a b'",
		"$(id)":         "'$(id)'",
		"it's":          `'it'\''s'`,
		"":              "''",
		"x; rm -rf ~":   "'x; rm -rf ~'",
		"line\nbreak":   "'line\nbreak'",
		"`id`":          "'`id`'",
		"a*b?[c]":       "'a*b?[c]'",
		"~/tools.d":     "'~/tools.d'",
		"tools.d/a-b_c": "tools.d/a-b_c",
	} {
		got := Quote(in)
		if got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
		// A shell reads the word back as the string.
		out, err := exec.Command("sh", "-c", "printf %s "+got).Output()
		if err != nil || string(out) != in {
			t.Errorf("sh reads %s as %q (%v), want %q", got, out, err, in)
		}
	}
}
