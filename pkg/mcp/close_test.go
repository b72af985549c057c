package mcp

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentloop/agentloop/internal/mcptest"
)

// TestCloseLeavesNothing: a set closed leaves no goroutine and no file
// descriptor of its servers behind, whatever its calls did (answered,
// timed out, crashed the server, which was restarted): a program that
// runs many runs in one process, each with its servers, does not
// accumulate their connections.
func TestCloseLeavesNothing(t *testing.T) {
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer web.Close()
	fds := func() int {
		e, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(e)
	}
	ignore := goleak.IgnoreCurrent()
	// A leak is a count that grew: an earlier test's connection may close
	// meanwhile, at its pool's idle timeout.
	before := fds()
	for round := range 2 {
		stdio := stdioServer(t, "s")
		stdio.Timeout = 200 * time.Millisecond
		web := &Config{Name: "h", URL: web.URL, Prefix: "h_", Timeout: 200 * time.Millisecond, StartTimeout: 10 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1}
		s := start(t, t.TempDir(), stdio, web)
		ctx := context.Background()
		for _, c := range []struct{ tool, args string }{
			{"s_echo", `{"text":"x"}`}, {"h_echo", `{"text":"x"}`},
			{"s_slow", `{"ms":5000}`}, {"h_slow", `{"ms":5000}`},
			{"s_crash", `{}`}, {"s_echo", `{"text":"x"}`}, {"h_fail", `{}`},
		} {
			s.Call(ctx, c.tool, "call_1", []byte(c.args))
		}
		s.Close()
		if err := goleak.Find(ignore); err != nil {
			t.Fatalf("round %d: goroutines left after Close: %v", round, err)
		}
		if after := fds(); after > before {
			t.Errorf("round %d: %d file descriptors open after Close, %d before", round, after, before)
		}
	}
}
