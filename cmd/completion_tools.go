package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
)

// toolCompletions are the names, with descriptions, of the tools the
// command would load: the script tools, and the tools of the MCP servers
// known without starting them (knownTools). A shell waits for a
// completion; a server may take seconds to start (npx -y downloads first).
func toolCompletions(ios *IOStreams, c *cobra.Command, prefix string, exclude []string) []string {
	var src toolsSource
	cfg, cfgErr := loadConfig(ios, onlyFlags(c.Flags(), "profile", "mcp-config"))
	if fl := c.Flags().Lookup("tools-dir"); fl != nil && fl.Changed {
		dirs, _ := c.Flags().GetStringArray("tools-dir")
		src.dirs, src.setting = givenOnce(dirs), "--tools-dir"
	} else if cfgErr == nil {
		src = toolsSource{cfg.ToolsDirs, toolsSetting(cfg)}
	}
	if cfgErr == nil {
		cfg.MCPConfig = givenOnce(cfg.MCPConfig)
	}
	// Quietly: a completion prints nothing but candidates.
	dirs, _ := toolsDirs(ios, src, false)
	var out []string
	add := func(name, desc string) {
		if strings.HasPrefix(name, prefix) && !slices.Contains(exclude, name) && !slices.ContainsFunc(out, func(o string) bool {
			n, _, _ := strings.Cut(o, "\t")
			return n == name
		}) {
			out = append(out, shownCompletion(name, firstLine(desc)))
		}
	}
	for _, d := range quietDefinitions(ios, dirs) {
		add(d.Name, d.Description)
	}
	if cfgErr == nil {
		names := toolNames(ios)
		for _, s := range toolset.Quiet(toolset.Sources{Dirs: dirs, MCPFiles: cfg.MCPConfig, MCPServers: cfg.MCPServers, Getenv: ios.Getenv}) {
			if !strings.HasPrefix(s.Prefix, prefix) && !strings.HasPrefix(prefix, s.Prefix) {
				continue
			}
			for _, t := range knownTools(s, names) {
				add(t.Name, t.Description)
			}
		}
	}
	slices.Sort(out)
	return out
}

// givenOnce is the values of a repeatable flag in a completion, each
// once: cobra parses a completion's flags twice, and a repeatable flag
// holds every value given two times (every server of an --mcp-config file
// was offered twice).
func givenOnce(values []string) []string {
	var out []string
	for _, v := range values {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// knownTools are the tools a server offers as far as they are known
// without starting it: its tools: list, or those it offered when it last
// started (the cache of tool names), each with its description when the
// cache has it.
func knownTools(c *mcp.Config, names *mcp.Names) []mcp.NamedTool {
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

// quietDefinitions loads the tool definitions of dirs without a word: when
// some files have problems, the tools of the others are still offered.
func quietDefinitions(ios *IOStreams, dirs []string) []*tools.Definition {
	opts := tools.Options{Getenv: ios.Getenv}
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
