package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/tools"
)

// newCmdTools groups the commands that inspect and run tools by hand.
func newCmdTools(ios *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "tools",
		Short: "List, show and call the tools offered to the model",
		Long: `Tools are YAML definitions in tools.d folders, each backed by an executable,
and the tools of MCP servers (a tools.d file with an mcp: key, the configuration's
mcp_servers, or an {"mcpServers": …} file given with --mcp-config; see docs/mcp.md).
By default agentloop reads ./tools.d and, when it exists, the tools.d folder in
the user's config directory ($XDG_CONFIG_HOME/agentloop/tools.d); tools_dirs in
the configuration or AGENTLOOP_TOOLS_DIRS name other folders. See docs/tools.md.`,
		Example: `  agentloop tools list
  agentloop tools show get_weather --provider anthropic
  agentloop tools call calc '{"expression": "6*7"}'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newCmdToolsList(ios, nil))
	c.AddCommand(newCmdToolsShow(ios, nil))
	c.AddCommand(newCmdToolsCall(ios, nil))
	return c
}

// addToolsDirFlag registers the repeatable --tools-dir flag. Whether it was
// given is c.Flags().Changed("tools-dir").
func addToolsDirFlag(c *cobra.Command, dirs *[]string) {
	c.Flags().StringArrayVar(dirs, "tools-dir", nil, "read tool definitions from `DIR` (repeatable; default ./tools.d and the user config's agentloop/tools.d)")
}

// addMCPConfigFlag registers the repeatable --mcp-config flag.
func addMCPConfigFlag(c *cobra.Command, files *[]string) {
	c.Flags().StringArrayVar(files, "mcp-config", nil, "read MCP servers from the {\"mcpServers\": …} JSON `FILE` of Claude Desktop, Cursor and others (repeatable)")
}

// configToolSources returns where the tools come from: the folders of
// --tools-dir, else those of the configuration (nil for the default ones),
// the --mcp-config files or the configured ones, and the configuration's
// mcp_servers. Only --tools-dir, --mcp-config and --profile are read as
// settings: tools show --provider names a wire form, not the provider to
// use.
func configToolSources(c *cobra.Command, ios *IOStreams) (toolSources, error) {
	cfg, err := resolveConfig(ios, onlyFlags(c.Flags(), "tools-dir", "mcp-config", "profile"))
	if err != nil {
		return toolSources{}, err
	}
	return toolSources{dirs: cfg.ToolsDirs, explicit: c.Flags().Changed("tools-dir"), mcpFiles: cfg.MCPConfig, mcpServers: cfg.MCPServers}, nil
}

// toolsDirs returns the folders to load tools from. Folders given with
// --tools-dir (explicit) are used as they are. Otherwise dirs are the
// configured folders, or nil for the default ones, and those that do not
// exist are left out: a configured tools.d is relative to the folder
// agentloop runs in, and not every folder has one.
func toolsDirs(ios *IOStreams, dirs []string, explicit bool) []string {
	if explicit {
		return dirs
	}
	if dirs == nil {
		dirs = defaultToolsDirs(ios)
	}
	var out []string
	for _, d := range dirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// defaultToolsDirs are ./tools.d and the user's config tools.d.
func defaultToolsDirs(ios *IOStreams) []string {
	dirs := []string{"tools.d"}
	if cfg := userConfigDir(ios); cfg != "" {
		dirs = append(dirs, filepath.Join(cfg, "agentloop", "tools.d"))
	}
	return dirs
}

// userConfigDir is os.UserConfigDir read through the command's environment,
// so that tests do not see the config of whoever runs them.
func userConfigDir(ios *IOStreams) string {
	if d := ios.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	home := ios.Getenv("HOME")
	if home == "" {
		return ""
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support")
	}
	return filepath.Join(home, ".config")
}

// loadTools loads the script tools and the servers' declarations of the
// given folders (see loadDefinitions), starting no server.
func loadTools(ios *IOStreams, dirs []string, explicit bool) (*tools.Registry, error) {
	reg, _, err := loadDefinitions(ios, toolSources{dirs: dirs, explicit: explicit})
	return reg, err
}

// firstLine is the summary line of a description.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
