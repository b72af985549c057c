package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// toolSources says where a command's tools come from: script tools and
// MCP servers from the tools folders, MCP servers from {"mcpServers": …}
// files and from the configuration file.
type toolSources struct {
	toolsSource
	// mcpFiles are --mcp-config files (or the mcp_config setting's);
	// mcpServers the configuration file's mcp_servers.
	mcpFiles []string
	// mcpSetting names the setting that gave mcpFiles (see toolsSource).
	mcpSetting string
	mcpServers []*mcp.Config
	// quiet keeps the warnings off stderr (-q): a folder left out for want
	// of trust, an optional server that did not start.
	quiet bool
	// sandbox restricts the tools' processes.
	sandbox sandboxOptions
}

// loadDefinitions reads the tools folders and the servers' declarations
// (see toolset.Declared), disabled servers included. Every problem is
// printed on stderr as file:line: message, and the error returned exits 1;
// a folder or an {"mcpServers": …} file a setting names that does not
// exist is a usage error naming the setting (exit 2). A folder left out for
// want of trust is said on stderr (see toolsDirs): its servers are left out
// with its tools.
func loadDefinitions(ios *IOStreams, src toolSources) (*tools.Registry, []*mcp.Config, error) {
	dirs, err := toolsDirs(ios, src.toolsSource, !src.quiet)
	if err != nil {
		return nil, nil, err
	}
	if src.mcpSetting != "" {
		for _, f := range src.mcpFiles {
			if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
				return nil, nil, missingPath(src.mcpSetting, f, "no such file")
			}
		}
	}
	reg, servers, problems := toolset.Declared(toolset.Sources{Dirs: dirs, MCPFiles: src.mcpFiles, MCPServers: src.mcpServers,
		UserFiles: userMCPFiles(src.mcpSetting), Getenv: ios.Getenv, Sandbox: src.sandbox.settings})
	if len(problems) > 0 {
		return nil, nil, reportProblems(ios, problems, "in the tool definitions")
	}
	return reg, servers, nil
}

// reportProblems prints problems one a line and returns the error that
// counts them (exit 1).
func reportProblems(ios *IOStreams, problems []error, where string) error {
	for _, e := range problems {
		fmt.Fprintln(ios.ErrOut, safeText(e.Error()))
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d %s %s", len(problems), plural(len(problems), "problem", "problems"), where)}
}

// loadToolSet loads the tools of the sources and starts the servers that
// could offer a tool sel keeps, all at once. A server that does not start
// is an error naming it (exit 2), or for an optional one a warning; a name
// two sources offer is a problem (exit 1). progressf, when set, hears of
// each server started. Close the set when done.
func loadToolSet(ctx context.Context, ios *IOStreams, src toolSources, sel toolset.Selection, progressf func(string, ...any)) (*toolset.Set, error) {
	reg, servers, err := loadDefinitions(ios, src)
	if err != nil {
		return nil, err
	}
	ts := &toolset.Set{Reg: reg, Servers: toolset.Enabled(servers)}
	opts := serverOptions(ios)
	opts.Sandbox, opts.SandboxAll = src.sandbox.settings, src.sandbox.chosen
	ts.Start(ctx, sel, opts)
	if ts.MCP == nil {
		return ts, nil
	}
	// What a server failed with can quote what it was given (a URL with a
	// key in it, its stderr): the values it was given are kept out.
	redact := toolSecrets(ios, ts)
	var failed []error
	for _, st := range ts.MCP.Statuses() {
		c := st.Config
		switch {
		case st.Err == nil:
			if progressf != nil {
				progressf("mcp server %s: %s, %d tool%s, started in %s", c.Name, c.Shown(), len(st.Tools), plural(len(st.Tools), "", "s"), st.StartTime.Round(1e6))
			}
		case c.Optional && src.quiet:
			// Left out without a word, as -q asks.
		case c.Optional:
			// One line, in every folder a user-level server applies to:
			// mcp check says the rest (the end of its stderr).
			why := firstLine(redact.RedactString(st.Err.Error()))
			fmt.Fprintln(ios.ErrOut, displayText(fmt.Sprintf("agentloop: warning: optional mcp server %s (%s) left out: %s (agentloop mcp check %s says more)", c.Name, c.Where(), why, c.Name), 1<<12))
		default:
			failed = append(failed, errors.New(redact.RedactString(fmt.Sprintf("mcp server %s (%s): %v", c.Name, c.Where(), st.Err))))
		}
	}
	if len(failed) > 0 {
		ts.Close()
		if ctx.Err() != nil {
			// Interrupted while servers started: exit as interrupted,
			// not as a server that failed.
			return nil, context.Cause(ctx)
		}
		if len(failed) == 1 {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\n%s", failed[0], optionalHint)}
		}
		for _, e := range failed {
			fmt.Fprintln(ios.ErrOut, safeText("agentloop: "+e.Error()))
		}
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d mcp servers did not start\n%s", len(failed), optionalHint)}
	}
	if conflicts := ts.Conflicts(); len(conflicts) > 0 {
		ts.Close()
		return nil, reportProblems(ios, conflicts, "in the tool definitions")
	}
	return ts, nil
}

// optionalHint says how to run on without a server that does not start.
const optionalHint = "to run without a server when it does not start, set optional: true in its declaration"

// serverOptions run servers in agentloop's working folder, with the
// command's environment, and keep the tools of each that starts in the
// cache of tool names.
func serverOptions(ios *IOStreams) mcp.Options {
	wd, _ := os.Getwd()
	return mcp.Options{Getenv: ios.Getenv, Dir: wd, Version: Version(), Names: toolNames(ios)}
}

// toolNames is the cache of the tools the servers offered when they last
// started (see mcp.Names), in the user's state folder; nil without an
// absolute one (no HOME), as for the trusted folders.
func toolNames(ios *IOStreams) *mcp.Names {
	dir := stateDir(ios)
	if !filepath.IsAbs(dir) {
		return nil
	}
	return &mcp.Names{Path: filepath.Join(dir, mcp.NamesFile)}
}

// startServers starts servers all at once.
func startServers(ctx context.Context, ios *IOStreams, servers []*mcp.Config) *mcp.Set {
	return mcp.Start(ctx, servers, serverOptions(ios))
}

// toolSecrets is the redactor of a command that runs tools: the provider
// keys and the values the servers were given.
func toolSecrets(ios *IOStreams, ts *toolset.Set) *transcript.Redactor {
	return secretsWith(ios, ts.Secrets()...)
}
