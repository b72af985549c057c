package cmd

import (
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/tools"
)

// Temporary stand-ins until the tools commands land.
func addToolsDirFlag(c *cobra.Command, dirs *[]string) {
	c.Flags().StringArrayVar(dirs, "tools-dir", nil, "load tools from `DIR` (repeatable; default ./tools.d)")
}

func loadTools(ios *IOStreams, dirs []string, explicit bool) (*tools.Registry, error) {
	return &tools.Registry{}, nil
}
