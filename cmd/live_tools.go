package cmd

import (
	"context"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/engine"
)

// liveTools loads the tools of a live run, starting the MCP servers it
// needs, and narrows them to those the run offers (engine.Narrow); started
// says which servers started, and each tool's sandbox, for -v. The caller
// closes the set.
func liveTools(ctx context.Context, ios *IOStreams, o *liveOptions, s liveSetup) (*toolset.Set, []string, error) {
	offer := engine.Offer{Only: s.only, Recorded: s.recorded, Allow: o.Approval.Allow, Deny: o.Approval.Deny}
	if s.conv != nil && s.conv.Header != nil {
		offer.Header = s.conv.Header
		offer.Read = recordedToolsRead(ios, s.tools, s.conv.Header.ToolsDirs)
	}
	var started []string
	src := toolSources{toolsSource: s.tools, mcpFiles: o.MCPConfig, mcpSetting: o.mcpSetting, mcpServers: o.mcpServers, quiet: o.Quiet, sandbox: o.Sandbox}
	ts, err := loadToolSet(ctx, ios, src, offer.Selection(), func(line string) { started = append(started, line) })
	if err != nil {
		return nil, nil, err
	}
	if err := engine.Narrow(ts, offer); err != nil {
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
