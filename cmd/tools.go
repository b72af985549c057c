package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
)

// newCmdTools groups the commands that inspect and run tools by hand.
func newCmdTools(ios *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "tools",
		Short: "List, show, call and trust the tools offered to the model",
		Long: `Tools are YAML definitions in tools.d folders, each backed by an executable,
and the tools of MCP servers (a tools.d file with an mcp: key, the
configuration's mcp_servers, or an {"mcpServers": …} file given with
--mcp-config; see docs/mcp.md).
By default agentloop reads ./tools.d, once you have trusted it ('agentloop tools
trust'), and the tools.d folder in your config directory
($XDG_CONFIG_HOME/agentloop/tools.d); a tool of ./tools.d overrides one of the
same name of yours. --tools-dir, tools_dirs in the configuration or
AGENTLOOP_TOOLS_DIRS name other folders, used as given. See docs/tools.md.`,
		Example: `  agentloop tools list
  agentloop tools trust
  agentloop tools show get_weather --provider anthropic
  agentloop tools call calc '{"expression": "6*7"}'`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newCmdToolsList(ios, nil))
	c.AddCommand(newCmdToolsShow(ios, nil))
	c.AddCommand(newCmdToolsCall(ios, nil))
	c.AddCommand(newCmdToolsTrust(ios, nil))
	c.AddCommand(newCmdToolsUntrust(ios, nil))
	return c
}

// addToolsDirFlag registers the repeatable --tools-dir flag. Whether it was
// given is c.Flags().Changed("tools-dir").
func addToolsDirFlag(c *cobra.Command, dirs *[]string) {
	c.Flags().StringArrayVar(dirs, "tools-dir", nil, "read tool definitions from `DIR`, trusted or not (repeatable; default ./tools.d once trusted, and the user config's agentloop/tools.d)")
}

// addMCPConfigFlag registers the repeatable --mcp-config flag.
func addMCPConfigFlag(c *cobra.Command, files *[]string) {
	c.Flags().StringArrayVar(files, "mcp-config", nil, "read MCP servers from the {\"mcpServers\": …} JSON `FILE` of Claude Desktop, Cursor and others (repeatable)")
}

// ToolSourceOptions are where a tools or mcp command finds its tools: the
// folders and the MCP servers the flags, the environment and the
// configuration file name.
type ToolSourceOptions struct {
	ToolsDirs []string
	// ToolsSetting names the setting that gave ToolsDirs; "" when
	// agentloop chooses the folders (see toolsSource).
	ToolsSetting string
	MCPConfig    []string
	// mcpSetting names the setting that gave MCPConfig, as ToolsSetting.
	mcpSetting string
	mcpServers []*mcp.Config
	sandbox    sandboxOptions
}

// fromConfig sets them from the folders of --tools-dir, else those of the
// configuration (none for the default ones), the --mcp-config files or the
// configured ones, and the configuration's mcp_servers. Only --tools-dir,
// --mcp-config and --profile are read as settings: tools show --provider
// names a wire form, not the provider to use.
func (o *ToolSourceOptions) fromConfig(c *cobra.Command, ios *iostreams.IOStreams) error {
	cfg, err := resolveConfig(ios, onlyFlags(c.Flags(), "tools-dir", "mcp-config", "profile", "sandbox", "sandbox-required"))
	if err != nil {
		return err
	}
	if o.sandbox, err = sandboxFrom(ios, cfg); err != nil {
		return err
	}
	o.ToolsDirs, o.ToolsSetting, o.MCPConfig, o.mcpServers = cfg.ToolsDirs, toolsSetting(cfg), cfg.MCPConfig, cfg.MCPServers
	o.mcpSetting = mcpSetting(cfg)
	return nil
}

func (o *ToolSourceOptions) sources() toolSources {
	return toolSources{toolsSource: toolsSource{o.ToolsDirs, o.ToolsSetting}, mcpFiles: o.MCPConfig, mcpSetting: o.mcpSetting, mcpServers: o.mcpServers, sandbox: o.sandbox}
}

// toolsSource is the folders a command loads tools from and how they were
// chosen. Folders a setting names are the user's choice: always used, and
// each must exist. The others agentloop picks itself (./tools.d and the
// user's own tools.d when no setting names any, or the folders a
// transcript recorded): those missing are left out, and a folder other
// than the user's own is used only once trusted.
type toolsSource struct {
	dirs []string // nil: the default folders
	// setting names what gave dirs, for errors: "--tools-dir",
	// "AGENTLOOP_TOOLS_DIRS" or "tools_dirs in FILE:LINE"; "" when agentloop
	// chose them.
	setting string
}

// toolsSetting names the setting that gave the configuration's tools
// folders, "" when none did (the default folders).
func toolsSetting(cfg *config.Config) string {
	return settingName(cfg.Source("tools_dirs"), "tools_dirs")
}

// mcpSetting names the setting that gave the configuration's MCP servers
// files, as toolsSetting does its folders.
func mcpSetting(cfg *config.Config) string {
	return settingName(cfg.Source(mcpConfigKey), mcpConfigKey)
}

const mcpConfigKey = "mcp_config"

// userMCPFiles reports whether mcpSetting named a line of the
// configuration file (settingName's "mcp_config in FILE:LINE"), not a flag
// or a variable: the servers of those files are the user's, offered in
// every folder.
func userMCPFiles(setting string) bool {
	return strings.HasPrefix(setting, mcpConfigKey+" in ")
}

// toolsDirs returns the folders to load tools from (see toolsSource). A
// folder a setting names that does not exist is a usage error naming the
// setting. A folder left out for want of trust is said on stderr, in one
// line saying how to trust it, when warn is set.
func toolsDirs(ios *iostreams.IOStreams, src toolsSource, warn bool) ([]string, error) {
	if src.setting != "" {
		for _, d := range src.dirs {
			if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
				return nil, missingToolsDir(src.setting, d)
			}
		}
		return src.dirs, nil
	}
	dirs := src.dirs
	if dirs == nil {
		dirs = toolset.DefaultDirs(ios.Getenv)
	}
	return toolset.Usable(dirs, func(d string) (string, error) { return untrustedReason(ios, d) }, func(d, why string) {
		if warn {
			fmt.Fprintf(ios.ErrOut, "agentloop: ignoring the tools of %s: %s; review it, then run: %s\n", termtext.Safe(d), termtext.Safe(why), termtext.Safe(trust.Command(d)))
		}
	})
}

func missingToolsDir(setting, dir string) error {
	return missingPath(setting, dir, "no such file or folder")
}

// missingPath is the usage error for a path a setting names that is not
// there: "--tools-dir DIR: …" for a flag, "SETTING: PATH: …" for a
// variable or a line of the configuration file, with the working folder a
// relative path was looked for in.
func missingPath(setting, dir, what string) error {
	if strings.HasPrefix(setting, "--") {
		return flagErrorf("%s %s: %s", setting, dir, what)
	}
	msg := fmt.Sprintf("%s: %s: %s", setting, dir, what)
	if !filepath.IsAbs(dir) {
		if wd, err := os.Getwd(); err == nil {
			msg += " (in " + wd + ")"
		}
	}
	return &ExitError{Code: ExitUsage, Err: errors.New(msg)}
}

// loadTools loads the script tools and the servers' declarations of the
// given folders (see loadDefinitions), starting no server.
func loadTools(ios *iostreams.IOStreams, src toolsSource) (*tools.Registry, error) {
	reg, _, err := loadDefinitions(ios, toolSources{toolsSource: src})
	return reg, err
}

// firstLine is the summary line of a description.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
