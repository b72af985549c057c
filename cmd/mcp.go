package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
)

// newCmdMCP groups the commands that look at MCP servers.
func newCmdMCP(ios *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "List and check the MCP servers that offer tools",
		Long: `MCP servers are a source of tools beside the scripts of tools.d. A server is
declared by a file of a tools folder that holds an mcp: mapping, by the
configuration file's mcp_servers, or by an {"mcpServers": …} JSON file (the one
Claude Desktop, Cursor, Claude Code, llm-tools-mcp and gptscript use) given with
--mcp-config. See docs/mcp.md.`,
		Example: `  agentloop mcp list
  agentloop mcp check github
  agentloop mcp list --mcp-config ~/.cursor/mcp.json`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newCmdMCPList(ios, nil))
	c.AddCommand(newCmdMCPCheck(ios, nil))
	return c
}

// MCPOptions are the inputs of `agentloop mcp list` and `mcp check`.
type MCPOptions struct {
	IO *IOStreams
	ToolSourceOptions
	Name string // mcp check NAME
	JSON bool
}

func newCmdMCPList(ios *IOStreams, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: ios}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers, how each is reached, and whether it starts",
		Long: `List every MCP server declared: its name, its transport (stdio or http), the
command or URL (never its environment or headers), and its status, found by
starting all of them at once: ok with its number of tools and its start time,
failed with why, or disabled. Where each is declared is shown with --json. The
exit status is 1 when a server does not start.`,
		Example: `  agentloop mcp list
  agentloop mcp list --json | jq -r '.[] | select(.status != "ok") | .name'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.fromConfig(c, opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPList(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	addMCPConfigFlag(c, &opts.MCPConfig)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the servers as a JSON array")
	return c
}

func runMCPList(ctx context.Context, opts *MCPOptions) error {
	ios := opts.IO
	_, servers, err := loadDefinitions(ios, opts.sources())
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		if opts.JSON {
			return writeJSON(ios, []toolset.Server{})
		}
		fmt.Fprintln(ios.ErrOut, "no MCP servers: declare one in a tools folder (a file with mcp:), in the configuration's mcp_servers, or pass --mcp-config FILE")
		return nil
	}
	set := startServers(ctx, ios, toolset.Enabled(servers))
	defer set.Close()
	rows := toolset.ListServers(servers, set, secretsWith(ios, set.Secrets()...))
	if opts.JSON {
		if err := writeJSON(ios, rows); err != nil {
			return err
		}
		return failedServers(rows)
	}
	if err := toolset.WriteList(ios.Out, rows); err != nil {
		return err
	}
	return failedServers(rows)
}

// failedServers is the error (exit 1) of a list in which a server did not
// start, as mcp check's is: a script that asks whether the servers work
// reads the exit status.
func failedServers(rows []toolset.Server) error {
	failed := toolset.Failed(rows)
	if failed == 0 {
		return nil
	}
	return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d of %d mcp servers did not start", failed, len(rows))}
}
