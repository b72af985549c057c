package cmd

import (
	"fmt"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/wire"
)

// ConfigShowOptions are the inputs of `agentloop config show`.
type ConfigShowOptions struct {
	IO     *IOStreams
	JSON   bool
	Config *config.Config
}

func newCmdConfigShow(ios *IOStreams, runF func(*ConfigShowOptions) error) *cobra.Command {
	opts := &ConfigShowOptions{IO: ios}
	c := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value comes from",
		Long: `Print each setting's value as run would use it and where it comes from: a flag,
an environment variable, the configuration file (and its profile), or the
built-in default. Its flags are those of run that set a setting (--model,
--max-steps, --tools-dir, …; not --yes, --tool or -o), so the settings of a
command line can be checked before it is run. API keys are shown as set or
unset, never their values. The first line names the configuration file (read,
or not there); the prices: table in effect ends the list, each model's prices
with the line that gives them.`,
		Example: `  agentloop config show
  agentloop --profile ollama config show
  AGENTLOOP_MAX_STEPS=20 agentloop config show --model gpt-4o
  agentloop config show --json | jq -r .settings.model.value`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			cfg, err := configFor(c, ios)
			if err != nil {
				return err
			}
			opts.Config = cfg
			if runF != nil {
				return runF(opts)
			}
			return runConfigShow(opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the configuration as JSON")
	// The settings' flags, as run takes them: read by the resolver.
	f.StringP("model", "m", "", "model to ask")
	f.String("provider", "", "API to use: openai, responses or anthropic")
	f.String("base-url", "", "API base URL")
	f.String("system", "", "system prompt")
	f.StringArray("tools-dir", nil, "read tool definitions from `DIR` (repeatable)")
	f.StringArray("mcp-config", nil, "read MCP servers from `FILE` (repeatable)")
	f.Int("max-steps", agent.DefaultMaxSteps, "cap on model calls")
	f.Int("parallel", agent.DefaultParallel, "tool calls of one turn run at once")
	f.Int("max-retries", config.DefaultMaxRetries, "retries of a failed model request")
	f.Duration("timeout", 0, "time limit for the whole run")
	f.Duration("idle-timeout", httpretry.DefaultIdleTimeout, "longest the server may send nothing")
	f.Int("max-total-tokens", 0, "cap on the run's tokens")
	f.Float64("max-cost", 0, "cap on the run's cost in US dollars")
	f.Int("context-limit", 0, "most input tokens a request may carry")
	f.Bool("otel", false, "export the runs' spans and metrics over OTLP")
	addSchemaFlags(f, &schemaOptions{})
	addSandboxFlags(c)
	return c
}

func runConfigShow(opts *ConfigShowOptions) error {
	ios, cfg := opts.IO, opts.Config
	defaultBase := func(provider string) string {
		if u, ok := engine.DefaultBaseURL(provider); ok {
			return u
		}
		u, _ := engine.DefaultBaseURL(string(wire.Chat))
		return u
	}
	rows := cfg.Rows(defaultBase, defaultToolsDirs(ios))
	redact := secrets(ios)
	if opts.JSON {
		return writeJSON(ios, cfg.Show(rows, redact, ios.Getenv))
	}
	home := ios.Getenv("HOME")
	lines := cfg.ShowLines(rows, redact, home, ios.Getenv)
	keyW, srcW := 0, 0
	for _, l := range lines {
		keyW, srcW = max(keyW, len(l.Key)), max(srcW, utf8.RuneCountInString(l.Src))
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 8, 2, ' ', 0)
	for _, l := range lines {
		v, src := l.Value, l.Src
		// On a terminal a long value (a system prompt) is cut so that the
		// source stays on the line, and what the file or the environment
		// set is shown, not obeyed; piped, it is whole.
		if ios.IsStdoutTTY() {
			v = fitWidth(displayText(v, len(v)), max(20, ios.Width()-keyW-srcW-4))
			src = displayText(src, len(src))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.Key, v, src)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return cfg.WritePrices(ios.Out, redact, home, ios.IsStdoutTTY(), ios.Width())
}
