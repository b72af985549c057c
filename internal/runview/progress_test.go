package runview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/termtext"

	"github.com/agentloop/agentloop/pkg/agent"
)

// Once the model has answered, the status line no longer says it is
// thinking: the line is cleared at the answering turn, not drawn again
// ("step 1 · thinking" showed under the answer until the run closed).
func TestProgressClearsAtTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		turn agent.Turn
		ends bool
	}{
		{"answer", agent.Turn{Text: "Paris."}, true},
		{"refusal with calls", agent.Turn{Stop: agent.StopRefusal, Calls: []agent.Call{{ID: "c1", Name: "now"}}}, true},
		{"calls", agent.Turn{Calls: []agent.Call{{ID: "c1", Name: "now"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errOut := &bytes.Buffer{}
			p := NewProgress(testOptions(errOut, false, true, true, 80)) // quiet: no ticker
			p.live = true
			p.Event(agent.Event{Kind: agent.EventRequest, Step: 1})
			if !strings.Contains(errOut.String(), "step 1 · thinking") {
				t.Fatalf("no status line while the request is out: %q", errOut)
			}
			errOut.Reset()
			turn := tc.turn
			p.Event(agent.Event{Kind: agent.EventTurn, Step: 1, Turn: &turn})
			if got := errOut.String(); tc.ends && got != "\r\x1b[K" {
				t.Errorf("after the answering turn stderr got %q, want the line cleared", got)
			} else if !tc.ends && !strings.Contains(got, "step 1") {
				t.Errorf("after a turn of calls stderr got %q, want the status line", got)
			}
		})
	}
}

// The status line of a run on a terminal fits its width when a tool's
// name holds wide characters: a line that wraps is not redrawn in place
// by \r, and its first half stays on the screen.
func TestStatusLineFitsWideNames(t *testing.T) {
	errOut := &bytes.Buffer{}
	p := NewProgress(testOptions(errOut, false, true, true, 30)) // quiet: no ticker; drawn by hand
	p.live, p.step = true, 3
	p.running["call_1"] = "天気予報を調べる道具"
	p.mu.Lock()
	p.drawLocked()
	p.mu.Unlock()
	line := strings.TrimPrefix(errOut.String(), "\r\x1b[K")
	if w := termtext.Width(line); w > 29 || !strings.HasSuffix(line, "…") {
		t.Errorf("status line %q takes %d columns of 30", line, w)
	}
	if want := "step 3 · running 天気予報を…"; line != want {
		t.Errorf("status line %q, want %q", line, want)
	}
}

// testOptions are those of stderr as a test has it: redacting nothing.
func testOptions(w *bytes.Buffer, verbose, quiet, tty bool, width int) Options {
	return Options{W: w, Redact: func(s string) string { return s }, Verbose: verbose, Quiet: quiet, TTY: tty, CanRedraw: tty, Width: width}
}
