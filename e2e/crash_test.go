package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/cmd"
	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// crashScript is a run of five steps of three parallel calls each, then an
// answer: enough records, and enough time between them, for a kill to
// land anywhere.
func crashScript() []fakeapi.Step {
	var steps []fakeapi.Step
	for s := 1; s <= 5; s++ {
		var calls []fakeapi.ToolCall
		for c := 1; c <= 3; c++ {
			calls = append(calls, fakeapi.ToolCall{ID: fmt.Sprintf("call_%d_%d", s, c), Name: "echo", Arguments: fmt.Sprintf(`{"n":"%d-%d"}`, s, c)})
		}
		steps = append(steps, fakeapi.Step{Text: strp(strings.Repeat("thinking ", 200)), ToolCalls: calls})
	}
	return append(steps, fakeapi.Step{Text: strp("done")})
}

const echoTool = `name: echo
description: Echoes its argument, a few kilobytes of it.
parameters:
  n: {type: string}
run: echo.sh
`

// TestKill9AtRandomMoments kills runs with SIGKILL at random moments. What
// is left is always a transcript whose complete lines are all records, at
// most the last line torn; it validates (calls cut short allowed), replays
// offline, and resumes into a conversation the API accepts.
func TestKill9AtRandomMoments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	echoToolsDir(t, dir, echoScript(filepath.Join(dir, "calls.log"), "sleep 0.02\n"))

	if p := runAgentloop(t, dir, nil, nil, "tools", "trust"); p.code != 0 {
		t.Fatalf("tools trust: exit %d\n%s", p.code, p.stderr)
	}

	// A whole run first: how long one takes bounds the kill moments.
	srv := fakeapi.NewOpenAI(crashScript(), "")
	defer srv.Close()
	p := runAgentloop(t, dir, nil, nil, "run", "--base-url", srv.BaseURL(), "-o", "whole.jsonl", "go")
	if p.code != 0 || p.stdout != "done\n" {
		t.Fatalf("a whole run: exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	checkTranscript(t, filepath.Join(dir, "whole.jsonl"), false)
	whole := p.elapsed

	seed := uint64(time.Now().UnixNano())
	t.Logf("whole run %v; kill moments from seed %d", whole, seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	torn, ended, kills := 0, 0, 20
	if testing.Short() {
		kills = 5
	}
	for i := range kills {
		delay := time.Duration(rng.Int64N(int64(whole)))
		name := fmt.Sprintf("k%02d.jsonl", i)
		path := filepath.Join(dir, name)
		srv := fakeapi.NewOpenAI(crashScript(), "")
		killAfter(t, dir, nil, delay, "run", "--base-url", srv.BaseURL(), "-o", name, "go")
		srv.Close()
		if err := srv.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // killed before the transcript was created
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(`"type":"end"`)) {
			ended++
		}
		if isTorn(t, name, data) {
			torn++
		}
		checkKilledTranscript(t, dir, name, data, "openai")
	}
	t.Logf("%d kills: %d left a torn last line, %d came after the end record", kills, torn, ended)
}

// echoToolsDir makes dir/tools.d with the echo tool, script its echo.sh,
// and returns its path.
func echoToolsDir(t *testing.T, dir, script string) string {
	t.Helper()
	tools := filepath.Join(dir, "tools.d")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "echo.yaml"), []byte(echoTool), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "echo.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return tools
}

// echoScript is an echo.sh that, after pre, prints its argument a few
// kilobytes long and appends its call id to log, whatever the working
// directory (a run in this process has the package's).
func echoScript(log, pre string) string {
	return "#!/bin/sh\n" + pre + "printf '%s %.0s' \"$ARG_N\" $(seq 400)\necho \"$AGENTLOOP_CALL_ID\" >> '" + log + "'\n"
}

// killAfter starts agentloop with args in dir, env added to its
// environment, sends it SIGKILL after delay and reports whether the kill
// caught it running (it had not ended by itself). Its tools, in groups of
// their own, are orphaned by a kill -9; they end by themselves within
// their sleep.
func killAfter(t *testing.T, dir string, env []string, delay time.Duration, args ...string) bool {
	t.Helper()
	return killWhen(t, dir, env, func(context.Context) { time.Sleep(delay) }, args...)
}

// killWhen starts agentloop, kills it with SIGKILL once wait returns, and
// reports whether the kill caught it running. wait's context ends when
// the run has had 30s.
func killWhen(t *testing.T, dir string, env []string, wait func(context.Context), args ...string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := agentloopCmd(t, ctx, dir, env, args...)
	c.Stdout, c.Stderr = io.Discard, io.Discard
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	wait(ctx)
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	ws, ok := c.ProcessState.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// isTorn reads every line of a killed run's transcript as a record: all
// must be records but a last line without its newline. It reports whether
// there was one.
func isTorn(t *testing.T, name string, data []byte) bool {
	t.Helper()
	r := transcript.NewReader(bytes.NewReader(data))
	for {
		_, err := r.Next()
		if err == io.EOF {
			return false
		}
		var le *transcript.LineError
		if errors.As(err, &le) && le.Torn {
			if _, err := r.Next(); err != io.EOF {
				t.Errorf("%s: a torn line that is not the last", name)
			}
			return true
		}
		if err != nil {
			t.Errorf("%s: %v\n%s", name, err, data)
			return false
		}
	}
}

// checkKilledTranscript: validate (pending calls allowed) passes; replay
// re-runs what was recorded with the same results; resume continues it.
func checkKilledTranscript(t *testing.T, dir, name string, data []byte, provider string) {
	t.Helper()
	path := filepath.Join(dir, name)
	tools := filepath.Join(dir, "tools.d")
	if code, out, errOut := execute(t, "validate", "--allow-pending", path); code != 0 {
		t.Errorf("validate %s: exit %d\n%s%s\n%s", name, code, out, errOut, data)
		return
	}
	whole := data[:bytes.LastIndexByte(data, '\n')+1]
	hasMessage := bytes.Contains(whole, []byte(`"type":"message"`+`,"seq":1,`))
	code, _, errOut := execute(t, "replay", "--tools-dir", tools, path)
	switch {
	case !hasMessage:
		// A header alone (or a torn first record) holds nothing to replay.
		if code != 1 || !strings.Contains(errOut, "no messages") {
			t.Errorf("replay %s without messages: exit %d\n%s", name, code, errOut)
		}
		return
	case code != 0:
		t.Errorf("replay %s: exit %d\n%s\n%s", name, code, errOut, data)
	}
	if isTorn(t, name, data) != strings.Contains(errOut, "the last line is incomplete") {
		t.Errorf("replay %s: the torn line was not reported as such:\n%s", name, errOut)
	}
	if bytes.Contains(data, []byte(`"type":"end"`)) {
		return // the run had finished: nothing to resume
	}
	// The calls whose results the killed run recorded are not run again.
	convs, err := transcript.ReadConversations(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if msgs := convs[0].Messages; len(msgs) > 0 {
		last := agent.Message(msgs[len(msgs)-1].Message)
		if turn, err := agent.DialectFor(convs[0].Shape).ParseAssistant(last); err == nil && len(turn.Calls) == 0 {
			// Killed after the answer was written, before the end record:
			// the run had its answer, and resuming says so.
			code, _, errOut := execute(t, "replay", "--resume", "--tools-dir", tools, "--no-transcript", path)
			if code != 2 || !strings.Contains(errOut, "nothing to resume") {
				t.Errorf("resume %s, which has its answer: exit %d\n%s", name, code, errOut)
			}
			return
		}
	}
	recorded := map[string]bool{}
	for _, f := range convs[0].Finished {
		recorded[f.CallID] = true
	}
	log := filepath.Join(dir, "calls.log")
	before, _ := os.ReadFile(log)
	srv, url := startFake(t, provider, []fakeapi.Step{{Text: strp("resumed")}})
	defer srv.Close()
	code, out, errOut := execute(t, "replay", "--resume", "--base-url", url, "--tools-dir", tools, "--no-transcript", path)
	if code != 0 || out != "resumed\n" {
		t.Errorf("resume %s: exit %d\n%s%s\n%s", name, code, out, errOut, data)
	}
	if err := srv.Check(); err != nil {
		t.Errorf("resume %s: %v", name, err)
	}
	after, _ := os.ReadFile(log)
	for id := range strings.FieldsSeq(string(after[min(len(before), len(after)):])) {
		if recorded[id] {
			t.Errorf("resume %s ran %s again, whose result the killed run recorded\n%s", name, id, data)
		}
	}
	if len(recorded) > 0 {
		t.Logf("%s: %d recorded call(s) not run again", name, len(recorded))
	}
}

// execute runs agentloop in this process, with no keys in its environment.
func execute(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetEnv(func(k string) string {
		if k == "PATH" || k == "HOME" || k == "TMPDIR" {
			return os.Getenv(k)
		}
		return ""
	})
	code := cmd.Execute(context.Background(), ios, args)
	return code, out.String(), errOut.String()
}

// TestTornAtEveryRecord cuts a whole transcript in the middle of each of its
// records in turn, as a kill during that write would: each prefix
// validates with one truncated-line warning, replays with a warning, and
// resumes. In the Responses shape a turn is several records written in one
// call: cut inside it, the turn's whole records are left out with the torn
// one.
func TestTornAtEveryRecord(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"openai", "responses"} {
		t.Run(provider, func(t *testing.T) { tornAtEveryRecord(t, provider) })
	}
}

func tornAtEveryRecord(t *testing.T, provider string) {
	dir := t.TempDir()
	tools := echoToolsDir(t, dir, echoScript(filepath.Join(dir, "calls.log"), ""))
	steps := crashScript()[3:]
	if provider == "responses" {
		for i := range steps {
			steps[i].Reasoning = []fakeapi.Reasoning{{Summary: "step"}}
		}
	}
	srv, url := startFake(t, provider, steps)
	defer srv.Close()
	whole := filepath.Join(dir, "whole.jsonl")
	if code, out, errOut := execute(t, "run", "--provider", provider, "-m", "m", "--base-url", url, "--tools-dir", tools, "-o", whole, "go"); code != 0 {
		t.Fatalf("run: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty string after the last newline
	for i := 1; i < len(lines); i++ {
		cut := append(bytes.Join(lines[:i], nil), lines[i][:len(lines[i])/2]...)
		name := fmt.Sprintf("torn-%02d.jsonl", i+1)
		if err := os.WriteFile(filepath.Join(dir, name), cut, 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, _ := execute(t, "validate", "--allow-pending", filepath.Join(dir, name))
		if want := fmt.Sprintf("%s:%d: warning: last line is incomplete (the writer was stopped mid-record)", name, i+1); code != 0 || !strings.Contains(out, want) {
			t.Errorf("validate %s: exit %d\n%s\nwant %q", name, code, out, want)
		}
		checkKilledTranscript(t, dir, name, cut, provider)
	}
	// Killed between the answer and the end record, no line torn.
	if !bytes.Contains(lines[len(lines)-1], []byte(`"type":"end"`)) {
		t.Fatalf("the last record is not the end: %s", lines[len(lines)-1])
	}
	noEnd := bytes.Join(lines[:len(lines)-1], nil)
	if err := os.WriteFile(filepath.Join(dir, "no-end.jsonl"), noEnd, 0o600); err != nil {
		t.Fatal(err)
	}
	checkKilledTranscript(t, dir, "no-end.jsonl", noEnd, provider)
}
