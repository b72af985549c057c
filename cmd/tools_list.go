package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/tools"
)

// ToolsListOptions are the inputs of `agentloop tools list`.
type ToolsListOptions struct {
	IO        *IOStreams
	ToolsDirs []string
	// ToolsSetting names the setting that gave ToolsDirs; "" when
	// agentloop chooses the folders (see toolsSource).
	ToolsSetting string
	JSON         bool
}

func newCmdToolsList(ios *IOStreams, runF func(*ToolsListOptions) error) *cobra.Command {
	opts := &ToolsListOptions{IO: ios}
	c := &cobra.Command{
		Use:   "list",
		Short: "List the loaded tools",
		Long: `List the loaded tools, in name order: the name, the file:line the tool comes
from and the first line of its description. When folders define tools
of the same name, the first folder's wins (./tools.d before your own tools.d);
the file of the one that won is shown, with what it overrides. --json prints
every field of every definition instead.`,
		Example: `  agentloop tools list
  agentloop tools list --tools-dir ./more-tools --json | jq -r '.[].name'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			src, err := configToolsSource(c, ios)
			if err != nil {
				return err
			}
			opts.ToolsDirs, opts.ToolsSetting = src.dirs, src.setting
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
	Overrides   []string        `json:"overrides"`
}

func runToolsList(opts *ToolsListOptions) error {
	reg, err := loadTools(opts.IO, toolsSource{opts.ToolsDirs, opts.ToolsSetting})
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
				Overrides: append([]string{}, d.Overrides...),
			})
		}
		return writeJSON(opts.IO, out)
	}
	if len(defs) == 0 {
		src := toolsSource{opts.ToolsDirs, opts.ToolsSetting}
		dirs, _ := toolsDirs(opts.IO, src, false)
		where := "no tools.d folder found"
		if len(dirs) > 0 {
			where = "looked in " + strings.Join(dirs, ", ")
		} else if src.setting == "" && slices.ContainsFunc(orDefault(opts.IO, src.dirs), exists) {
			where = "no trusted tools folder"
		}
		fmt.Fprintf(opts.IO.ErrOut, "no tools (%s); add YAML definitions to ./tools.d or pass --tools-dir\n", where)
		return nil
	}
	return printToolTable(opts.IO, defs)
}

func printToolTable(ios *IOStreams, defs []*tools.Definition) error {
	nameWidth, whereWidth := 0, 0
	wheres := make([]string, len(defs))
	for i, d := range defs {
		nameWidth = max(nameWidth, len(d.Name))
		home := ios.Getenv("HOME")
		wheres[i] = fmt.Sprintf("%s:%d", config.TildePath(d.File, home), d.Line)
		if len(d.Overrides) > 0 {
			over := make([]string, len(d.Overrides))
			for j, o := range d.Overrides {
				over[j] = config.TildePath(o, home)
			}
			wheres[i] += " (overrides " + strings.Join(over, ", ") + ")"
		}
		whereWidth = max(whereWidth, utf8.RuneCountInString(wheres[i]))
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 8, 2, ' ', 0)
	for i, d := range defs {
		desc := firstLine(d.Description)
		// On a terminal a long description is cut to the width, and a
		// tools folder's text is shown, not obeyed; piped, it is whole.
		if ios.IsStdoutTTY() {
			desc = fitWidth(displayText(desc, 1<<16), max(ios.Width()-nameWidth-whereWidth-4, 20))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Name, wheres[i], desc)
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
	var out io.Writer = ios.Out
	if ios.IsStdoutTTY() {
		out = &safeWriter{w: ios.Out}
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
