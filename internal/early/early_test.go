package early

import (
	"strings"
	"testing"
)

func TestAnswer(t *testing.T) {
	at := func(w int, ok bool) func() (int, bool) { return func() (int, bool) { return w, ok } }
	for _, tc := range []struct {
		name    string
		args    []string
		version string
		width   func() (int, bool)
		want    string // "" when left to the command tree
	}{
		{"version", []string{"--version"}, "v1.2.3", at(80, true), "agentloop v1.2.3\n"},
		{"version unknown", []string{"--version"}, "", at(80, true), ""},
		{"help", []string{"--help"}, "v1", at(80, true), Help(80)},
		{"h", []string{"-h"}, "v1", at(57, true), Help(57)},
		{"width unknown", []string{"--help"}, "v1", at(0, false), ""},
		{"version and more", []string{"--version", "-v"}, "v1", at(80, true), ""},
		{"help of a command", []string{"--help", "run"}, "v1", at(80, true), ""},
		{"the help command", []string{"help"}, "v1", at(80, true), ""},
		{"a command", []string{"run"}, "v1", at(80, true), ""},
		{"nothing", nil, "v1", at(80, true), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := answer(tc.args, func() string { return tc.version }, tc.width)
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("answer(%q) = %q, %v; want %q", tc.args, got, ok, tc.want)
			}
		})
	}
}

// The flags wrap to the width: narrower, more lines.
func TestHelpWraps(t *testing.T) {
	narrow, wide := Help(45), Help(200)
	if strings.Count(narrow, "\n") <= strings.Count(wide, "\n") {
		t.Errorf("45 columns give %d lines, 200 give %d", strings.Count(narrow, "\n"), strings.Count(wide, "\n"))
	}
	if !strings.HasPrefix(wide, "agentloop ") || !strings.Contains(wide, "      --version   ") {
		t.Errorf("help %q", wide)
	}
}
