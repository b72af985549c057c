package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
)

// ToolsListOptions are the inputs of `agentloop tools list`.
type ToolsListOptions struct {
	IO *IOStreams
	ToolSourceOptions
	JSON bool
}

func newCmdToolsList(ios *IOStreams, runF func(*ToolsListOptions) error) *cobra.Command {
	opts := &ToolsListOptions{IO: ios}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the loaded tools",
		Long: `List the loaded tools, in name order: the name, where the tool comes from (the
file:line of a script tool, mcp:NAME for a tool of the MCP server NAME) and the
first line of its description. When folders define tools of the same name, the
first folder's wins (./tools.d before your own tools.d); the file of the one
that won is shown, with what it overrides. The MCP servers are started to list
their tools. --json prints every field of every definition instead.`,
		Example: `  agentloop tools list
  agentloop tools list --tools-dir ./more-tools --json | jq -r '.[].name'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if err := opts.fromConfig(c, ios); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsList(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	addMCPConfigFlag(c, &opts.MCPConfig)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the definitions as a JSON array")
	return c
}

func runToolsList(ctx context.Context, opts *ToolsListOptions) error {
	ts, err := loadToolSet(ctx, opts.IO, opts.sources(), toolset.Selection{}, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	rows := ts.List()
	if opts.JSON {
		return writeJSON(opts.IO, rows)
	}
	if len(rows) == 0 {
		src := toolsSource{opts.ToolsDirs, opts.ToolsSetting}
		dirs, _ := toolsDirs(opts.IO, src, false)
		where := "no tools.d folder found"
		if len(dirs) > 0 {
			where = "looked in " + strings.Join(dirs, ", ")
		} else if src.setting == "" && slices.ContainsFunc(orDefault(opts.IO, src.dirs), exists) {
			where = "no trusted tools folder"
		}
		fmt.Fprintf(opts.IO.ErrOut, "no tools (%s); add YAML definitions to ./tools.d or pass --tools-dir\n", safeText(where))
		return nil
	}
	return toolset.WriteTable(opts.IO.Out, rows, opts.IO.Getenv("HOME"), opts.IO.IsStdoutTTY(), opts.IO.Width())
}

func orDefault(ios *IOStreams, dirs []string) []string {
	if dirs == nil {
		return defaultToolsDirs(ios)
	}
	return dirs
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writeJSON prints v as indented JSON, with <, > and & left as they are
// (and, on a terminal, what JSON leaves unescaped that a terminal would
// act on shown escaped).
func writeJSON(ios *IOStreams, v any) error {
	enc := json.NewEncoder(jsonOut(ios))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
