package approval

import (
	"bytes"
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
	"github.com/agentloop/agentloop/pkg/wire"
)

// deleteTool loads "delete" (confirm: true, leaves a file "ran-<call id>"
// behind) and "look" (no confirmation needed).
func deleteTool(t *testing.T) (*toolset.Set, string) {
	t.Helper()
	return toolsettest.Folder(t, map[string]string{
		"delete.yaml": "name: delete\ndescription: d\nparameters:\n  path: {type: string}\nrun: delete.sh\nconfirm: true\n",
		"delete.sh":   "#!/bin/sh\ntouch \"$(dirname \"$0\")/ran-$AGENTLOOP_CALL_ID\"\necho deleted\n",
		"look.yaml":   "name: look\ndescription: d\nparameters: {}\nrun: look.sh\n",
		"look.sh":     "#!/bin/sh\necho looked\n",
	})
}

// terminal is a person who types answers; what they are asked is in out.
func terminal(answers string, out *bytes.Buffer) func() (io.Reader, io.Writer, func(), bool) {
	return func() (io.Reader, io.Writer, func(), bool) {
		return strings.NewReader(answers), out, func() {}, true
	}
}

// The runs sharing one approver (the items of a batch) each ask about
// their turn's calls in the order the model made them, whatever turns the
// other runs start meanwhile.
func TestOrderPerRun(t *testing.T) {
	ts, _ := deleteTool(t)
	var asked bytes.Buffer
	a := New(Config{Tools: ts, Terminal: terminal("y\ny\ny\n", &asked)})
	defer a.Close()
	orderA, orderB := NewOrder(), NewOrder()
	runA, runB := a.For(orderA, ""), a.For(orderB, "")
	observeA, observeB := orderA.Observe(nil), orderB.Observe(nil)

	a1, a2, b1 := agent.Call{ID: "a1", Name: "delete"}, agent.Call{ID: "a2", Name: "delete"}, agent.Call{ID: "b1", Name: "delete"}
	observeA(agent.Event{Kind: agent.EventCallStart, Step: 1, Call: &a1, Index: 0})
	observeA(agent.Event{Kind: agent.EventCallStart, Step: 1, Call: &a2, Index: 1})
	// Another item's turn starts: it must not make A forget its order.
	observeB(agent.Event{Kind: agent.EventCallStart, Step: 3, Call: &b1, Index: 0})

	var wg sync.WaitGroup
	wg.Go(func() { runA.Call(context.Background(), "delete", "a2", []byte(`{"path":"x"}`)) })
	time.Sleep(30 * time.Millisecond) // a2 is waiting for a1 (if not, a2 asks first and the test fails)
	wg.Go(func() { runA.Call(context.Background(), "delete", "a1", []byte(`{"path":"x"}`)) })
	wg.Go(func() { runB.Call(context.Background(), "delete", "b1", []byte(`{"path":"x"}`)) })
	wg.Wait()
	out := asked.String()
	if !regexp.MustCompile(`(?s)\(call a1\).*\(call a2\)`).MatchString(out) || !regexp.MustCompile(`\(call b1\)`).MatchString(out) {
		t.Errorf("questions out of each run's call order:\n%s", out)
	}
}

// A run's questions and notes name its item, escaped: the items of a
// batch share one terminal, and an item's id is the input's.
func TestRunNamesItsItem(t *testing.T) {
	ts, dir := deleteTool(t)
	var asked bytes.Buffer
	var notes []string
	a := New(Config{Tools: ts, Terminal: terminal("y\nn\n", &asked), Note: func(l string) { notes = append(notes, l) }})
	defer a.Close()
	run := a.For(NewOrder(), "task\x1b[2J7")
	if r := run.Call(context.Background(), "delete", "c1", []byte(`{"path":"x"}`)); r.IsError {
		t.Fatalf("allowed call: %+v", r)
	}
	if r := run.Call(context.Background(), "delete", "c2", []byte(`{"path":"x"}`)); r.Kind != wire.KindDenied {
		t.Fatalf("declined call: %+v", r)
	}
	if n := strings.Count(asked.String(), `agentloop: item task\u001b[2J7: the model asks to run delete`); n != 2 {
		t.Errorf("%d questions name the item:\n%s", n, asked.String())
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], `agentloop: item task\u001b[2J7: delete (call c2) not run: declined`) {
		t.Errorf("notes %q", notes)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-c1")); err != nil {
		t.Errorf("the allowed call did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-c2")); err == nil {
		t.Error("the declined call ran")
	}
	// The approver's own calls name no item.
	asked.Reset()
	a2 := New(Config{Tools: ts, Terminal: terminal("y\n", &asked)})
	defer a2.Close()
	a2.Call(context.Background(), "delete", "c3", []byte(`{"path":"x"}`))
	if !strings.HasPrefix(asked.String(), "agentloop: the model asks to run delete (call c3)") {
		t.Errorf("question %q", asked.String())
	}
}

// Without a terminal nothing is asked: a call that needs approval is
// denied with a note; one allowed by name, or a tool that needs none,
// runs; a replay (offline) re-runs neither a denied tool nor one that
// needs approval.
func TestWithoutTerminal(t *testing.T) {
	ts, _ := deleteTool(t)
	call := func(c Config, tool string) agent.ToolResult {
		c.Tools = ts
		a := New(c)
		defer a.Close()
		args := `{"path":"x"}`
		if tool == "look" {
			args = `{}`
		}
		return a.Call(context.Background(), tool, "c1", []byte(args))
	}
	var notes []string
	if r := call(Config{Note: func(l string) { notes = append(notes, l) }}, "delete"); r.Kind != wire.KindDenied || len(notes) != 1 {
		t.Errorf("no terminal: %+v, notes %q", r, notes)
	}
	if r := call(Config{Allow: []string{"delete"}}, "delete"); r.IsError {
		t.Errorf("--allow delete: %+v", r)
	}
	if r := call(Config{}, "look"); r.IsError {
		t.Errorf("look: %+v", r)
	}
	if r := call(Config{Offline: true}, "delete"); r.Kind != wire.KindSkipped {
		t.Errorf("offline: %+v", r)
	}
	if r := call(Config{Offline: true, Deny: []string{"look"}}, "look"); r.Kind != wire.KindSkipped {
		t.Errorf("offline --deny look: %+v", r)
	}
}

func TestDisplayArgs(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{ "a" : 1 }`, `{"a":1}`},
		{"{\"a\":\"x\u202ey\"}", `{"a":"x\u202ey"}`},           // right-to-left override
		{"{\"a\":\"x\u009b2Jy\"}", `{"a":"x\u009b2Jy"}`},       // C1 control sequence introducer
		{"{\"a\":\"\u2066x\u2069\"}", `{"a":"\u2066x\u2069"}`}, // isolates
		{"not json \x1b[2K\xff", `not json \u001b[2K\xff`},     // not JSON: shown as it is, escaped
		{`{"a":"été 日本"}`, `{"a":"été 日本"}`},
		{`{"a":"` + strings.Repeat("x", 5000) + `"}`, `{"a":"` + strings.Repeat("x", maxShownArgs-6) + `… (1008 more bytes not shown)`},
	}
	for _, tt := range tests {
		if got := displayArgs([]byte(tt.in)); got != tt.want {
			t.Errorf("displayArgs(%.80q…)\n got %.80q…\nwant %.80q…", tt.in, got, tt.want)
		}
	}
}
