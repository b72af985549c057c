package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/wire"
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

// checkJSON is a server as mcp check --json prints it.
type checkJSON struct {
	serverJSON
	Offered  []checkedTool `json:"offered"`
	Problems []string      `json:"problems"`
}

// checkedTool is a tool as mcp check reports it.
type checkedTool struct {
	Name        string   `json:"name"`
	Original    string   `json:"original"`
	Description string   `json:"description"`
	Schema      any      `json:"input_schema"`
	Problems    []string `json:"problems"`
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
	redact := secretsWith(ios, set.Secrets()...)
	var out []checkJSON
	problems := 0
	for _, st := range set.Statuses() {
		c := st.Config
		r := checkJSON{serverJSON: serverJSON{Name: c.Name, Transport: c.Transport(), Command: c.ShownCommand(), File: c.File,
			Line: c.Line, Optional: c.Optional, Status: "ok", Tools: []string{}, StartMS: st.StartTime.Milliseconds()},
			Offered: []checkedTool{}, Problems: []string{}}
		if c.URL != "" {
			r.URL = c.Shown()
		}
		if st.Err != nil {
			r.Status, r.Error = "failed", redact.RedactString(st.Err.Error())
			r.Problems = append(r.Problems, "does not start: "+r.Error)
		}
		r.Tools = append(r.Tools, st.Listed...)
		for _, t := range st.Tools {
			ct := checkedTool{Name: t.Name, Original: t.Original, Description: t.Description, Schema: t.InputSchema, Problems: []string{}}
			spec := agent.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}
			for _, api := range []wire.Shape{wire.Chat, wire.Messages} {
				_, err := agent.DialectFor(string(api)).ToolDefs([]agent.ToolSpec{spec})
				var de *agent.ToolDefError
				if errors.As(err, &de) {
					ct.Problems = append(ct.Problems, string(api)+": "+de.Problem)
				}
			}
			if d, ok := reg.Lookup(t.Name); ok {
				ct.Problems = append(ct.Problems, fmt.Sprintf("the script tool at %s:%d has this name", d.File, d.Line))
			}
			for _, p := range ct.Problems {
				r.Problems = append(r.Problems, "tool "+t.Name+": "+p)
			}
			r.Offered = append(r.Offered, ct)
		}
		r.Problems = append(r.Problems, set.ConflictsOf(c.Name)...)
		problems += len(r.Problems)
		out = append(out, r)
	}
	if opts.JSON {
		if err := writeJSON(ios, out); err != nil {
			return err
		}
	} else {
		printCheck(ios, out)
	}
	if problems > 0 {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d %s", problems, plural(problems, "problem", "problems"))}
	}
	return nil
}

// printCheck writes mcp check's report.
func printCheck(ios *IOStreams, servers []checkJSON) {
	w := ios.Out
	for i, r := range servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		how := r.URL
		if r.Transport == mcp.Stdio {
			how = strings.Join(r.Command, " ")
		}
		fmt.Fprintf(w, "mcp server %s (%s:%d)\n", safeText(r.Name), safeText(r.File), r.Line)
		fmt.Fprintf(w, "  %s: %s\n", r.Transport, safeText(how))
		if r.Status != "ok" {
			fmt.Fprintf(w, "  problem: does not start: %s\n", safeText(r.Error))
			continue
		}
		fmt.Fprintf(w, "  started in %s; %d tool%s listed, %d offered\n", time.Duration(r.StartMS)*time.Millisecond,
			len(r.Tools), plural(len(r.Tools), "", "s"), len(r.Offered))
		for _, t := range r.Offered {
			name := t.Name
			if t.Original != t.Name {
				name += " (" + t.Original + " on the server)"
			}
			fmt.Fprintf(w, "  %s\n", safeText(name))
			if d := firstLine(t.Description); d != "" {
				fmt.Fprintf(w, "    %s\n", safeText(d))
			}
			fmt.Fprintf(w, "    input schema: %s\n", safeText(fmt.Sprintf("%s", t.Schema)))
			for _, p := range t.Problems {
				fmt.Fprintf(w, "    problem: %s\n", safeText(p))
			}
		}
		for _, p := range r.Problems {
			if !strings.HasPrefix(p, "tool ") {
				fmt.Fprintf(w, "  problem: %s\n", safeText(p))
			}
		}
		if len(r.Problems) == 0 {
			fmt.Fprintln(w, "  no problems")
		}
	}
}

func knownNames(names []string) string {
	if len(names) == 0 {
		return " (none is declared)"
	}
	return " (declared: " + strings.Join(names, ", ") + ")"
}
