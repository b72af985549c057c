package toolset

import (
	"slices"

	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Absent is a tool a recording offered that the set does not offer now,
// with what the recording says of where it came from.
type Absent struct {
	Name string
	// Server is the MCP server the recording says offered the tool, ""
	// for a script tool.
	Server string
	// Declared is set when a server of that name is declared now;
	// Started when it also started (and offers other tools, not this one).
	Declared, Started bool
}

// Absent lists the tools the header offered that the set does not offer
// now, in the header's order, less those in deny (left out on purpose).
// A run that goes on with the recording without them would answer their
// calls as unknown tools and offer the model less than it had.
func (t *Set) Absent(h *transcript.Header, deny []string) []Absent {
	if h == nil {
		return nil
	}
	var out []Absent
	for _, name := range h.ToolNames() {
		if name == "" || t.Has(name) || slices.Contains(deny, name) || slices.ContainsFunc(out, func(a Absent) bool { return a.Name == name }) {
			continue
		}
		a := Absent{Name: name}
		for _, s := range h.MCPServers {
			if slices.Contains(s.Tools, name) {
				a.Server = s.Name
				break
			}
		}
		if a.Server != "" {
			a.Declared = slices.ContainsFunc(t.Servers, func(c *mcp.Config) bool { return c.Name == a.Server })
			a.Started = t.started(a.Server)
		}
		out = append(out, a)
	}
	return out
}
