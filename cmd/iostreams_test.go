package cmd

import (
	"context"
	"strings"
	"testing"
)

func TestColorWanted(t *testing.T) {
	tests := []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": "anything"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true}, // set but empty: no-color.org says colour
		{true, map[string]string{"TERM": "dumb"}, false},
		{true, map[string]string{"TERM": "xterm-256color"}, true},
	}
	for _, tt := range tests {
		got := colorWanted(tt.tty, func(k string) string { return tt.env[k] })
		if got != tt.want {
			t.Errorf("tty %v, env %v: %v, want %v", tt.tty, tt.env, got, tt.want)
		}
	}
}

// Colour is decided in one place: a terminal with colours off (NO_COLOR)
// gets the terminal's layout without a single escape sequence.
func TestNoColorOnATerminal(t *testing.T) {
	ios, _, out, errOut := Test()
	ios.SetTTY(false, true, true)
	ios.SetColorEnabled(false)
	ios.SetWidth(72)
	if err := runReplayShow(context.Background(), &ReplayOptions{IO: ios, File: "../testdata/demo/session.jsonl"}); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("escape sequences with colours off:\n%q", out.String())
	}
}
