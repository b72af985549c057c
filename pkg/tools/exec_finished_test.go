package tools

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
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
		{"ended, then interrupted", transcript.KindCanceled, ended, ""},
		{"ended, then timed out", transcript.KindTimeout, ended, ""},
		{"interrupted while running", transcript.KindCanceled, running, transcript.KindCanceled},
		{"timed out while running", transcript.KindTimeout, running, transcript.KindTimeout},
		{"ended", "", ended, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := finishedFirst(tc.stopped, tc.waited); got != tc.want {
				t.Errorf("finishedFirst(%q) = %q, want %q", tc.stopped, got, tc.want)
			}
		})
	}
}
