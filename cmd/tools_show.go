package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/agent"
)

// ToolsShowOptions are the inputs of `agentloop tools show`.
type ToolsShowOptions struct {
	IO           *IOStreams
	ToolsDirs    []string
	ExplicitDirs bool
	Name         string
	Provider     string
}

func newCmdToolsShow(ios *IOStreams, runF func(*ToolsShowOptions) error) *cobra.Command {
	opts := &ToolsShowOptions{IO: ios}
	c := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a tool's definition exactly as the model receives it",
		Long: `Print the function definition of one tool as it is sent to the model: the
OpenAI form {"type":"function","function":{...}} by default, or the Anthropic
form {"name","description","input_schema"} with --provider anthropic.`,
		Example: `  agentloop tools show get_weather
  agentloop tools show get_weather --provider anthropic | jq .input_schema`,
		Args: exactArgs(1, "NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			opts.ExplicitDirs = c.Flags().Changed("tools-dir")
			dirs, err := configToolsDirs(c, ios)
			if err != nil {
				return err
			}
			opts.ToolsDirs = dirs
			if opts.Provider != "openai" && opts.Provider != "anthropic" {
				return flagErrorf("--provider must be openai or anthropic, got %q", opts.Provider)
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsShow(opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	c.Flags().StringVar(&opts.Provider, "provider", "openai", "the wire form: openai or anthropic")
	return c
}

func runToolsShow(opts *ToolsShowOptions) error {
	reg, err := loadTools(opts.IO, opts.ToolsDirs, opts.ExplicitDirs)
	if err != nil {
		return err
	}
	if _, err := reg.Subset([]string{opts.Name}); err != nil {
		return err // names the tools there are
	}
	// The definitions of every tool, made as a run makes them (Anthropic's
	// last one carries the cache mark), and this one picked out.
	defs, err := agent.DialectFor(opts.Provider).ToolDefs(toolSpecs(reg.Definitions()))
	if err != nil {
		return err
	}
	for i, d := range reg.Definitions() {
		if d.Name == opts.Name {
			return writeJSON(opts.IO, defs[i])
		}
	}
	return fmt.Errorf("no tool %q", opts.Name)
}
