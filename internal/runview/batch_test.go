package runview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// TestBatchEscapes: an item id or an error text that holds
// terminal escapes is shown escaped, in -v lines and on the bar.
func TestBatchEscapes(t *testing.T) {
	evil := "x\x1b]0;pwned\x07\x1b[2J\u202e"
	for _, tty := range []bool{false, true} {
		errOut := &bytes.Buffer{}
		p := NewBatch(testOptions(errOut, !tty, false, tty, 80), 2)
		p.Start(batch.Task{Item: batch.Item{ID: evil}})
		p.Done(batch.Result{ID: evil, Reason: "error", ExitCode: 4, Error: "server said " + evil}, true)
		p.Close()
		out := errOut.String()
		for _, bad := range []string{"\x1b]", "\x07", "\x1b[2J", "\u202e"} {
			if strings.Contains(out, bad) {
				t.Errorf("tty %v: %q reached the terminal: %q", tty, bad, out)
			}
		}
		if !tty && !strings.Contains(out, `x\u001b]0;pwned\u0007\u001b[2J\u202e: error, 0 steps`) {
			t.Errorf("-v line: %q", out)
		}
	}
}

// TestBatchBar: the bar counts items done and failed, tokens as
// turns come, and says when a rate limit holds every item.
func TestBatchBar(t *testing.T) {
	p := NewBatch(testOptions(&bytes.Buffer{}, false, false, true, 80), 4)
	defer p.Close()
	p.SetLimiter(httpretry.NewLimiter())
	p.Start(batch.Task{})
	p.Start(batch.Task{})
	p.Events("a")(agent.Event{Kind: agent.EventTurn, Turn: &agent.Turn{Usage: transcript.Usage{InputTokens: 12000, OutputTokens: 345}}})
	cost := 0.25
	p.Done(batch.Result{ID: "a", Reason: "stop", Cost: &cost}, true)
	p.Done(batch.Result{ID: "b", Reason: "error", ExitCode: 4}, true)
	p.limiter.Throttled(3 * time.Second)
	p.mu.Lock()
	line := p.statusLocked(p.start.Add(time.Minute))
	p.mu.Unlock()
	for _, want := range []string{"[##########----------] 2/4", "1 failed", "0 running", "12.3k tokens", "$0.25", "2.0/min", "1m0s left"} {
		if !strings.Contains(line, want) {
			t.Errorf("bar %q lacks %q", line, want)
		}
	}
	p.mu.Lock()
	line = p.statusLocked(time.Now())
	p.mu.Unlock()
	if !strings.Contains(line, "rate limited: paused") {
		t.Errorf("bar %q does not say the rate limit holds the items", line)
	}
}

// TestBatchProgressNotes: of the approver's notes (a call denied for want
// of a terminal, once an item), the first is shown and then how many
// more; -v shows each, -q none.
func TestBatchNotes(t *testing.T) {
	tests := []struct {
		name           string
		verbose, quiet bool
		want           string
	}{
		{"plain", false, false, "denied 1\nagentloop: 2 more tool calls were denied or declined (-v shows each; the transcripts hold them)\n"},
		{"-v", true, false, "denied 1\ndenied 2\ndenied 3\n"},
		{"-q", false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errOut := &bytes.Buffer{}
			p := NewBatch(testOptions(errOut, tt.verbose, tt.quiet, false, 80), 3)
			for i := 1; i <= 3; i++ {
				p.Note(fmt.Sprintf("denied %d", i))
			}
			p.Close()
			if got := errOut.String(); got != tt.want {
				t.Errorf("stderr %q\nwant   %q", got, tt.want)
			}
		})
	}
}

// TestBatchRounds: with --batch-api the bar says the round, the items
// waiting and how long the oldest batch has been queued; -v prints a line
// each time a batch changes status, its id escaped.
func TestBatchRounds(t *testing.T) {
	p := NewBatch(testOptions(&bytes.Buffer{}, false, false, true, 120), 4)
	p.Rounds(batchapi.Progress{Round: 3, Waiting: 5, Batches: []batchapi.Flight{{ID: "batch_1", State: "in_progress", Queued: 2*time.Minute + 400*time.Millisecond}}})
	p.mu.Lock()
	line := p.statusLocked(time.Now())
	p.mu.Unlock()
	p.Close()
	if !strings.Contains(line, " · round 3 · 5 waiting · in_progress 2m0s") {
		t.Errorf("bar %q", line)
	}

	errOut := &bytes.Buffer{}
	v := NewBatch(testOptions(errOut, true, false, false, 80), 4)
	for _, state := range []string{"validating", "validating", "in_progress\x1b[2J"} {
		v.Rounds(batchapi.Progress{Round: 1, Waiting: 4, Batches: []batchapi.Flight{{ID: "batch_1", State: state}}})
	}
	v.Close()
	want := "round 1: batch batch_1 validating · 4 items waiting\nround 1: batch batch_1 in_progress\\u001b[2J · 4 items waiting\n"
	if got := errOut.String(); got != want {
		t.Errorf("-v lines %q, want %q", got, want)
	}
}
