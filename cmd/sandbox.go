package cmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// landlockABIEnv caps the Landlock ABI tools are restricted with, below the
// kernel's (0: as if it had none). It can only take enforcement away; it
// is how the behaviour on older kernels is tried and tested.
const landlockABIEnv = "AGENTLOOP_LANDLOCK_ABI"

// sandboxOptions are a command's sandbox settings.
type sandboxOptions struct {
	settings sandbox.Settings
	// chosen is set when a flag, a variable or the configuration file
	// chose the mode: MCP stdio servers are then run under it too (see
	// docs/tools.md), not only under their own sandbox: blocks.
	chosen bool
}

// addSandboxFlags registers --sandbox and --sandbox-required, read by the
// configuration's resolver.
func addSandboxFlags(c *cobra.Command) {
	c.Flags().String("sandbox", string(config.DefaultSandbox), "restrict tool processes with Landlock: off, read-only (write only a private TMPDIR) or workspace-write (also the working directory, not .git); no TCP unless a tool's sandbox: block allows it")
	c.Flags().Bool("sandbox-required", false, "refuse to run a tool whose sandbox this kernel cannot enforce in full (exit 2)")
	_ = c.RegisterFlagCompletionFunc("sandbox", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{string(sandbox.Off), string(sandbox.ReadOnly), string(sandbox.WorkspaceWrite)}, cobra.ShellCompDirectiveNoFileComp
	})
}

// sandboxFrom reads the sandbox settings of a resolved configuration, and
// the ABI cap of the environment.
func sandboxFrom(ios *iostreams.IOStreams, cfg *config.Config) (sandboxOptions, error) {
	o := sandboxOptions{settings: sandbox.Settings{Mode: cfg.Sandbox, Required: cfg.SandboxRequired}}
	if o.settings.Mode == "" {
		o.settings.Mode = config.DefaultSandbox
	}
	o.chosen = cfg.Source("sandbox").Kind != config.SourceDefault
	if raw := ios.Getenv(landlockABIEnv); raw != "" {
		n, err := strconv.Atoi(strings.TrimSpace(raw))
		if err != nil || n < 0 {
			return o, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s=%s: want a Landlock ABI version, 0 or more", landlockABIEnv, raw)}
		}
		o.settings.Limited, o.settings.Limit = true, n
	}
	return o, nil
}

// checkSandbox checks the tools' sandbox before anything runs
// (engine.CheckSandbox); it returns the lines -v shows.
func checkSandbox(ios *iostreams.IOStreams, ts *toolset.Set, s sandbox.Settings, quiet bool) ([]string, error) {
	return engine.CheckSandbox(ts, s, quiet, ios.ErrOut)
}
