package cmd

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/engine"
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
	return &ExitError{Code: ExitFailure, Err: engine.ReportProblems(ios.ErrOut, problems, where)}
}

// loadToolSet loads the tools of the sources and starts the servers that
// could offer a tool sel keeps, all at once (engine.StartTools). started,
// when set, hears of each server started. Close the set when done.
func loadToolSet(ctx context.Context, ios *IOStreams, src toolSources, sel toolset.Selection, started func(string)) (*toolset.Set, error) {
	reg, servers, err := loadDefinitions(ios, src)
	if err != nil {
		return nil, err
	}
	ts := &toolset.Set{Reg: reg, Servers: toolset.Enabled(servers)}
	opts := serverOptions(ios)
	opts.Sandbox, opts.SandboxAll = src.sandbox.settings, src.sandbox.chosen
	// What a server failed with can quote what it was given (a URL with a
	// key in it, its stderr): the values it was given are kept out.
	err = engine.StartTools(ctx, ts, sel, engine.ServerStart{Options: opts, Quiet: src.quiet, Log: ios.ErrOut, Redact: toolSecrets(ios, ts), Started: started})
	if err != nil {
		return nil, err
	}
	return ts, nil
}

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
