package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// batchCrashScript: every item makes three turns of three parallel calls
// (each call's arguments name the item), then answers.
func batchCrashScript() *fakeapi.Conversations {
	var steps []fakeapi.Step
	for s := 1; s <= 3; s++ {
		var calls []fakeapi.ToolCall
		for c := 1; c <= 3; c++ {
			calls = append(calls, fakeapi.ToolCall{ID: fmt.Sprintf("call_%d_%d", s, c), Name: "echo", Arguments: fmt.Sprintf(`{"n":"{{prompt}} %d-%d"}`, s, c)})
		}
		steps = append(steps, fakeapi.Step{ToolCalls: calls})
	}
	return &fakeapi.Conversations{Steps: append(steps, fakeapi.Step{Text: strp("done {{prompt}}")}), Latency: fakeapi.Duration(5 * time.Millisecond)}
}

const batchCrashItems = 12

// TestBatchKill9AtRandomMoments kills a batch with SIGKILL at random
// moments and runs it again to its end. However the kill fell, the results
// file ends with one whole line per item, every item answered, the server
// saw every conversation go on as the API requires, and no tool call that
// had finished (its result on record) ran a second time.
func TestBatchKill9AtRandomMoments(t *testing.T) {
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.d")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "echo.yaml"), []byte(echoTool), 0o644); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "calls.log")
	// Each call logs its item and call: "p7 2-3".
	script := "#!/bin/sh\nsleep 0.02\necho \"$ARG_N\" >> '" + log + "'\necho \"$ARG_N\"\n"
	if err := os.WriteFile(filepath.Join(tools, "echo.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var in strings.Builder
	for i := 1; i <= batchCrashItems; i++ {
		fmt.Fprintf(&in, "{\"id\": \"item-%d\", \"prompt\": \"p%d\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(url, out string) []string {
		return []string{"batch", "in.jsonl", "-d", out, "--base-url", url, "-j", "4", "--tools-dir", tools}
	}

	srv := fakeapi.NewOpenAIConversations(batchCrashScript(), "")
	p := runAgentloop(t, dir, nil, nil, args(srv.BaseURL(), "whole")...)
	srv.Close()
	if p.code != 0 {
		t.Fatalf("a whole batch: exit %d\n%s", p.code, p.stderr)
	}
	whole := p.elapsed

	seed := uint64(time.Now().UnixNano())
	t.Logf("whole batch %v; kill moments from seed %d", whole, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	kills := 12
	if testing.Short() {
		kills = 3
	}
	for i := range kills {
		out := fmt.Sprintf("k%02d", i)
		os.Remove(log)
		srv := fakeapi.NewOpenAIConversations(batchCrashScript(), "")
		killAfter(t, dir, time.Duration(rng.Int64N(int64(whole))), args(srv.BaseURL(), out)...)
		// The tools the kill orphaned end within their sleep.
		time.Sleep(50 * time.Millisecond)
		recorded := recordedCalls(t, filepath.Join(dir, out))
		before, _ := os.ReadFile(log)

		p := runAgentloop(t, dir, nil, nil, args(srv.BaseURL(), out)...)
		srv.Close()
		if p.code != 0 {
			t.Errorf("%s: the rerun exited %d\n%s", out, p.code, p.stderr)
		}
		if err := srv.Check(); err != nil {
			t.Errorf("%s: %v", out, err)
		}
		checkBatchResults(t, filepath.Join(dir, out))
		after, _ := os.ReadFile(log)
		for _, line := range strings.Split(strings.TrimSpace(string(after[min(len(before), len(after)):])), "\n") {
			if recorded[line] {
				t.Errorf("%s: the rerun ran %q again, whose result the killed batch recorded", out, line)
			}
		}
		t.Logf("%s: %d recorded call(s) before the rerun", out, len(recorded))
	}
}

// recordedCalls reads what the transcripts in a killed batch's OUTDIR
// hold of the calls that finished: their results, as "p7 2-3".
func recordedCalls(t *testing.T, out string) map[string]bool {
	t.Helper()
	got := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(out, "*.jsonl"))
	for _, f := range files {
		if filepath.Base(f) == batch.ResultsName {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		convs, err := transcript.ReadConversations(bytes.NewReader(data))
		if err != nil {
			continue // killed before its first message
		}
		d := agent.DialectFor(convs[0].Shape)
		for _, m := range convs[0].Messages {
			for _, r := range d.ParseResults(m.Message) {
				got[strings.TrimSpace(r.Content)] = true
			}
		}
		for _, r := range convs[0].Finished {
			got[strings.TrimSpace(r.Content)] = true
		}
	}
	return got
}

// checkBatchResults: one whole line per item, each answered.
func checkBatchResults(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, batch.ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r batch.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Errorf("%s line %d: %v: %q", out, i+1, err, line)
			continue
		}
		seen[r.ID]++
		if r.Reason != wire.ReasonStop || r.ExitCode != 0 || !strings.HasPrefix(r.Answer, "done p") {
			t.Errorf("%s: %s ended %s (exit %d): %s %s", out, r.ID, r.Reason, r.ExitCode, r.Answer, r.Error)
		}
	}
	for i := 1; i <= batchCrashItems; i++ {
		if id := fmt.Sprintf("item-%d", i); seen[id] != 1 {
			t.Errorf("%s: %s has %d lines", out, id, seen[id])
		}
	}
}
