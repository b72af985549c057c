package cmd

import (
	"context"
	"strings"
	"testing"
)

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
