package cmd

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
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
	addSandboxFlags(c)
	return c
}

// configRow is one line of config show.
type configRow struct {
	key   string
	value any // string, int, bool or []string
	src   config.Source
	path  bool // the value is a path or paths: written with ~ on a terminal
}

// configRows are the settings in the order config show prints them.
func configRows(ios *IOStreams, c *config.Config) []configRow {
	provider := c.ProviderName()
	baseURL, baseSrc := c.BaseURL(provider)
	if baseURL == "" {
		baseURL, _ = engine.DefaultBaseURL(string(wire.Chat))
		if u, ok := engine.DefaultBaseURL(provider); ok {
			baseURL = u
		}
	} else if u, err := url.Parse(baseURL); err == nil {
		baseURL = u.Redacted()
	}
	dirs := c.ToolsDirs
	if dirs == nil {
		dirs = defaultToolsDirs(ios)
	}
	models := c.Models
	if models == nil {
		models = []string{}
	}
	return []configRow{
		{key: "profile", value: c.Profile, src: c.Source("profile")},
		{key: "model", value: c.Model, src: c.Source("model")},
		{key: "provider", value: provider, src: c.Source("provider")},
		{key: "base_url", value: baseURL, src: baseSrc},
		{key: "tools_dirs", value: dirs, src: c.Source("tools_dirs"), path: true},
		{key: "max_steps", value: c.MaxSteps, src: c.Source("max_steps")},
		{key: "parallel", value: c.Parallel, src: c.Source("parallel")},
		{key: "transcript_dir", value: c.TranscriptDir, src: c.Source("transcript_dir"), path: true},
		{key: "max_retries", value: c.MaxRetries, src: c.Source("max_retries")},
		{key: "timeout", value: c.Timeout.String(), src: c.Source("timeout")},
		{key: "idle_timeout", value: c.IdleTimeout.String(), src: c.Source("idle_timeout")},
		{key: "system", value: c.System, src: c.Source("system")},
		{key: "models", value: models, src: c.Source("models")},
		{key: "max_total_tokens", value: c.MaxTotalTokens, src: c.Source("max_total_tokens")},
		{key: "max_cost", value: c.MaxCost, src: c.Source("max_cost")},
		{key: "context_limit", value: c.ContextLimit, src: c.Source("context_limit")},
		{key: "context_keep", value: c.ContextKeep, src: c.Source("context_keep")},
		{key: "context_keep_tools", value: orEmpty(c.ContextKeepTools), src: c.Source("context_keep_tools")},
		{key: "context_clear_at_least", value: c.ContextClearAtLeast, src: c.Source("context_clear_at_least")},
		{key: "context_editing", value: c.ContextEditing, src: c.Source("context_editing")},
		{key: "mcp_config", value: orEmpty(c.MCPConfig), src: c.Source("mcp_config"), path: true},
		{key: "mcp_servers", value: serverSummaries(c.MCPServers), src: c.Source("mcp_servers")},
		{key: "sandbox", value: string(c.Sandbox), src: c.Source("sandbox")},
		{key: "sandbox_required", value: c.SandboxRequired, src: c.Source("sandbox_required")},
		{key: "batch_api", value: c.BatchAPI, src: c.Source("batch_api")},
	}
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// credentialVars are the provider keys config show reports as set or unset.
var credentialVars = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

func runConfigShow(opts *ConfigShowOptions) error {
	ios, cfg := opts.IO, opts.Config
	rows := configRows(ios, cfg)
	redact := secrets(ios)
	if opts.JSON {
		return writeConfigJSON(ios, cfg, rows)
	}
	home := ios.Getenv("HOME")
	type line struct{ key, value, src string }
	lines := make([]line, 0, 1+len(rows)+len(cfg.Prices)+len(credentialVars))
	file, state := fileState(cfg, home)
	lines = append(lines, line{"file", file, state})
	for _, r := range rows {
		lines = append(lines, line{r.key, displayValue(redactValue(redact, r.value), r.path, home, r.key == "profile"), r.src.Describe(home)})
	}
	for _, v := range credentialVars {
		state := "unset"
		if ios.Getenv(v) != "" {
			state = "set"
		}
		lines = append(lines, line{v, state, config.SourceEnv})
	}
	keyW, srcW := 0, 0
	for _, l := range lines {
		keyW, srcW = max(keyW, len(l.key)), max(srcW, utf8.RuneCountInString(l.src))
	}
	tw := tabwriter.NewWriter(ios.Out, 0, 8, 2, ' ', 0)
	for _, l := range lines {
		v, src := l.value, l.src
		// On a terminal a long value (a system prompt) is cut so that the
		// source stays on the line, and what the file or the environment
		// set is shown, not obeyed; piped, it is whole.
		if ios.IsStdoutTTY() {
			v = fitWidth(displayText(v, len(v)), max(20, ios.Width()-keyW-srcW-4))
			src = displayText(src, len(src))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", l.key, v, src)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writePrices(ios, cfg, home)
}

// fileState is the configuration file as config show's first line gives
// it: its path, and whether it was read, or why there is none.
func fileState(cfg *config.Config, home string) (path, state string) {
	switch {
	case cfg.Path == "":
		return "(none)", "no configuration folder: set XDG_CONFIG_HOME or HOME"
	case cfg.Found:
		return config.TildePath(cfg.Path, home), "read"
	}
	return config.TildePath(cfg.Path, home), "not there"
}

// redactValue is a setting's value with every secret in it replaced, part
// by part: redacting the text of a whole list would let a URL's query run
// on into what follows it.
func redactValue(redact *transcript.Redactor, v any) any {
	switch v := v.(type) {
	case string:
		return redact.RedactString(v)
	case []string:
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = redact.RedactString(s)
		}
		return out
	case []serverSummary:
		out := make([]serverSummary, len(v))
		for i, s := range v {
			s.URL = redact.RedactString(s.URL)
			s.Command = redactValue(redact, s.Command).([]string)
			if len(s.Command) == 0 {
				s.Command = nil
			}
			out[i] = s
		}
		return out
	}
	return v
}

// displayValue writes a value for config show's text output.
func displayValue(v any, isPath bool, home string, isProfile bool) string {
	tilde := func(s string) string {
		if isPath {
			return config.TildePath(s, home)
		}
		return s
	}
	switch v := v.(type) {
	case string:
		switch {
		case v == "" && isProfile:
			return "(none)"
		case v == "" || strings.TrimSpace(v) != v || strings.ContainsAny(v, "\n\r\t") || !utf8.ValidString(v):
			return strconv.Quote(v)
		}
		return tilde(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = tilde(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []serverSummary:
		parts := make([]string, len(v))
		for i, s := range v {
			how := s.URL
			if s.Transport == mcp.Stdio {
				how = strings.Join(s.Command, " ")
			}
			parts[i] = fmt.Sprintf("%s (%s: %s)", s.Name, s.Transport, how)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
