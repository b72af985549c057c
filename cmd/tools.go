package cmd

import (
	"errors"
	"fmt"
	"io/fs"
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
		Long: `Tools are YAML definitions in tools.d folders, each backed by an executable.
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

// configToolsDirs returns the folders of --tools-dir, else those of the
// configuration (nil for the default ones). Only --tools-dir and --profile
// are read as settings: tools show --provider names a wire form, not the
// provider to use.
func configToolsDirs(c *cobra.Command, ios *IOStreams) ([]string, error) {
	cfg, err := resolveConfig(ios, onlyFlags(c.Flags(), "tools-dir", "profile"))
	if err != nil {
		return nil, err
	}
	return cfg.ToolsDirs, nil
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

// loadTools loads the tools of the given folders (see toolsDirs). Every
// problem in the definitions is printed on stderr as file:line: message,
// and the error returned exits 1; a folder given that does not exist is a
// usage error (exit 2).
func loadTools(ios *IOStreams, dirs []string, explicit bool) (*tools.Registry, error) {
	dirs = toolsDirs(ios, dirs, explicit)
	for _, d := range dirs {
		if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
			return nil, flagErrorf("--tools-dir %s: no such file or folder", d)
		}
	}
	reg, err := tools.Load(dirs, tools.Options{Getenv: ios.Getenv})
	if err == nil {
		return reg, nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		fmt.Fprintln(ios.ErrOut, safeText(e.Error()))
	}
	noun := "problem"
	if len(errs) > 1 {
		noun = "problems"
	}
	return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("%d %s in the tool definitions", len(errs), noun)}
}

// firstLine is the summary line of a description.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
