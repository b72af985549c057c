package tools

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

// TestFinishedFirst: a tool whose end is already known when a timeout or an
// interrupt is seen ran to its end; one still running is cut short.
func TestFinishedFirst(t *testing.T) {
	ended := make(chan struct{})
	close(ended)
	running := make(chan struct{})
	for _, tc := range []struct {
		name    string
		stopped string
		waited  chan struct{}
		want    string
	}{
		{"ended, then interrupted", wire.KindCanceled, ended, ""},
		{"ended, then timed out", wire.KindTimeout, ended, ""},
		{"interrupted while running", wire.KindCanceled, running, wire.KindCanceled},
		{"timed out while running", wire.KindTimeout, running, wire.KindTimeout},
		{"ended", "", ended, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := finishedFirst(tc.stopped, tc.waited); got != tc.want {
				t.Errorf("finishedFirst(%q) = %q, want %q", tc.stopped, got, tc.want)
			}
		})
	}
}
