package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/mcp"
)

func newCmdMCPCheck(ios *IOStreams, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: ios}
	c := &cobra.Command{
		Use:   "check [NAME]",
		Short: "Start MCP servers, list their tools with their schemas, and report problems",
		Long: `Start a server (NAME) or every server declared, list the tools each offers with
their input schemas, and report each problem: a server that does not start or
list its tools, a name of its allow-list or confirm list it does not have, a
tool whose definition the OpenAI or the Anthropic API would refuse (an input
schema that is not an object schema, a top-level anyOf, a description over
1024 characters, a name that is too long), two tools of one name. The exit
status is 1 when there is any problem.`,
		Example: `  agentloop mcp check
  agentloop mcp check github --json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return flagErrorf("%s takes at most one server NAME, got %d arguments", c.CommandPath(), len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if err := opts.fromConfig(c, opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runMCPCheck(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	addMCPConfigFlag(c, &opts.MCPConfig)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the servers, their tools and their problems as JSON")
	return c
}

func runMCPCheck(ctx context.Context, opts *MCPOptions) error {
	ios := opts.IO
	reg, servers, err := loadDefinitions(ios, opts.sources())
	if err != nil {
		return err
	}
	var pick []*mcp.Config
	for _, c := range servers {
		if opts.Name == "" && !c.Disabled || c.Name == opts.Name {
			pick = append(pick, c)
		}
	}
	if opts.Name != "" && len(pick) == 0 {
		var names []string
		for _, c := range servers {
			names = append(names, c.Name)
		}
		return flagErrorf("no mcp server %q%s", opts.Name, knownNames(names))
	}
	if len(pick) == 0 {
		fmt.Fprintln(ios.ErrOut, "no MCP servers to check")
		return nil
	}
	set := startServers(ctx, ios, pick)
	defer set.Close()
	out, problems := toolset.CheckServers(set, reg, secretsWith(ios, set.Secrets()...))
	if opts.JSON {
		if err := writeJSON(ios, out); err != nil {
			return err
		}
	} else {
		toolset.WriteCheck(ios.Out, out)
	}
	if problems > 0 {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d %s", problems, plural(problems, "problem", "problems"))}
	}
	return nil
}

func knownNames(names []string) string {
	if len(names) == 0 {
		return " (none is declared)"
	}
	return " (declared: " + strings.Join(names, ", ") + ")"
}
