package toolset

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/termtext"
)

// Listed is a tool as `tools list --json` prints it: every field of its
// definition, and where it comes from.
type Listed struct {
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

// List is every tool offered, in name order.
func (ts *Set) List() []Listed {
	out := []Listed{}
	for _, d := range ts.Reg.Definitions() {
		out = append(out, Listed{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters, Source: "script", Output: d.Output,
			Strict: d.Strict, Confirm: d.Confirm, Timeout: d.Timeout.String(), MaxOutput: d.MaxOutput,
			Env: append([]string{}, d.Env...), Run: d.Run, Command: d.Command, File: d.File, Line: d.Line,
			Overrides: append([]string{}, d.Overrides...),
		})
	}
	if ts.MCP != nil {
		for _, m := range ts.MCP.Tools() {
			c := ts.Server(m.Server)
			out = append(out, Listed{
				Name: m.Name, Description: m.Description, Parameters: m.InputSchema, Source: "mcp", Server: m.Server,
				Original: m.Original, Confirm: m.Confirm, Timeout: m.Timeout.String(), MaxOutput: c.MaxOutput, Env: []string{},
				File: c.File, Line: c.Line, Overrides: []string{},
			})
		}
	}
	slices.SortFunc(out, func(a, b Listed) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// WriteTable writes a line a tool: its name, where it comes from (its
// file:line and what it overrides, or its MCP server) and the first line
// of its description.
func WriteTable(w io.Writer, rows []Listed, home string, tty bool, width int) error {
	nameWidth, whereWidth := 0, 0
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
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for i, r := range rows {
		desc, where := firstLine(r.Description), wheres[i]
		// On a terminal a long description is cut to the width, and a
		// tools folder's or a server's text is shown, not obeyed; piped,
		// it is whole.
		if tty {
			desc = termtext.Fit(termtext.Display(desc, 1<<16), max(width-nameWidth-whereWidth-4, 20))
			where = termtext.Display(where, 1<<16)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, where, desc)
	}
	return tw.Flush()
}
