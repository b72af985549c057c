package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/wire"
)

// ToolsShowOptions are the inputs of `agentloop tools show`.
type ToolsShowOptions struct {
	IO *iostreams.IOStreams
	ToolSourceOptions
	Name     string
	Provider string
	verbose  func() bool
}

func newCmdToolsShow(ios *iostreams.IOStreams, runF func(*ToolsShowOptions) error) *cobra.Command {
	opts := &ToolsShowOptions{IO: ios}
	c := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a tool's definition exactly as the model receives it",
		Long: `Print the function definition of one tool as it is sent to the model: the
Chat Completions form {"type":"function","function":{...}} by default, the
Responses form {"type":"function","name",...,"strict"} with --provider
responses, or the Anthropic form {"name","description","input_schema"} with
--provider anthropic.`,
		Example: `  agentloop tools show get_weather
  agentloop tools show get_weather --provider anthropic | jq .input_schema`,
		Args: exactArgs(1, "NAME"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Name = args[0]
			if err := opts.fromConfig(c, ios); err != nil {
				return err
			}
			if !slices.Contains(config.Providers, opts.Provider) {
				return flagErrorf("--provider must be openai, responses or anthropic, got %q", opts.Provider)
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsShow(c.Context(), opts)
		},
	}
	addToolsDirFlag(c, &opts.ToolsDirs)
	addMCPConfigFlag(c, &opts.MCPConfig)
	c.Flags().StringVar(&opts.Provider, "provider", string(wire.Chat), "the wire form: openai, responses or anthropic")
	addSandboxFlags(c)
	opts.verbose = func() bool { return verbose(c) }
	return c
}

func runToolsShow(ctx context.Context, opts *ToolsShowOptions) error {
	// Only the server that has the tool is started, as for tools call.
	sel := toolset.Selection{Only: []string{opts.Name}, Known: toolNames(opts.IO).Known}
	ts, err := loadToolSet(ctx, opts.IO, opts.sources(), sel, nil)
	if err != nil {
		return err
	}
	defer ts.Close()
	if !ts.Has(opts.Name) {
		// A name that is not a tool is a bad argument, as --tool's is.
		return &ExitError{Code: ExitUsage, Err: errors.New(ts.UnknownText(opts.Name))}
	}
	// The definitions of every tool, made as a run makes them (Anthropic's
	// last one carries the cache mark), and this one picked out; the tools
	// of the servers not started are known from their tools: lists and
	// the cache.
	defs, err := ts.ToolDefsAmong(agent.DialectFor(opts.Provider), ts.Elsewhere())
	if err != nil {
		return err
	}
	if opts.IO.IsStderrTTY() || opts.verbose != nil && opts.verbose() {
		// Not on stdout, which is the definition as sent.
		if line := ts.SandboxLine(opts.Name); line != "" {
			fmt.Fprintln(opts.IO.ErrOut, line)
		}
	}
	for i, spec := range ts.Specs() {
		if spec.Name == opts.Name {
			return writeJSON(opts.IO, defs[i])
		}
	}
	return fmt.Errorf("no tool %q", opts.Name)
}
