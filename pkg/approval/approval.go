// Package approval is the executor that stands between the loop and the
// tools: which calls run without a person's say-so (--yes, --allow),
// which not at all (--deny in a replay), and the question put to a person
// on the terminal for the others, one at a time and in the order the
// model made its calls. It does not protect against a tool that does harm
// once allowed, nor against a person who answers yes without reading:
// the question shows the call's arguments escaped, so that what is asked
// is what runs.
package approval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Approver is the Executor that stands between the loop and the tools: a
// call of a tool marked confirm: true runs only when the settings allow it
// or a person says yes on the terminal. Without a terminal it is denied,
// as an error result the model reads. Questions are asked one at a time,
// whatever the number of calls running in parallel, and in the order the
// model made the calls of its turn.
type Approver struct {
	tools    *toolset.Set
	allowAll bool
	allow    map[string]bool
	// offline is set for a replay: nobody is asked, and the calls that
	// need approval are not re-run; skip lists the denied tools, whose
	// calls are not re-run either.
	offline  bool
	skip     map[string]bool
	terminal func() (in io.Reader, out io.Writer, done func(), ok bool)
	hold     func() (release func())
	note     func(line string)
	// order asks about the calls of a turn in the order they were made,
	// for the calls of Call (those of For keep their own).
	order *Order

	slot chan struct{} // one question at a time
	once sync.Once
	in   *bufio.Reader
	out  io.Writer
	done func()
	ok   bool
}

var _ agent.Executor = (*Approver)(nil)

// Config says which calls run without a person's say-so, which not at all,
// and where a person is asked.
type Config struct {
	// Tools are the tools the calls are made to.
	Tools *toolset.Set
	// Yes runs every tool without asking; Allow names those that run
	// without asking.
	Yes   bool
	Allow []string
	// Offline is for a replay: nobody is asked, a call that needs a
	// person's approval is not re-run, nor are the calls of the tools
	// Deny names.
	Offline bool
	Deny    []string
	// Terminal returns where a person can be asked: the answer is read
	// from in, the question written to out; done releases them. ok is
	// false when no one is there to ask. It is called at the first
	// question; nil asks nobody.
	Terminal func() (in io.Reader, out io.Writer, done func(), ok bool)
	// Hold keeps the progress display off the terminal while a question
	// is on it, until release is called; Note writes a line on stderr
	// (a call denied, declined). Either may be nil.
	Hold func() (release func())
	Note func(line string)
}

// New wraps the tools in the approval the configuration says.
func New(c Config) *Approver {
	a := &Approver{tools: c.Tools, allowAll: c.Yes, allow: map[string]bool{}, skip: map[string]bool{},
		offline: c.Offline, terminal: c.Terminal, hold: c.Hold, note: c.Note, order: NewOrder(), slot: make(chan struct{}, 1)}
	for _, n := range c.Allow {
		a.allow[n] = true
	}
	if c.Offline {
		for _, n := range c.Deny {
			a.skip[n] = true
		}
	}
	if a.hold == nil {
		a.hold = func() func() { return func() {} }
	}
	if a.note == nil {
		a.note = func(string) {}
	}
	return a
}

// Observe passes the loop's events to next, learning from them the order
// of each turn's calls: those of the run the Approver's own Call serves.
func (a *Approver) Observe(next func(agent.Event)) func(agent.Event) {
	return a.order.Observe(next)
}

// Run is the Approver as the executor of one run of several that share it
// (the items of a batch): its questions keep the run's own order of calls
// and name the run.
type Run struct {
	a     *Approver
	order *Order
	item  string
}

var _ agent.Executor = (*Run)(nil)

// For is the executor of a run with its own order of calls (its loop's
// events go to order.Observe) whose questions and notes begin "item
// ITEM: ", since the runs share one terminal. ITEM comes from the input
// and is shown escaped; "" names no item.
func (a *Approver) For(order *Order, item string) *Run {
	return &Run{a: a, order: order, item: item}
}

// Call runs the call if it may run, and otherwise answers it with why not.
func (r *Run) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	return r.a.callAs(ctx, r.order, r.whose(), name, callID, args)
}

// whose is how a question or note begins: "item ID: " in a batch, else
// nothing.
func (r *Run) whose() string {
	if r.item == "" {
		return ""
	}
	return "item " + termtext.Display(r.item, 100) + ": "
}

// Call runs the call if it may run, and otherwise answers it with why not.
func (a *Approver) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	return a.callAs(ctx, a.order, "", name, callID, args)
}

func (a *Approver) callAs(ctx context.Context, order *Order, whose, name, callID string, args []byte) agent.ToolResult {
	r, ran := a.call(ctx, order, whose, name, callID, args)
	if !ran {
		r.Source, r.Server = a.tools.Origin(name)
	}
	return r
}

func (a *Approver) call(ctx context.Context, order *Order, whose, name, callID string, args []byte) (agent.ToolResult, bool) {
	start := time.Now()
	confirm, known := a.tools.Confirms(name)
	switch {
	case !known:
		// The tools answer an unknown tool.
	case a.skip[name]:
		return refused(wire.KindSkipped, fmt.Sprintf("not replayed: --deny %s", name), start), false
	case !confirm, a.allowAll, a.allow[name]:
	case a.tools.CheckArgs(name, args) != nil:
		// Arguments that do not fit fail without running: nothing to ask.
	case a.offline:
		return refused(wire.KindSkipped, fmt.Sprintf("not replayed: %s needs a person's approval (confirm: true); replay runs it with --allow %s or --yes", name, name), start), false
	default:
		r, ok := a.ask(ctx, order, whose, name, callID, args)
		order.pass(callID)
		if !ok {
			r.Duration = time.Since(start)
			return r, false
		}
		return a.tools.Call(ctx, name, callID, args), true
	}
	order.pass(callID)
	return a.tools.Call(ctx, name, callID, args), true
}

func refused(kind, why string, start time.Time) agent.ToolResult {
	return agent.ToolResult{IsError: true, Kind: kind, ExitCode: -1, Content: why, Duration: time.Since(start)}
}

func canceled(ctx context.Context) agent.ToolResult {
	return agent.ToolResult{IsError: true, Kind: wire.KindCanceled, ExitCode: -1,
		Content: fmt.Sprintf("canceled while waiting for approval: %v", context.Cause(ctx))}
}

// ask puts the call to a person and reports whether they allowed it;
// when they did not, the result says so.
func (a *Approver) ask(ctx context.Context, order *Order, whose, name, callID string, args []byte) (agent.ToolResult, bool) {
	if !order.wait(ctx, callID) {
		return canceled(ctx), false
	}
	select {
	case a.slot <- struct{}{}:
		defer func() { <-a.slot }()
	case <-ctx.Done():
		return canceled(ctx), false
	}
	if ctx.Err() != nil {
		return canceled(ctx), false
	}
	a.once.Do(a.open)
	if !a.ok {
		// Said on stderr too: a run in CI must not end "successfully"
		// without a word about what it did not do.
		a.note(fmt.Sprintf("agentloop: %s%s (call %s) denied: it needs a person's approval (confirm: true) and there is no terminal to ask on; --allow %s or --yes runs it",
			whose, termtext.Display(name, 200), termtext.Display(callID, 200), termtext.Display(name, 200)))
		return agent.ToolResult{IsError: true, Kind: wire.KindDenied, ExitCode: -1, Content: fmt.Sprintf(
			"not run: %s needs a person's approval (confirm: true) and there was no terminal to ask on; the user can allow it with --allow %s or --yes",
			name, name)}, false
	}
	// Released early to say the call was declined below the question.
	release := sync.OnceFunc(a.hold())
	defer release()
	what := name
	if _, server := a.tools.Origin(name); server != "" {
		what += " of mcp server " + termtext.Display(server, 100)
	}
	fmt.Fprintf(a.out, "agentloop: %sthe model asks to run %s (call %s) with:\n  %s\nRun it? [y/N] ", whose, what, termtext.Display(callID, 100), displayArgs(args))

	answer := make(chan string, 1)
	go func() {
		// A read from a terminal cannot be interrupted; if the context
		// ends first this goroutine is left to the read, and the run is
		// ending anyway. Nothing else reads a.in meanwhile: every later
		// question sees the ended context first.
		line, _ := a.in.ReadString('\n')
		answer <- line
	}()
	var line string
	select {
	case line = <-answer:
	case <-ctx.Done():
		fmt.Fprintln(a.out)
		return canceled(ctx), false
	}
	if !strings.HasSuffix(line, "\n") {
		fmt.Fprintln(a.out) // end of input: the question's line is not ended
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return agent.ToolResult{}, true
	}
	release()
	a.note(fmt.Sprintf("agentloop: %s%s (call %s) not run: declined", whose, termtext.Display(name, 200), termtext.Display(callID, 200)))
	return agent.ToolResult{IsError: true, Kind: wire.KindDenied, ExitCode: -1,
		Content: fmt.Sprintf("not run: the user declined this call to %s", name)}, false
}

func (a *Approver) open() {
	if a.terminal == nil {
		return
	}
	in, out, done, ok := a.terminal()
	if ok {
		a.in, a.out, a.done, a.ok = bufio.NewReader(in), out, done, true
	}
}

// Close releases the terminal, if one was opened.
func (a *Approver) Close() {
	a.once.Do(func() {}) // no terminal is opened after Close
	if a.done != nil {
		a.done()
	}
}

// maxShownArgs bounds the arguments shown in a question.
const maxShownArgs = 4000

// displayArgs renders a call's arguments for a person to judge: compact
// JSON, and nothing a terminal would act on. The model chose every byte;
// a control sequence could move the cursor and hide what is asked, a
// bidirectional override could reorder it, so each such character is
// shown escaped.
func displayArgs(args []byte) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, args) == nil {
		args = b.Bytes()
	}
	return termtext.Display(string(args), maxShownArgs)
}
