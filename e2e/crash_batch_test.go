package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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

const (
	batchCrashItems = 12
	// batchCrashCalls is how many calls each item makes.
	batchCrashCalls = 9
	// batchKills is how many times TestBatchKill9AtRandomMoments kills a
	// batch (docs/reliability.md counts them).
	batchKills = 16
)

// TestBatchKill9AtRandomMoments kills a batch with SIGKILL at random
// moments and runs it again to its end. However the kill fell, the results
// file ends with one whole line per item, every item answered, every
// item's transcript validates, the server saw every conversation go on as
// the API requires, every call ran, and none ran twice but one the kill
// caught running or whose result it kept from the disk: no tool call that
// had finished (its result on record) ran a second time, and the rerun ran
// no call twice.
func TestBatchKill9AtRandomMoments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.log")
	// Each call logs its item and call, and the process that started it:
	// "p7 2-3 4242".
	tools := echoToolsDir(t, dir, "#!/bin/sh\nsleep 0.02\necho \"$ARG_N $PPID\" >> '"+log+"'\necho \"$ARG_N\"\n")
	writeBatchInput(t, dir)
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
	kills := batchKills
	if testing.Short() {
		kills = 3
	}
	halfDone, missed := 0, 0
	// A moment past the end of the batch kills nothing: such a moment is
	// drawn again, below it, until as many kills as asked have each
	// caught a batch running.
	bound := int64(whole)
	for i := 0; i < kills; {
		out := fmt.Sprintf("k%02d", i+missed)
		os.Remove(log)
		srv := fakeapi.NewOpenAIConversations(batchCrashScript(), "")
		at := rng.Int64N(bound)
		if !killAfter(t, dir, workspaceWrite, time.Duration(at), args(srv.BaseURL(), out)...) {
			srv.Close()
			if missed++; missed > 3*kills {
				t.Fatalf("%d moments came after the batch had ended", missed)
			}
			bound = max(at, int64(time.Millisecond))
			continue
		}
		i++
		// The tools the kill orphaned end within their sleep (what they
		// log names the killed batch as their parent, whenever it comes).
		waitGone(t, filepath.Join(tools, "echo.sh"), "\x00-d\x00"+out+"\x00")
		recorded := recordedCalls(t, filepath.Join(dir, out))
		if len(recorded) > 0 && len(recorded) < batchCrashItems*batchCrashCalls {
			halfDone++
		}

		p, pid := runAgentloopPid(t, dir, args(srv.BaseURL(), out)...)
		srv.Close()
		if p.code != 0 {
			t.Errorf("%s: the rerun exited %d\n%s", out, p.code, p.stderr)
		}
		if err := srv.Check(); err != nil {
			t.Errorf("%s: %v", out, err)
		}
		checkBatchResults(t, filepath.Join(dir, out))
		calls, _ := os.ReadFile(log)
		checkBatchCalls(t, out, string(calls), strconv.Itoa(pid), recorded)
		t.Logf("%s: killed at %v, %d recorded call(s) before the rerun", out, time.Duration(at), len(recorded))
	}
	t.Logf("%d kills, %d moments after a batch had ended drawn again", kills, missed)
	if kills == batchKills && halfDone == 0 {
		t.Errorf("none of the %d kills stopped a batch with some of its calls on record and some not: the rerun was never tested on a batch half done", kills)
	}
}

// waitGone waits until no process's command line holds any of marks (10
// s at most): each of the tools a kill -9 left running ends by itself,
// and so does one the batch was starting, still a copy of the batch's
// process between its fork and its exec (it runs the tool after).
func waitGone(t *testing.T, marks ...string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		running := ""
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			b, err := os.ReadFile(p)
			for _, m := range marks {
				if err == nil && bytes.Contains(b, []byte(m)) {
					running = strings.ReplaceAll(string(b), "\x00", " ")
				}
			}
		}
		if running == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("what the kill left still runs after 10 s: %s", running)
		}
	}
}

// checkBatchCalls checks the calls a killed batch and its rerun (process
// rerun) ran, one "p7 2-3 PID" line each, PID the agentloop that started
// the call: every call of every item ran; the rerun ran none whose result
// the killed batch recorded, and none twice; so a call ran twice only when
// the kill caught it before its result was on disk, which DESIGN.md
// allows (what a killed process did cannot be recorded).
func checkBatchCalls(t *testing.T, out, log, rerun string, recorded map[string]bool) {
	t.Helper()
	ran, again := map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		call, by := line[:i], line[i+1:]
		if by != rerun {
			ran[call]++
			continue
		}
		again[call]++
		if recorded[call] {
			t.Errorf("%s: the rerun ran %q again, whose result the killed batch recorded", out, call)
		}
		if again[call] == 2 {
			t.Errorf("%s: the rerun ran %q twice", out, call)
		}
	}
	for i := 1; i <= batchCrashItems; i++ {
		for s := 1; s <= 3; s++ {
			for c := 1; c <= 3; c++ {
				if call := fmt.Sprintf("p%d %d-%d", i, s, c); ran[call]+again[call] == 0 {
					t.Errorf("%s: %s never ran", out, call)
				}
			}
		}
	}
}

// writeBatchInput writes dir/in.jsonl, the batchCrashItems items of the
// kill tests of a batch.
func writeBatchInput(t *testing.T, dir string) {
	t.Helper()
	var in strings.Builder
	for i := 1; i <= batchCrashItems; i++ {
		fmt.Fprintf(&in, "{\"id\": \"item-%d\", \"prompt\": \"p%d\"}\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runAgentloopPid is runAgentloop, with the process's id.
func runAgentloopPid(t *testing.T, dir string, args ...string) (proc, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := agentloopCmd(t, ctx, dir, workspaceWrite, args...)
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	if ctx.Err() != nil {
		t.Fatalf("agentloop %s did not end within 30s\nstderr: %s", strings.Join(args, " "), errOut.String())
	}
	return proc{code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errOut.String()}, c.Process.Pid
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
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Errorf("%s: the results file ends with a torn line", out)
	}
	seen := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var r batch.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Errorf("%s line %d: %v: %q", out, i+1, err, line)
			continue
		}
		seen[r.ID]++
		if r.Transcript == "" {
			t.Errorf("%s: %s names no transcript", out, r.ID)
		} else if recs := checkTranscript(t, filepath.Join(out, r.Transcript), false); endOf(t, recs).Reason != wire.ReasonStop {
			t.Errorf("%s: %s's transcript ends %s", out, r.ID, endOf(t, recs).Reason)
		}
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

// workspaceWrite lets the batch's tool write its log of calls into the work
// folder, as the tools of a batch that writes files are declared to.
var workspaceWrite = []string{"AGENTLOOP_SANDBOX=workspace-write"}
