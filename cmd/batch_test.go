package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/httpretry"
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
	p.limiter = httpretry.NewLimiter()
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

// TestBatchBarOnTerminal: a whole batch with stderr on a terminal draws
// the bar in place (each frame over the last), takes it off at the end and
// prints the summary; the same batch piped shows no bar.
func TestBatchBarOnTerminal(t *testing.T) {
	for _, tty := range []bool{true, false} {
		c, err := fakeapi.LoadConversations([]byte(`{"latency": "50ms", "steps": [{"text": "answer to {{prompt}}"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		srv := fakeapi.NewOpenAIConversations(c, "")
		dir := t.TempDir()
		in := filepath.Join(dir, "in.txt")
		if err := os.WriteFile(in, []byte("one\ntwo\nthree\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ios, _, _, errOut := Test()
		ios.SetTTY(false, false, tty)
		code := Execute(context.Background(), ios, []string{"batch", in, "-d", filepath.Join(dir, "out"), "-j", "1",
			"--base-url", srv.BaseURL(), "--tools-dir", t.TempDir()})
		srv.Close()
		if code != 0 {
			t.Fatalf("tty %v: exit %d\n%s", tty, code, errOut)
		}
		got := errOut.String()
		summary := strings.Index(got, "batch: 3 items: 3 answered, 0 failed, 0 out of budget\n")
		if summary < 0 {
			t.Fatalf("tty %v: no summary in %q", tty, got)
		}
		if !tty {
			if strings.Contains(got, "\r") || strings.Contains(got, "[#") {
				t.Errorf("piped: a bar was drawn: %q", got)
			}
			continue
		}
		for _, want := range []string{"\r\x1b[K[--------------------] 0/3 · 1 running · 0 tokens", "\r\x1b[K[######--------------] 1/3 · ", "/min · "} {
			if !strings.Contains(got[:summary], want) {
				t.Errorf("no frame %q before the summary: %q", want, got)
			}
		}
		if !strings.HasSuffix(got[:summary], "\r\x1b[K") {
			t.Errorf("the bar is not taken off before the summary: %q", got[:summary])
		}
	}
}

func TestRecordedExit(t *testing.T) {
	tests := []struct {
		end  transcript.End
		want int
	}{
		{transcript.End{Reason: "stop"}, ExitOK},
		{transcript.End{Reason: "stop", Error: "close transcript: no space left on device"}, ExitFailure},
		{transcript.End{Reason: "max_steps"}, ExitBudget},
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

// TestBatchProgressNotes: of the approver's notes (a call denied for want
// of a terminal, once an item), the first is shown and then how many
// more; -v shows each, -q none.
func TestBatchProgressNotes(t *testing.T) {
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
			ios, _, _, errOut := Test()
			p := newBatchProgress(ios, tt.verbose, tt.quiet, 3)
			for i := 1; i <= 3; i++ {
				p.note(fmt.Sprintf("denied %d", i))
			}
			p.Close()
			if got := errOut.String(); got != tt.want {
				t.Errorf("stderr %q\nwant   %q", got, tt.want)
			}
		})
	}
}
