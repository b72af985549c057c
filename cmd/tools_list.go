package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/tools"
)

// ToolsListOptions are the inputs of `agentloop tools list`.
type ToolsListOptions struct {
	IO           *IOStreams
	ToolsDirs    []string
	ExplicitDirs bool
	JSON         bool
}

func newCmdToolsList(ios *IOStreams, runF func(*ToolsListOptions) error) *cobra.Command {
	opts := &ToolsListOptions{IO: ios}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the loaded tools",
		Long: `List the loaded tools: the name and the first line of the description of each,
in name order. --json prints every field of every definition instead.`,
		Example: `  agentloop tools list
  agentloop tools list --tools-dir ./more-tools --json | jq -r '.[].name'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.ExplicitDirs = c.Flags().Changed("tools-dir")
			dirs, err := configToolsDirs(c, ios)
			if err != nil {
				return err
			}
			opts.ToolsDirs = dirs
			if runF != nil {
				return runF(opts)
			}
			return runToolsList(opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the definitions as a JSON array")
	return c
}

// toolJSON is a definition as `tools list --json` prints it.
type toolJSON struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
	Confirm     bool            `json:"confirm"`
	Timeout     string          `json:"timeout"`
	MaxOutput   int64           `json:"max_output"`
	Env         []string        `json:"env"`
	Run         string          `json:"run,omitempty"`
	Command     []string        `json:"command,omitempty"`
	File        string          `json:"file"`
	Line        int             `json:"line"`
}

func runToolsList(opts *ToolsListOptions) error {
	reg, err := loadTools(opts.IO, opts.ToolsDirs, opts.ExplicitDirs)
	if err != nil {
		return err
	}
	defs := reg.Definitions()
	if opts.JSON {
		out := make([]toolJSON, 0, len(defs))
		for _, d := range defs {
			out = append(out, toolJSON{
				Name: d.Name, Description: d.Description, Parameters: d.Parameters,
				Strict: d.Strict, Confirm: d.Confirm, Timeout: d.Timeout.String(), MaxOutput: d.MaxOutput,
				Env: append([]string{}, d.Env...), Run: d.Run, Command: d.Command, File: d.File, Line: d.Line,
			})
		}
		return writeJSON(opts.IO, out)
	}
	if len(defs) == 0 {
		dirs := toolsDirs(opts.IO, opts.ToolsDirs, opts.ExplicitDirs)
		where := "no tools.d folder found"
		if len(dirs) > 0 {
			where = "looked in " + strings.Join(dirs, ", ")
		}
		fmt.Fprintf(opts.IO.ErrOut, "no tools (%s); add YAML definitions to ./tools.d or pass --tools-dir\n", where)
		return nil
	}
	return printToolTable(opts.IO, defs)
}

func printToolTable(ios *IOStreams, defs []*tools.Definition) error {
	nameWidth := 0
	for _, d := range defs {
		nameWidth = max(nameWidth, len(d.Name))
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 8, 2, ' ', 0)
	for _, d := range defs {
		desc := firstLine(d.Description)
		// On a terminal a long line is cut to the width, and a tools
		// folder's text is shown, not obeyed; piped, it is whole.
		if ios.IsStdoutTTY() {
			desc = fitWidth(displayText(desc, 1<<16), ios.Width()-nameWidth-2)
		}
		fmt.Fprintf(tw, "%s\t%s\n", d.Name, desc)
	}
	return tw.Flush()
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
	var out io.Writer = ios.Out
	if ios.IsStdoutTTY() {
		out = &safeWriter{w: ios.Out}
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
