package toolset

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// What mcp list and mcp check report of the MCP servers declared: how
// each is reached (never its environment or headers), whether it starts,
// and with check what each tool offered would meet.

var plural = english.Plural

// Server is a server as mcp list --json prints it.
type Server struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Command   []string `json:"command,omitempty"`
	URL       string   `json:"url,omitempty"`
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Optional  bool     `json:"optional"`
	// Status is ok, failed or disabled.
	Status  string   `json:"status"`
	Error   string   `json:"error,omitempty"`
	Tools   []string `json:"tools"`
	StartMS int64    `json:"start_ms"`
}

func server(c *mcp.Config) Server {
	r := Server{Name: c.Name, Transport: c.Transport(), Command: c.ShownCommand(), File: c.File, Line: c.Line,
		Optional: c.Optional, Status: "disabled", Tools: []string{}}
	if c.URL != "" {
		r.URL = c.Shown()
	}
	return r
}

// how is how a server is reached: its command or its URL.
func (r *Server) how() string {
	if r.Transport == mcp.Stdio {
		return strings.Join(r.Command, " ")
	}
	return r.URL
}

// ListServers reports every server declared; set holds those started.
func ListServers(servers []*mcp.Config, set *mcp.Set, redact *transcript.Redactor) []Server {
	statuses := map[string]mcp.Status{}
	for _, st := range set.Statuses() {
		statuses[st.Config.Name] = st
	}
	rows := []Server{}
	for _, c := range servers {
		r := server(c)
		if st, ok := statuses[c.Name]; ok {
			r.StartMS = st.StartTime.Milliseconds()
			r.Status = "ok"
			if st.Err != nil {
				r.Status, r.Error = "failed", redact.RedactString(st.Err.Error())
			}
			for _, t := range st.Tools {
				r.Tools = append(r.Tools, t.Name)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// WriteList writes mcp list's table: a server a line.
func WriteList(w io.Writer, rows []Server) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, r := range rows {
		status := r.Status
		switch r.Status {
		case "ok":
			status = fmt.Sprintf("ok: %d tool%s, started in %s", len(r.Tools), plural(len(r.Tools), "", "s"), time.Duration(r.StartMS)*time.Millisecond)
		case "failed":
			status = "failed: " + firstLine(r.Error)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Safe(r.Name), r.Transport, termtext.Safe(r.how()), termtext.Safe(status))
	}
	return tw.Flush()
}

// Failed counts the servers that did not start.
func Failed(rows []Server) int {
	n := 0
	for _, r := range rows {
		if r.Status == "failed" {
			n++
		}
	}
	return n
}

// Checked is a server as mcp check --json prints it.
type Checked struct {
	Server
	Offered  []CheckedTool `json:"offered"`
	Problems []string      `json:"problems"`
}

// CheckedTool is a tool as mcp check reports it.
type CheckedTool struct {
	Name        string   `json:"name"`
	Original    string   `json:"original"`
	Description string   `json:"description"`
	Schema      any      `json:"input_schema"`
	Problems    []string `json:"problems"`
}

// CheckServers reports each server of set: whether it started, and of
// each tool it offers what either API would refuse in its definition and
// whether a script tool of reg has its name. problems counts them all.
func CheckServers(set *mcp.Set, reg *tools.Registry, redact *transcript.Redactor) (out []Checked, problems int) {
	for _, st := range set.Statuses() {
		c := st.Config
		r := Checked{Server: server(c), Offered: []CheckedTool{}, Problems: []string{}}
		r.Status, r.StartMS = "ok", st.StartTime.Milliseconds()
		if st.Err != nil {
			r.Status, r.Error = "failed", redact.RedactString(st.Err.Error())
			r.Problems = append(r.Problems, "does not start: "+r.Error)
		}
		r.Tools = append(r.Tools, st.Listed...)
		for _, t := range st.Tools {
			ct := CheckedTool{Name: t.Name, Original: t.Original, Description: t.Description, Schema: t.InputSchema, Problems: []string{}}
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
	return out, problems
}

// WriteCheck writes mcp check's report. What a server says of itself is
// shown escaped, never obeyed.
func WriteCheck(w io.Writer, servers []Checked) {
	safe := termtext.Safe
	for i, r := range servers {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "mcp server %s (%s:%d)\n", safe(r.Name), safe(r.File), r.Line)
		fmt.Fprintf(w, "  %s: %s\n", r.Transport, safe(r.how()))
		if r.Status != "ok" {
			fmt.Fprintf(w, "  problem: does not start: %s\n", safe(r.Error))
			continue
		}
		fmt.Fprintf(w, "  started in %s; %d tool%s listed, %d offered\n", time.Duration(r.StartMS)*time.Millisecond,
			len(r.Tools), plural(len(r.Tools), "", "s"), len(r.Offered))
		for _, t := range r.Offered {
			name := t.Name
			if t.Original != t.Name {
				name += " (" + t.Original + " on the server)"
			}
			fmt.Fprintf(w, "  %s\n", safe(name))
			if d := firstLine(t.Description); d != "" {
				fmt.Fprintf(w, "    %s\n", safe(d))
			}
			fmt.Fprintf(w, "    input schema: %s\n", safe(fmt.Sprintf("%s", t.Schema)))
			for _, p := range t.Problems {
				fmt.Fprintf(w, "    problem: %s\n", safe(p))
			}
		}
		for _, p := range r.Problems {
			if !strings.HasPrefix(p, "tool ") {
				fmt.Fprintf(w, "  problem: %s\n", safe(p))
			}
		}
		if len(r.Problems) == 0 {
			fmt.Fprintln(w, "  no problems")
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
