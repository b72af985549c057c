package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
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

// toolJSON is a definition as `tools list --json` prints it.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Source is "script" or "mcp"; an MCP tool names its Server and its
	// name there (Original).
	Source    string   `json:"source"`
	Server    string   `json:"server,omitempty"`
	Original  string   `json:"original,omitempty"`
	Strict    bool     `json:"strict"`
	Output    string   `json:"output,omitempty"`
	Confirm   bool     `json:"confirm"`
	Timeout   string   `json:"timeout"`
	MaxOutput int64    `json:"max_output"`
	Env       []string `json:"env"`
	Run       string   `json:"run,omitempty"`
	Command   []string `json:"command,omitempty"`
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Overrides []string `json:"overrides"`
}

func runToolsList(ctx context.Context, opts *ToolsListOptions) error {
	ts, err := loadToolSet(ctx, opts.IO, opts.sources(), toolset.Selection{}, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	rows := toolRows(ts)
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
	return printToolTable(opts.IO, rows)
}

// toolRows are every tool offered, in name order.
func toolRows(ts *toolset.Set) []toolJSON {
	out := []toolJSON{}
	for _, d := range ts.Reg.Definitions() {
		out = append(out, toolJSON{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters, Source: "script", Output: d.Output,
			Strict: d.Strict, Confirm: d.Confirm, Timeout: d.Timeout.String(), MaxOutput: d.MaxOutput,
			Env: append([]string{}, d.Env...), Run: d.Run, Command: d.Command, File: d.File, Line: d.Line,
			Overrides: append([]string{}, d.Overrides...),
		})
	}
	if ts.MCP != nil {
		for _, m := range ts.MCP.Tools() {
			c := ts.Server(m.Server)
			out = append(out, toolJSON{
				Name: m.Name, Description: m.Description, Parameters: m.InputSchema, Source: "mcp", Server: m.Server,
				Original: m.Original, Confirm: m.Confirm, Timeout: m.Timeout.String(), MaxOutput: c.MaxOutput, Env: []string{},
				File: c.File, Line: c.Line, Overrides: []string{},
			})
		}
	}
	slices.SortFunc(out, func(a, b toolJSON) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// printToolTable writes a line a tool: its name, where it comes from (its
// file:line and what it overrides, or its MCP server) and the first line
// of its description.
func printToolTable(ios *IOStreams, rows []toolJSON) error {
	nameWidth, whereWidth := 0, 0
	home := ios.Getenv("HOME")
	wheres := make([]string, len(rows))
	for i, r := range rows {
		nameWidth = max(nameWidth, len(r.Name))
		if r.Source == "mcp" {
			wheres[i] = "mcp:" + r.Server
		} else {
			wheres[i] = fmt.Sprintf("%s:%d", config.TildePath(r.File, home), r.Line)
			if len(r.Overrides) > 0 {
				over := make([]string, len(r.Overrides))
				for j, o := range r.Overrides {
					over[j] = config.TildePath(o, home)
				}
				wheres[i] += " (overrides " + strings.Join(over, ", ") + ")"
			}
		}
		whereWidth = max(whereWidth, utf8.RuneCountInString(wheres[i]))
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 8, 2, ' ', 0)
	for i, r := range rows {
		desc, where := firstLine(r.Description), wheres[i]
		// On a terminal a long description is cut to the width, and a
		// tools folder's or a server's text is shown, not obeyed; piped,
		// it is whole.
		if ios.IsStdoutTTY() {
			desc = fitWidth(displayText(desc, 1<<16), max(ios.Width()-nameWidth-whereWidth-4, 20))
			where = displayText(where, 1<<16)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, where, desc)
	}
	return tw.Flush()
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

// fitWidth cuts s to at most width characters, marking the cut.
func fitWidth(s string, width int) string {
	if width < 4 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
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
