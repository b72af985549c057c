package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

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
		ios, _, _, errOut := iostreams.Test()
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
