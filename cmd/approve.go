package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// approvalOptions are the flags that say which tools run without a
// person's say-so and which not at all.
type approvalOptions struct {
	Yes   bool
	Allow []string
	Deny  []string
}

func addApprovalFlags(c *cobra.Command, o *approvalOptions) {
	f := c.Flags()
	f.BoolVar(&o.Yes, "yes", false, "run the tools marked confirm: true without asking")
	f.StringArrayVar(&o.Allow, "allow", nil, "run the confirm: true tool `NAME` without asking (repeatable)")
	f.StringArrayVar(&o.Deny, "deny", nil, "leave out the tool `NAME`: it is not offered to the model (repeatable)")
}

// check holds the names to the loaded tools: a misspelt name would allow
// or deny nothing, silently.
func (o *approvalOptions) check(ts *toolset.Set) error {
	for _, f := range []struct {
		flag  string
		names []string
	}{{"allow", o.Allow}, {"deny", o.Deny}} {
		for _, n := range f.names {
			if !ts.MayHave(n) {
				return flagErrorf("--%s %s: %s", f.flag, n, ts.UnknownText(n))
			}
		}
	}
	for _, n := range o.Allow {
		if slices.Contains(o.Deny, n) {
			return flagErrorf("--allow %s and --deny %s: a tool cannot be both", n, n)
		}
	}
	return nil
}

// approver is the Executor that stands between the loop and the tools: a
// call of a tool marked confirm: true runs only when the flags allow it or
// a person says yes on the terminal. Without a terminal it is denied, as
// an error result the model reads. Questions are asked one at a time,
// whatever the number of calls running in parallel.
type approver struct {
	tools    *toolset.Set
	ios      *IOStreams
	allowAll bool
	allow    map[string]bool
	// offline is set for a replay: nobody is asked, and the calls that
	// need approval are not re-run; skip lists the --deny tools, whose
	// calls are not re-run either.
	offline bool
	skip    map[string]bool
	// ui keeps progress off stderr while a question is on screen, and
	// says on stderr that a call was denied.
	ui approvalUI
	// order asks about the calls of a turn in the order they were made.
	order *callOrder

	slot chan struct{} // one question at a time
	once sync.Once
	in   *bufio.Reader
	out  io.Writer
	done func()
	ok   bool
}

var _ agent.Executor = (*approver)(nil)

// approvalUI is what the approver needs of the progress display.
type approvalUI interface {
	// hold keeps stderr quiet until release is called.
	hold() (release func())
	// note writes a line on stderr (none with -q).
	note(line string)
}

// quietUI is the display of a replay, which asks nobody.
type quietUI struct{}

func (quietUI) hold() func() { return func() {} }
func (quietUI) note(string)  {}

// newApprover wraps the tools. A nil ui shows nothing.
func newApprover(ios *IOStreams, ts *toolset.Set, o approvalOptions, offline bool, ui approvalUI) *approver {
	a := &approver{tools: ts, ios: ios, allowAll: o.Yes, allow: map[string]bool{}, skip: map[string]bool{},
		offline: offline, ui: ui, order: newCallOrder(), slot: make(chan struct{}, 1)}
	for _, n := range o.Allow {
		a.allow[n] = true
	}
	if offline {
		for _, n := range o.Deny {
			a.skip[n] = true
		}
	}
	if a.ui == nil {
		a.ui = quietUI{}
	}
	return a
}

// Observe passes the loop's events to next, learning from them the order
// of each turn's calls.
func (a *approver) Observe(next func(agent.Event)) func(agent.Event) {
	return observeOrder(a.order, next)
}

func observeOrder(o *callOrder, next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		o.Event(e)
		if next != nil {
			next(e)
		}
	}
}

type callOrderKey struct{}

// withCallOrder gives the calls made with ctx an order of their own: the
// runs of a batch share one approver (its answers, its terminal, one
// question at a time), each with its own turns, and its loop's events go
// to observeOrder(o, …).
func withCallOrder(ctx context.Context, o *callOrder) context.Context {
	return context.WithValue(ctx, callOrderKey{}, o)
}

type itemKey struct{}

// withItem says that the calls made with ctx are those of the batch item
// id: its questions and notes name it, since the items of a batch share
// one terminal.
func withItem(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, itemKey{}, id)
}

// whose is how a question or note begins for the call made with ctx:
// "item ID: " in a batch, else nothing. The id comes from the input and is
// shown escaped.
func whose(ctx context.Context) string {
	if id, ok := ctx.Value(itemKey{}).(string); ok {
		return "item " + displayText(id, 100) + ": "
	}
	return ""
}

// orderOf is the order the call made with ctx keeps.
func (a *approver) orderOf(ctx context.Context) *callOrder {
	if o, ok := ctx.Value(callOrderKey{}).(*callOrder); ok {
		return o
	}
	return a.order
}

// Call runs the call if it may run, and otherwise answers it with why not.
func (a *approver) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	r, ran := a.call(ctx, name, callID, args)
	if !ran {
		r.Source, r.Server = a.tools.Origin(name)
	}
	return r
}

func (a *approver) call(ctx context.Context, name, callID string, args []byte) (agent.ToolResult, bool) {
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
		r, ok := a.ask(ctx, name, callID, args)
		a.orderOf(ctx).pass(callID)
		if !ok {
			r.Duration = time.Since(start)
			return r, false
		}
		return a.tools.Call(ctx, name, callID, args), true
	}
	a.orderOf(ctx).pass(callID)
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
func (a *approver) ask(ctx context.Context, name, callID string, args []byte) (agent.ToolResult, bool) {
	if !a.orderOf(ctx).wait(ctx, callID) {
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
		a.ui.note(fmt.Sprintf("agentloop: %s%s (call %s) denied: it needs a person's approval (confirm: true) and there is no terminal to ask on; --allow %s or --yes runs it",
			whose(ctx), displayText(name, 200), displayText(callID, 200), displayText(name, 200)))
		return agent.ToolResult{IsError: true, Kind: wire.KindDenied, ExitCode: -1, Content: fmt.Sprintf(
			"not run: %s needs a person's approval (confirm: true) and there was no terminal to ask on; the user can allow it with --allow %s or --yes",
			name, name)}, false
	}
	// Released early to say the call was declined below the question.
	release := sync.OnceFunc(a.ui.hold())
	defer release()
	what := name
	if _, server := a.tools.Origin(name); server != "" {
		what += " of mcp server " + displayText(server, 100)
	}
	fmt.Fprintf(a.out, "agentloop: %sthe model asks to run %s (call %s) with:\n  %s\nRun it? [y/N] ", whose(ctx), what, displayText(callID, 100), displayArgs(args))

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
	a.ui.note(fmt.Sprintf("agentloop: %s%s (call %s) not run: declined", whose(ctx), displayText(name, 200), displayText(callID, 200)))
	return agent.ToolResult{IsError: true, Kind: wire.KindDenied, ExitCode: -1,
		Content: fmt.Sprintf("not run: the user declined this call to %s", name)}, false
}

func (a *approver) open() {
	in, out, done, ok := a.ios.terminal()
	if ok {
		a.in, a.out, a.done, a.ok = bufio.NewReader(in), out, done, true
	}
}

// Close releases the terminal, if one was opened.
func (a *approver) Close() {
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
	return displayText(string(args), maxShownArgs)
}
