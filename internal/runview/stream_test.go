package runview

import (
	"bytes"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// Text before tool calls streams and is ended with a blank line; the text
// of the turn that ends the run is the answer, ended with its line; the
// status line is taken off once a turn's text begins.
func TestStream(t *testing.T) {
	var out bytes.Buffer
	pauses := 0
	s := NewStream(&out, false, func() { pauses++ })
	s.Text("Let me ")
	s.Text("look.")
	s.Event(agent.Event{Kind: agent.EventTurn, Turn: &agent.Turn{Calls: []agent.Call{{ID: "c1", Name: "f"}}}})
	if s.Answered() {
		t.Error("a turn with calls answered")
	}
	s.Text("The answer\x1b[2J")
	s.Event(agent.Event{Kind: agent.EventTurn, Turn: &agent.Turn{}})
	s.Close()
	if got, want := out.String(), "Let me look.\n\nThe answer\x1b[2J\n"; got != want || pauses != 2 || !s.Answered() {
		t.Errorf("got %q (%d pauses, answered %v), want %q", got, pauses, s.Answered(), want)
	}

	// On a terminal the text is shown, not obeyed; a line cut off by an
	// error is ended.
	out.Reset()
	s = NewStream(&out, true, func() {})
	s.Text("cut \x1b[2J off")
	s.Close()
	if got, want := out.String(), "cut \\u001b[2J off\n"; got != want || s.Answered() {
		t.Errorf("got %q, want %q", got, want)
	}
}
