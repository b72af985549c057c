package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// ServerStart says how a command's MCP servers start: their options,
// whether an optional one that does not start goes unsaid (-q), where the
// warnings go, and the values they were given (kept out of messages).
type ServerStart struct {
	Options mcp.Options
	Quiet   bool
	Log     io.Writer
	Redact  *transcript.Redactor
	// Started, when set, hears of each server started, one line each.
	Started func(line string)
}

// OptionalHint says how to run on without a server that does not start.
const OptionalHint = "to run without a server when it does not start, set optional: true in its declaration"

// StartTools starts the servers of ts that could offer a tool sel keeps,
// all at once. A server that does not start is a Usage error naming it,
// or for an optional one a warning on the log; a name two sources offer
// is a problem, printed on the log, and the error counts them. On an
// error the set is closed.
func StartTools(ctx context.Context, ts *toolset.Set, sel toolset.Selection, s ServerStart) error {
	ts.Start(ctx, sel, s.Options)
	if ts.MCP == nil {
		return nil
	}
	var failed []error
	for _, st := range ts.MCP.Statuses() {
		c := st.Config
		switch {
		case st.Err == nil:
			if s.Started != nil {
				s.Started(fmt.Sprintf("mcp server %s: %s, %d tool%s, started in %s", c.Name, c.Shown(), len(st.Tools), english.Plural(len(st.Tools), "", "s"), st.StartTime.Round(1e6)))
			}
		case c.Optional && s.Quiet:
			// Left out without a word, as -q asks.
		case c.Optional:
			// One line, in every folder a user-level server applies to:
			// mcp check says the rest (the end of its stderr).
			why, _, _ := strings.Cut(strings.TrimSpace(s.Redact.RedactString(st.Err.Error())), "\n")
			fmt.Fprintln(s.Log, termtext.Display(fmt.Sprintf("agentloop: warning: optional mcp server %s (%s) left out: %s (agentloop mcp check %s says more)", c.Name, c.Where(), strings.TrimSpace(why), c.Name), 1<<12))
		default:
			failed = append(failed, errors.New(s.Redact.RedactString(fmt.Sprintf("mcp server %s (%s): %v", c.Name, c.Where(), st.Err))))
		}
	}
	if len(failed) > 0 {
		ts.Close()
		if ctx.Err() != nil {
			// Interrupted while servers started: exit as interrupted,
			// not as a server that failed.
			return context.Cause(ctx)
		}
		if len(failed) == 1 {
			return usagef("%w\n%s", failed[0], OptionalHint)
		}
		for _, e := range failed {
			fmt.Fprintln(s.Log, termtext.Safe("agentloop: "+e.Error()))
		}
		return usagef("%d mcp servers did not start\n%s", len(failed), OptionalHint)
	}
	if conflicts := ts.Conflicts(); len(conflicts) > 0 {
		ts.Close()
		return ReportProblems(s.Log, conflicts, "in the tool definitions")
	}
	return nil
}

// ReportProblems prints problems on log, one a line, and returns the error
// that counts them.
func ReportProblems(log io.Writer, problems []error, where string) error {
	for _, e := range problems {
		fmt.Fprintln(log, termtext.Safe(e.Error()))
	}
	return fmt.Errorf("%d %s %s", len(problems), english.Plural(len(problems), "problem", "problems"), where)
}

// CheckSandbox stops a command, before anything runs, when the sandbox is
// required and a tool's policy cannot be enforced in full (a Usage error
// naming the tools and why); otherwise, when a policy is not enforced, it
// says so on log unless quiet. It returns the lines -v shows: each tool's
// mode and what of it is enforced.
func CheckSandbox(ts *toolset.Set, s sandbox.Settings, quiet bool, log io.Writer) ([]string, error) {
	var lines, refused, unenforced []string
	for _, name := range ts.Reg.Names() {
		_, e, _ := ts.Reg.Sandbox(name)
		lines = append(lines, fmt.Sprintf("sandbox: %s: %s", name, e.Describe()))
		if why := s.Refusal(e); why != "" {
			refused = append(refused, fmt.Sprintf("tool %s: %s", name, why))
		} else if !e.Full {
			unenforced = append(unenforced, name)
		}
	}
	if ts.MCP != nil {
		for _, st := range ts.MCP.Statuses() {
			if st.Err == nil && st.Sandbox != "" {
				lines = append(lines, fmt.Sprintf("sandbox: mcp server %s: %s", st.Config.Name, st.Sandbox))
			}
		}
	}
	if len(refused) > 0 {
		return nil, usagef("%s\nrun on a kernel with Landlock (Linux 6.7 or later for TCP rules), or without --sandbox-required / sandbox_required", strings.Join(refused, "\n"))
	}
	if len(unenforced) > 0 && !quiet {
		_, e, _ := ts.Reg.Sandbox(unenforced[0])
		fmt.Fprintf(log, "agentloop: warning: the sandbox is not enforced in full for %s: %s\n", strings.Join(unenforced, ", "), e.Missing)
	}
	return lines, nil
}

// CheckApproval holds the names --allow and --deny give to the loaded
// tools: a misspelt name would allow or deny nothing, silently.
func CheckApproval(ts *toolset.Set, allow, deny []string) error {
	for _, f := range []struct {
		flag  string
		names []string
	}{{"allow", allow}, {"deny", deny}} {
		for _, n := range f.names {
			if !ts.MayHave(n) {
				return flagf("--%s %s: %s", f.flag, n, ts.UnknownText(n))
			}
		}
	}
	for _, n := range allow {
		if slices.Contains(deny, n) {
			return flagf("--allow %s and --deny %s: a tool cannot be both", n, n)
		}
	}
	return nil
}

// Offer says which of the loaded tools a run offers.
type Offer struct {
	// Only are --tool's: offer only these.
	Only []string
	// Recorded, when set, are the tools a recording offered: of those,
	// the ones still loaded are offered (run -c without --tool).
	Recorded *[]string
	// Header is the recording a run goes on with, nil for a new run:
	// every tool it offered must be here (Read says where they were
	// looked for), or denied.
	Header *transcript.Header
	Read   ToolsRead
	// Allow and Deny are --allow's and --deny's.
	Allow, Deny []string
}

// Selection is what of the tools loading starts: --tool's, or the
// servers that could offer a recorded tool; none of --deny's.
func (o Offer) Selection() toolset.Selection {
	sel := toolset.Selection{Only: o.Only, Deny: o.Deny}
	if len(o.Only) == 0 && o.Recorded != nil {
		sel.Only, sel.Restricted = *o.Recorded, true
	}
	return sel
}

// Narrow checks the approval flags against the tools and keeps those the
// run offers: --tool's, or those of a recording. A run that goes on with
// a recording offers every tool it offered, or stops before any request
// (RecordedToolsError): without them its pending calls would be answered
// as unknown tools and the model would go on with less than it had,
// unseen. --deny NAME is how to go on without one on purpose.
func Narrow(ts *toolset.Set, o Offer) error {
	var absent []toolset.Absent
	deny := o.Deny
	if o.Header != nil && len(o.Only) == 0 {
		absent = ts.Absent(o.Header, o.Deny)
		// --deny may name a recorded tool that is not here any more.
		recorded := o.Header.ToolNames()
		deny = slices.DeleteFunc(slices.Clone(deny), func(n string) bool {
			return !ts.MayHave(n) && slices.Contains(recorded, n)
		})
	}
	if err := CheckApproval(ts, o.Allow, deny); err != nil {
		return err
	}
	if len(absent) > 0 {
		return RecordedToolsError(absent, o.Read)
	}
	sel := o.Selection()
	if len(o.Only) == 0 && o.Recorded != nil {
		sel.Only = slices.DeleteFunc(slices.Clone(*o.Recorded), func(n string) bool { return !ts.Has(n) })
		return ts.Keep(sel)
	}
	if err := ts.Keep(sel); err != nil {
		return flagf("--tool: %v", err)
	}
	return nil
}
