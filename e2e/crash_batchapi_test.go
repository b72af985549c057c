package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/batchapi"
)

// batchAPIServer is a fake API with the Batch API, as a kill test needs
// it.
type batchAPIServer interface {
	BaseURL() string
	BatchCounts() fakeapi.BatchCounts
	SetBatchPace(fakeapi.BatchPace)
	Check() error
	Close()
}

// TestBatchAPIKill9WhilePolling kills a batch --batch-api with SIGKILL
// while it waits on a round's batch (the batch made, its id on record or
// not yet), in each round, and runs it again to its end. The provider
// made one batch a round and billed each request once: the rerun polled
// the batch in flight and submitted nothing twice. Every item answered as
// a live batch of the same items does, and every transcript validates.
func TestBatchAPIKill9WhilePolling(t *testing.T) {
	t.Parallel()
	for _, api := range []struct {
		name  string
		serve func() batchAPIServer
	}{
		{"openai", func() batchAPIServer { return fakeapi.NewOpenAIConversations(batchCrashScript(), "") }},
		{"responses", func() batchAPIServer { return fakeapi.NewResponsesConversations(batchCrashScript(), "") }},
		{"anthropic", func() batchAPIServer { return fakeapi.NewAnthropicConversations(batchCrashScript(), "") }},
	} {
		t.Run(api.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tools := echoToolsDir(t, dir, "#!/bin/sh\necho \"$ARG_N\"\n")
			writeBatchInput(t, dir)
			args := func(url, out string, more ...string) []string {
				return append([]string{"batch", "in.jsonl", "-d", out, "--provider", api.name, "--base-url", url, "--tools-dir", tools}, more...)
			}
			live := api.serve()
			p := runAgentloop(t, dir, workspaceWrite, nil, args(live.BaseURL(), "live")...)
			live.Close()
			if p.code != 0 {
				t.Fatalf("the live batch: exit %d\n%s", p.code, p.stderr)
			}
			want := answers(t, filepath.Join(dir, "live"))

			// Each item makes four model calls: four rounds.
			const rounds = 4
			for round := 1; round < rounds; round++ {
				out := fmt.Sprintf("kill-in-round-%d", round)
				srv := api.serve()
				// Ten reads a status: the run polls a while.
				srv.SetBatchPace(fakeapi.BatchPace{Polls: 10})
				if !killWhenBatches(t, dir, srv, round, args(srv.BaseURL(), out, "--batch-api", "--poll", "5ms")...) {
					srv.Close()
					t.Fatalf("%s: the batch ended before the kill", out)
				}
				if c := srv.BatchCounts(); c.Batches != round {
					t.Errorf("%s: %d batches made before the kill, want %d", out, c.Batches, round)
				}
				srv.SetBatchPace(fakeapi.BatchPace{})
				p := runAgentloop(t, dir, workspaceWrite, nil, args(srv.BaseURL(), out, "--batch-api", "--poll", "5ms")...)
				srv.Close()
				if p.code != 0 {
					t.Fatalf("%s: the rerun exited %d\n%s", out, p.code, p.stderr)
				}
				if err := srv.Check(); err != nil {
					t.Errorf("%s: %v", out, err)
				}
				c := srv.BatchCounts()
				if c.Batches != rounds || c.Billed != rounds*batchCrashItems || c.Requests != c.Billed {
					t.Errorf("%s: %d batches made, %d requests run, %d billed; want %d, %d, %d", out, c.Batches, c.Requests, c.Billed, rounds, rounds*batchCrashItems, rounds*batchCrashItems)
				}
				checkBatchResults(t, filepath.Join(dir, out))
				got := answers(t, filepath.Join(dir, out))
				for id, a := range want {
					if got[id] != a {
						t.Errorf("%s: %s answered %q, %q live", out, id, got[id], a)
					}
				}
				logged, err := batchapi.ReadLog(filepath.Join(dir, out))
				if err != nil {
					t.Fatal(err)
				}
				if len(logged) != rounds {
					t.Errorf("%s: the log holds %d batches, want %d", out, len(logged), rounds)
				}
			}
		})
	}
}

// killWhenBatches starts agentloop, kills it with SIGKILL once the server
// has made n batches (and a moment more, for the batch's id to be on
// record or not), and reports whether the kill caught it running.
func killWhenBatches(t *testing.T, dir string, srv batchAPIServer, n int, args ...string) bool {
	t.Helper()
	return killWhen(t, dir, workspaceWrite, func(ctx context.Context) {
		for srv.BatchCounts().Batches < n && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(n) * 3 * time.Millisecond)
	}, args...)
}

// answers are the answers of a batch's results, by item.
func answers(t *testing.T, out string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, batch.ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r batch.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		m[r.ID] = r.Answer
	}
	if len(m) != batchCrashItems {
		t.Fatalf("%s: %d results, want %d", out, len(m), batchCrashItems)
	}
	return m
}
