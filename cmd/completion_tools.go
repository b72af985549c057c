package cmd

import (
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// toolCompletions are the names, with descriptions, of the tools the
// command would load (toolset.Offered).
func toolCompletions(ios *iostreams.IOStreams, c *cobra.Command, prefix string, exclude []string) []string {
	var src toolsSource
	cfg, cfgErr := loadConfig(ios, onlyFlags(c.Flags(), "profile", "mcp-config"))
	if fl := c.Flags().Lookup("tools-dir"); fl != nil && fl.Changed {
		dirs, _ := c.Flags().GetStringArray("tools-dir")
		src.dirs, src.setting = givenOnce(dirs), "--tools-dir"
	} else if cfgErr == nil {
		src = toolsSource{cfg.ToolsDirs, toolsSetting(cfg)}
	}
	// Quietly: a completion prints nothing but candidates.
	dirs, _ := toolsDirs(ios, src, false)
	ts := toolset.Sources{Dirs: dirs, Getenv: ios.Getenv}
	if cfgErr == nil {
		ts.MCPFiles, ts.MCPServers = givenOnce(cfg.MCPConfig), cfg.MCPServers
	}
	var out []string
	for _, t := range toolset.Offered(ts, toolNames(ios), cfgErr == nil, prefix, exclude) {
		out = append(out, shownCompletion(t.Name, firstLine(t.Description)))
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
