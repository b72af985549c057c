package toolset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
)

// Offered are the tools shell completion offers whose names start with
// prefix, but those of exclude: the script tools of src.Dirs
// (QuietDefinitions) and, with servers, the tools of the MCP servers
// known without starting them (Known). A shell waits for a completion; a
// server may take seconds to start (npx -y downloads first). Each name
// comes once, the first found.
func Offered(src Sources, names *mcp.Names, servers bool, prefix string, exclude []string) []mcp.NamedTool {
	var out []mcp.NamedTool
	add := func(name, desc string) {
		if strings.HasPrefix(name, prefix) && !slices.Contains(exclude, name) &&
			!slices.ContainsFunc(out, func(t mcp.NamedTool) bool { return t.Name == name }) {
			out = append(out, mcp.NamedTool{Name: name, Description: desc})
		}
	}
	for _, d := range QuietDefinitions(src.Dirs, src.Getenv) {
		add(d.Name, d.Description)
	}
	if servers {
		for _, s := range Quiet(src) {
			if !strings.HasPrefix(s.Prefix, prefix) && !strings.HasPrefix(prefix, s.Prefix) {
				continue
			}
			for _, t := range Known(s, names) {
				add(t.Name, t.Description)
			}
		}
	}
	return out
}

// Known are the tools a server offers as far as they are known without
// starting it: its tools: list, or those it offered when it last started
// (the cache of tool names), each with its description when the cache
// has it.
func Known(c *mcp.Config, names *mcp.Names) []mcp.NamedTool {
	cached, _ := names.Lookup(c)
	listed, ok := c.Known()
	if !ok {
		return cached
	}
	out := make([]mcp.NamedTool, len(listed))
	for i, n := range listed {
		out[i] = mcp.NamedTool{Name: n, Description: "a tool of mcp server " + c.Name}
		for _, t := range cached {
			if t.Name == n && t.Description != "" {
				out[i].Description = t.Description
			}
		}
	}
	return out
}

// QuietDefinitions loads the tool definitions of dirs without a word:
// when some files have problems, the tools of the others are still
// offered.
func QuietDefinitions(dirs []string, getenv func(string) string) []*tools.Definition {
	opts := tools.Options{Getenv: getenv}
	if reg, err := tools.Load(dirs, opts); err == nil {
		return reg.Definitions()
	}
	var defs []*tools.Definition
	seen := map[string]bool{}
	for _, d := range dirs {
		files := []string{d}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			yml, _ := filepath.Glob(filepath.Join(d, "*.yml"))
			files, _ = filepath.Glob(filepath.Join(d, "*.yaml"))
			files = append(files, yml...)
		}
		for _, f := range files {
			reg, err := tools.Load([]string{f}, opts)
			if err != nil {
				continue
			}
			for _, def := range reg.Definitions() {
				if !seen[def.Name] {
					seen[def.Name] = true
					defs = append(defs, def)
				}
			}
		}
	}
	slices.SortFunc(defs, func(a, b *tools.Definition) int { return strings.Compare(a.Name, b.Name) })
	return defs
}
