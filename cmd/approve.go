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
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
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
	// hold keeps progress off stderr while a question is on screen.
	hold func() (release func())

	slot chan struct{} // one question at a time
	once sync.Once
	in   *bufio.Reader
	out  io.Writer
	done func()
	ok   bool
}

var _ agent.Executor = (*approver)(nil)

// newApprover wraps the tools. A nil hold is a progress display that needs
// none.
func newApprover(ios *IOStreams, ts *toolset.Set, o approvalOptions, offline bool, hold func() func()) *approver {
	a := &approver{tools: ts, ios: ios, allowAll: o.Yes, allow: map[string]bool{}, skip: map[string]bool{},
		offline: offline, hold: hold, slot: make(chan struct{}, 1)}
	for _, n := range o.Allow {
		a.allow[n] = true
	}
	if offline {
		for _, n := range o.Deny {
			a.skip[n] = true
		}
	}
	if a.hold == nil {
		a.hold = func() func() { return func() {} }
	}
	return a
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
		return refused(transcript.KindSkipped, fmt.Sprintf("not replayed: --deny %s", name), start), false
	case !confirm, a.allowAll, a.allow[name]:
	case a.tools.CheckArgs(name, args) != nil:
		// Arguments that do not fit fail without running: nothing to ask.
	case a.offline:
		return refused(transcript.KindSkipped, fmt.Sprintf("not replayed: %s needs a person's approval (confirm: true); replay runs it with --allow %s or --yes", name, name), start), false
	default:
		if r, ok := a.ask(ctx, name, callID, args); !ok {
			r.Duration = time.Since(start)
			return r, false
		}
	}
	return a.tools.Call(ctx, name, callID, args), true
}

func refused(kind, why string, start time.Time) agent.ToolResult {
	return agent.ToolResult{IsError: true, Kind: kind, ExitCode: -1, Content: why, Duration: time.Since(start)}
}

func canceled(ctx context.Context) agent.ToolResult {
	return agent.ToolResult{IsError: true, Kind: transcript.KindCanceled, ExitCode: -1,
		Content: fmt.Sprintf("canceled while waiting for approval: %v", context.Cause(ctx))}
}

// ask puts the call to a person and reports whether they allowed it;
// when they did not, the result says so.
func (a *approver) ask(ctx context.Context, name, callID string, args []byte) (agent.ToolResult, bool) {
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
		return agent.ToolResult{IsError: true, Kind: transcript.KindDenied, ExitCode: -1, Content: fmt.Sprintf(
			"not run: %s needs a person's approval (confirm: true) and there was no terminal to ask on; the user can allow it with --allow %s or --yes",
			name, name)}, false
	}
	release := a.hold()
	defer release()
	what := name
	if _, server := a.tools.Origin(name); server != "" {
		what += " of mcp server " + displayText(server, 100)
	}
	fmt.Fprintf(a.out, "agentloop: the model asks to run %s (call %s) with:\n  %s\nRun it? [y/N] ", what, displayText(callID, 100), displayArgs(args))

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
	return agent.ToolResult{IsError: true, Kind: transcript.KindDenied, ExitCode: -1,
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

// displayText escapes what a terminal would interpret and shows at most
// max bytes of s, saying how many more there were.
func displayText(s string, max int) string {
	var out strings.Builder
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if n+size > max {
			break
		}
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&out, "\\x%02x", s[n])
		case unicode.IsGraphic(r) && !unicode.Is(unicode.Bidi_Control, r):
			out.WriteRune(r)
		default:
			fmt.Fprintf(&out, "\\u%04x", r)
		}
		n += size
	}
	if n < len(s) {
		fmt.Fprintf(&out, "… (%d more bytes not shown)", len(s)-n)
	}
	return out.String()
}
