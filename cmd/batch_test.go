package cmd

import (
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// TestBatchProgressEscapes: an item id or an error text that holds
// terminal escapes is shown escaped, in -v lines and on the bar.
func TestBatchProgressEscapes(t *testing.T) {
	evil := "x\x1b]0;pwned\x07\x1b[2J\u202e"
	for _, tty := range []bool{false, true} {
		ios, _, _, errOut := Test()
		ios.SetTTY(false, false, tty)
		p := newBatchProgress(ios, !tty, false, 2)
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

// TestBatchProgressBar: the bar counts items done and failed, tokens as
// turns come, and says when a rate limit holds every item.
func TestBatchProgressBar(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetTTY(false, false, true)
	p := newBatchProgress(ios, false, false, 4)
	defer p.Close()
	p.limiter = agent.NewLimiter()
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

func TestRecordedExit(t *testing.T) {
	tests := []struct {
		end  transcript.End
		want int
	}{
		{transcript.End{Reason: "stop"}, ExitOK},
		{transcript.End{Reason: "stop", Error: "close transcript: no space left on device"}, ExitFailure},
		{transcript.End{Reason: "max_steps"}, ExitMaxSteps},
		{transcript.End{Reason: "refusal"}, ExitFailure},
		{transcript.End{Reason: "max_tokens"}, ExitFailure},
		{transcript.End{Reason: "error", Error: "openai: 500 Internal Server Error: down"}, ExitProvider},
		{transcript.End{Reason: "error", Error: "anthropic: 529 overloaded"}, ExitProvider},
		{transcript.End{Reason: "error", Error: "run timed out after 1s (--timeout)"}, ExitProvider},
		{transcript.End{Reason: "error", Error: "write transcript x: no space left on device"}, ExitFailure},
	}
	for _, tt := range tests {
		if got := recordedExit(tt.end.Reason, tt.end.Error); got != tt.want {
			t.Errorf("%+v: exit %d, want %d", tt.end, got, tt.want)
		}
	}
}

func TestItemPrompt(t *testing.T) {
	if got := itemPrompt(batch.Item{Prompt: "review", Stdin: "  a ``` b \n"}); got != "review\n\n````\na ``` b\n````" {
		t.Errorf("%q", got)
	}
	if got := itemPrompt(batch.Item{Prompt: "just this", Stdin: " \n"}); got != "just this" {
		t.Errorf("%q", got)
	}
}
