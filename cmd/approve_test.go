package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/internal/toolset/toolsettest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/wire"
)

// approvalTools loads "delete" (confirm: true, leaves a file "ran-<call
// id>" behind) and "look" (no confirmation needed).
func approvalTools(t *testing.T) (*toolset.Set, string) {
	t.Helper()
	return toolsettest.Folder(t, map[string]string{
		"delete.yaml": "name: delete\ndescription: d\nparameters:\n  path: {type: string}\nrun: delete.sh\nconfirm: true\n",
		"delete.sh":   "#!/bin/sh\ntouch \"$(dirname \"$0\")/ran-$AGENTLOOP_CALL_ID\"\necho deleted\n",
		"look.yaml":   "name: look\ndescription: d\nparameters: {}\nrun: look.sh\n",
		"look.sh":     "#!/bin/sh\necho looked\n",
	})
}

func TestApprover(t *testing.T) {
	const args = `{"path": "notes.txt"}`
	question := "agentloop: the model asks to run delete (call c1) with:\n  {\"path\":\"notes.txt\"}\nRun it? [y/N] "
	tests := []struct {
		name     string
		tool     string
		args     string
		stdinTTY bool
		input    string
		opts     approvalOptions
		offline  bool
		wantRan  bool
		wantKind string
		wantText string
		wantErr  string // stderr
	}{
		{name: "yes on the terminal", tool: "delete", stdinTTY: true, input: "y\n", wantRan: true, wantText: "deleted\n", wantErr: question},
		{name: "YES, spaced", tool: "delete", stdinTTY: true, input: "  YES \n", wantRan: true, wantText: "deleted\n", wantErr: question},
		{name: "no on the terminal", tool: "delete", stdinTTY: true, input: "n\n", wantKind: wire.KindDenied,
			wantText: "not run: the user declined this call to delete", wantErr: question},
		{name: "an empty answer is no", tool: "delete", stdinTTY: true, input: "\n", wantKind: wire.KindDenied, wantErr: question},
		{name: "end of input is no", tool: "delete", stdinTTY: true, input: "", wantKind: wire.KindDenied, wantErr: question + "\n"},
		{name: "no terminal", tool: "delete", input: "y\n", wantKind: wire.KindDenied,
			wantText: "not run: delete needs a person's approval (confirm: true) and there was no terminal to ask on; the user can allow it with --allow delete or --yes"},
		{name: "--yes", tool: "delete", opts: approvalOptions{Yes: true}, wantRan: true},
		{name: "--allow", tool: "delete", opts: approvalOptions{Allow: []string{"delete"}}, wantRan: true},
		{name: "--allow another tool", tool: "delete", opts: approvalOptions{Allow: []string{"look"}}, wantKind: wire.KindDenied},
		{name: "no confirmation needed", tool: "look", args: `{}`, stdinTTY: true, wantText: "looked\n"},
		{name: "bad arguments are not asked about", tool: "delete", args: `{"path": 5}`, stdinTTY: true, input: "y\n", wantKind: wire.KindBadArguments},
		{name: "unknown tool", tool: "nope", stdinTTY: true, input: "y\n", wantKind: wire.KindUnknownTool},
		{name: "offline replay", tool: "delete", stdinTTY: true, input: "y\n", offline: true, wantKind: wire.KindSkipped,
			wantText: "not replayed: delete needs a person's approval (confirm: true); replay runs it with --allow delete or --yes"},
		{name: "offline replay with --allow", tool: "delete", offline: true, opts: approvalOptions{Allow: []string{"delete"}}, wantRan: true},
		{name: "offline replay with --deny", tool: "look", args: `{}`, offline: true, opts: approvalOptions{Deny: []string{"look"}}, wantKind: wire.KindSkipped,
			wantText: "not replayed: --deny look"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, dir := approvalTools(t)
			ios, in, _, errOut := iostreams.Test()
			in.WriteString(tt.input)
			ios.SetTTY(tt.stdinTTY, false, false)
			a := newApprover(ios, reg, tt.opts, tt.offline, nil)
			defer a.Close()
			callArgs := tt.args
			if callArgs == "" {
				callArgs = args
			}
			res := a.Call(context.Background(), tt.tool, "c1", []byte(callArgs))
			_, err := os.Stat(filepath.Join(dir, "ran-c1"))
			if ran := err == nil; ran != tt.wantRan {
				t.Errorf("ran = %v, want %v (result %+v)", ran, tt.wantRan, res)
			}
			if res.Kind != tt.wantKind || res.IsError != (tt.wantKind != "") {
				t.Errorf("result %+v, want kind %q", res, tt.wantKind)
			}
			if tt.wantText != "" && res.Content != tt.wantText {
				t.Errorf("content %q\nwant    %q", res.Content, tt.wantText)
			}
			if errOut.String() != tt.wantErr {
				t.Errorf("stderr %q\nwant   %q", errOut.String(), tt.wantErr)
			}
		})
	}
}

// Parallel calls are asked about one at a time: each question is whole,
// and each answer goes to its question.
func TestApproverOneQuestionAtATime(t *testing.T) {
	reg, dir := approvalTools(t)
	ios, in, _, errOut := iostreams.Test()
	in.WriteString("y\nn\ny\nn\ny\nn\n")
	ios.SetTTY(true, false, false)
	ui := &countingUI{}
	a := newApprover(ios, reg, approvalOptions{}, false, ui)
	defer a.Close()
	var wg sync.WaitGroup
	results := make([]agent.ToolResult, 6)
	for i := range results {
		wg.Go(func() {
			results[i] = a.Call(context.Background(), "delete", "c"+string(rune('1'+i)), []byte(`{"path":"x"}`))
		})
	}
	wg.Wait()
	block := `agentloop: the model asks to run delete \(call c[1-6]\) with:\n  \{"path":"x"\}\nRun it\? \[y/N\] `
	if !regexp.MustCompile(`^(` + block + `){6}$`).MatchString(errOut.String()) {
		t.Errorf("questions interleaved:\n%s", errOut)
	}
	ran, denied := 0, 0
	for i, r := range results {
		_, err := os.Stat(filepath.Join(dir, "ran-c"+string(rune('1'+i))))
		switch {
		case err == nil && !r.IsError:
			ran++
		case err != nil && r.Kind == wire.KindDenied:
			denied++
		default:
			t.Errorf("call %d: result %+v, ran %v", i, r, err == nil)
		}
	}
	if ran != 3 || denied != 3 || ui.holds != 6 || len(ui.notes) != 3 {
		t.Errorf("%d ran, %d denied, progress held %d times, %d notes; want 3, 3, 6, 3", ran, denied, ui.holds, len(ui.notes))
	}
}

// countingUI counts the holds of the progress display and keeps the notes.
type countingUI struct {
	mu    sync.Mutex
	holds int
	notes []string
}

func (u *countingUI) Hold() func() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.holds++
	return func() {}
}

func (u *countingUI) Note(line string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.notes = append(u.notes, line)
}

// Ctrl-C while a question waits for its answer ends the call at once.
func TestApproverCanceledWhileAsking(t *testing.T) {
	reg, dir := approvalTools(t)
	ios, _, _, errOut := iostreams.Test()
	r, w := io.Pipe()
	defer w.Close()
	ios.In = r
	ios.SetTTY(true, false, false)
	a := newApprover(ios, reg, approvalOptions{}, false, nil)
	defer a.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel(errInterrupted)
	}()
	start := time.Now()
	res := a.Call(ctx, "delete", "c1", []byte(`{"path":"x"}`))
	if res.Kind != wire.KindCanceled || res.Content != "canceled while waiting for approval: interrupted" {
		t.Errorf("result %+v", res)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-c1")); err == nil {
		t.Error("the tool ran")
	}
	if !strings.HasSuffix(errOut.String(), "Run it? [y/N] \n") {
		t.Errorf("stderr %q", errOut)
	}
	// Later calls are canceled without a question.
	errOut.Reset()
	if res := a.Call(ctx, "delete", "c2", []byte(`{"path":"x"}`)); res.Kind != wire.KindCanceled || errOut.Len() > 0 {
		t.Errorf("after the cancel: result %+v, stderr %q", res, errOut)
	}
}

func TestApprovalFlagNames(t *testing.T) {
	reg, _ := approvalTools(t)
	tests := []struct {
		opts approvalOptions
		want string
	}{
		{approvalOptions{Allow: []string{"delete"}, Deny: []string{"look"}}, ""},
		{approvalOptions{Deny: []string{"delet"}}, `--deny delet: unknown tool "delet" (did you mean "delete"?) (available: delete, look)`},
		{approvalOptions{Allow: []string{"rm"}}, `--allow rm: unknown tool "rm" (available: delete, look)`},
		{approvalOptions{Allow: []string{"look"}, Deny: []string{"look"}}, `--allow look and --deny look: a tool cannot be both`},
	}
	for _, tt := range tests {
		err := tt.opts.check(reg)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v: %v", tt.opts, err)
		case tt.want != "" && (engine.KindOf(err) != engine.Flag || err.Error() != tt.want):
			t.Errorf("%+v: err %v, want the usage error %q", tt.opts, err, tt.want)
		}
	}
}

func TestApprovalFlagsParse(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	var got *RunOptions
	c := newCmdRun(ios, func(_ context.Context, o *RunOptions) error { got = o; return nil })
	c.SetArgs([]string{"--yes", "--allow", "a", "--allow", "b", "--deny", "c", "hi"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.Approval.Yes || strings.Join(got.Approval.Allow, ",") != "a,b" || strings.Join(got.Approval.Deny, ",") != "c" {
		t.Errorf("approval %+v", got.Approval)
	}
	var rgot *ReplayOptions
	rc := newCmdReplay(ios, func(_ context.Context, o *ReplayOptions) error { rgot = o; return nil })
	rc.SetArgs([]string{"--resume", "--deny", "x", "f.jsonl"})
	if err := rc.Execute(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rgot.Approval.Deny, ",") != "x" {
		t.Errorf("replay approval %+v", rgot.Approval)
	}
	ios, _, _, errOut := iostreams.Test()
	if code := Execute(context.Background(), ios, []string{"replay", "--show", "--yes", "f.jsonl"}); code != ExitUsage || !strings.Contains(errOut.String(), "--show and --yes cannot be used together") {
		t.Errorf("replay --show --yes: exit %d, %s", code, errOut)
	}
}

// Questions follow the order of the calls in their turn, whatever order
// the calls reach the approver in; one that waits for an earlier call
// gives up when the run is interrupted.
func TestApproverAsksInCallOrder(t *testing.T) {
	reg, _ := approvalTools(t)
	ios, in, _, errOut := iostreams.Test()
	in.WriteString("y\ny\ny\n")
	ios.SetTTY(true, false, false)
	a := newApprover(ios, reg, approvalOptions{}, false, nil)
	defer a.Close()
	observe := a.Observe(nil)
	calls := []agent.Call{{ID: "c1", Name: "delete"}, {ID: "c2", Name: "delete"}, {ID: "c3", Name: "delete"}}
	for i := range calls {
		observe(agent.Event{Kind: agent.EventCallStart, Step: 1, Call: &calls[i], Index: i})
	}
	var wg sync.WaitGroup
	for i := len(calls) - 1; i >= 0; i-- { // the last call first
		wg.Go(func() { a.Call(context.Background(), "delete", calls[i].ID, []byte(`{"path":"x"}`)) })
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
	if !regexp.MustCompile(`(?s)\(call c1\).*\(call c2\).*\(call c3\)`).MatchString(errOut.String()) {
		t.Errorf("questions out of call order:\n%s", errOut)
	}

	// A new turn: c2 waits for c1, which never comes.
	observe(agent.Event{Kind: agent.EventCallStart, Step: 2, Call: &agent.Call{ID: "d1"}, Index: 0})
	observe(agent.Event{Kind: agent.EventCallStart, Step: 2, Call: &agent.Call{ID: "d2"}, Index: 1})
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(errInterrupted) })
	if r := a.Call(ctx, "delete", "d2", []byte(`{"path":"x"}`)); r.Kind != wire.KindCanceled {
		t.Errorf("result %+v, want canceled", r)
	}
}
