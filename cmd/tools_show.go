package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
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

// openAITool is a Chat Completions tool definition.
type openAITool struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict,omitempty"`
}

// anthropicTool is a Messages API tool definition.
type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

func runToolsShow(opts *ToolsShowOptions) error {
	reg, err := loadTools(opts.IO, opts.ToolsDirs, opts.ExplicitDirs)
	if err != nil {
		return err
	}
	if _, err := reg.Subset([]string{opts.Name}); err != nil {
		return err // names the tools there are
	}
	d, _ := reg.Lookup(opts.Name)
	switch opts.Provider {
	case "anthropic":
		return writeJSON(opts.IO, anthropicTool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters})
	case "openai":
		return writeJSON(opts.IO, openAITool{Type: "function", Function: openAIFunction{
			Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict,
		}})
	}
	return fmt.Errorf("unknown provider %q", opts.Provider)
}
