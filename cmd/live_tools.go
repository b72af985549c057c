package cmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/toolset"
)

// liveTools loads the tools of a live run, starting the MCP servers it
// needs, and narrows them to those the flags offer; started says which
// servers started, for -v. The caller closes the set.
func liveTools(ctx context.Context, ios *IOStreams, o *liveOptions, s liveSetup) (*toolset.Set, []string, error) {
	sel := toolset.Selection{Only: s.only, Deny: o.Approval.Deny}
	if len(s.only) == 0 && s.recorded != nil {
		// Only the servers that could offer a recorded tool are started.
		sel.Only, sel.Restricted = *s.recorded, true
	}
	var started []string
	src := toolSources{toolsSource: s.tools, mcpFiles: o.MCPConfig, mcpSetting: o.mcpSetting, mcpServers: o.mcpServers, quiet: o.Quiet, sandbox: o.Sandbox}
	ts, err := loadToolSet(ctx, ios, src, sel, func(format string, a ...any) { started = append(started, fmt.Sprintf(format, a...)) })
	if err != nil {
		return nil, nil, err
	}
	if err := narrowTools(ios, o, s, ts, sel); err != nil {
		ts.Close()
		return nil, nil, err
	}
	lines, err := checkSandbox(ios, ts, o.Sandbox.settings, o.Quiet)
	if err != nil {
		ts.Close()
		return nil, nil, err
	}
	return ts, append(started, lines...), nil
}

// narrowTools checks the approval flags against the tools and keeps those
// the run offers: --tool's, or those of a recording. A run that goes on
// with a recording offers every tool it offered, or stops before any
// request (recordedToolsError): without them its pending calls would be
// answered as unknown tools and the model would go on with less than it
// had, unseen. --deny NAME is how to go on without one on purpose.
func narrowTools(ios *IOStreams, o *liveOptions, s liveSetup, ts *toolset.Set, sel toolset.Selection) error {
	var absent []toolset.Absent
	approval := o.Approval
	if s.conv != nil && s.conv.Header != nil && len(s.only) == 0 {
		absent = ts.Absent(s.conv.Header, o.Approval.Deny)
		// --deny may name a recorded tool that is not here any more.
		recorded := s.conv.Header.ToolNames()
		approval.Deny = slices.DeleteFunc(slices.Clone(approval.Deny), func(n string) bool {
			return !ts.MayHave(n) && slices.Contains(recorded, n)
		})
	}
	if err := approval.check(ts); err != nil {
		return err
	}
	if len(absent) > 0 {
		return recordedToolsError(ios, s.tools, s.conv.Header.ToolsDirs, absent)
	}
	if len(s.only) == 0 && s.recorded != nil {
		sel.Only = slices.DeleteFunc(slices.Clone(*s.recorded), func(n string) bool { return !ts.Has(n) })
		return ts.Keep(sel)
	}
	if err := ts.Keep(sel); err != nil {
		return flagErrorf("--tool: %v", err)
	}
	return nil
}
