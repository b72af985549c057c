package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/tracing"
)

// The settings, their sources and their order of precedence are the
// config package's; this file reads them for a command line and prints
// what is wrong with them.

// newCmdConfig groups the commands that show the configuration.
func newCmdConfig(ios *IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the configuration and where each setting comes from",
		Long: `Settings come from flags, AGENTLOOP_* environment variables and the file
$XDG_CONFIG_HOME/agentloop/config.yaml (~/.config/agentloop/config.yaml), in
that order: a flag beats a variable, a variable beats the file, and the file
beats the built-in default. In the file, the profile chosen with --profile NAME
or AGENTLOOP_PROFILE beats the top level.

Keys (file / environment / flag):
` + configKeysHelp() + `

AGENTLOOP_TOOLS_DIRS separates folders with colons. base_url falls back to
OPENAI_BASE_URL or ANTHROPIC_BASE_URL (the chosen provider's) after
AGENTLOOP_BASE_URL and before the file. API keys are read from OPENAI_API_KEY
and ANTHROPIC_API_KEY only, never from the file. See docs/configuration.md.`,
		Example: `  agentloop config show
  agentloop config show --profile ollama --json
  $EDITOR "$(agentloop config path)"`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newCmdConfigShow(ios, nil))
	c.AddCommand(newCmdConfigPath(ios, nil))
	return c
}

// fileOnly says what the keys without a variable or a flag hold.
var fileOnly = map[string]string{
	"models":             "model names offered by shell completion",
	"context_keep_tools": "tools whose results are never cleared",
	"mcp_servers":        "MCP servers whose tools are offered",
}

// configKeysHelp lists the keys of the file with their variables and
// flags, from the table of keys.
func configKeysHelp() string {
	var b strings.Builder
	for _, k := range config.Keys {
		switch {
		case k.Env == "" && k.Flag == "":
			fmt.Fprintf(&b, "  %-22s (file only) %s\n", k.Name, fileOnly[k.Name])
		case k.Flag == "":
			fmt.Fprintf(&b, "  %-22s %s\n", k.Name, k.Env)
		default:
			fmt.Fprintf(&b, "  %-22s %-32s --%s\n", k.Name, k.Env, k.Flag)
		}
	}
	fmt.Fprintf(&b, "  %-22s (file only) prices of models, per million tokens\n", "prices")
	fmt.Fprintf(&b, "  %-22s (file only) named sets of the keys above", "profiles")
	return b.String()
}

// configPath is $XDG_CONFIG_HOME/agentloop/config.yaml, or "" when there is
// neither XDG_CONFIG_HOME nor HOME.
func configPath(ios *IOStreams) string {
	dir := userConfigDir(ios)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "agentloop", config.FileName)
}

// resolveConfig resolves the configuration of a command line. Every
// setting the command has a flag for is read from flags. Problems are usage
// errors: a bad flag prints usage, a bad file or variable does not, and
// several problems are printed one a line before the count.
func resolveConfig(ios *IOStreams, flags *pflag.FlagSet) (*config.Config, error) {
	cfg, err := loadConfig(ios, flags)
	if err == nil {
		return cfg, nil
	}
	var fe *config.FlagError
	if errors.As(err, &fe) {
		return nil, &FlagError{Err: err}
	}
	var probs config.Problems
	if !errors.As(err, &probs) || len(probs) == 1 {
		return nil, &ExitError{Code: ExitUsage, Err: err}
	}
	for _, p := range probs {
		fmt.Fprintln(ios.ErrOut, p)
	}
	return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("%d problems in the configuration", len(probs))}
}

// configFor is resolveConfig for a command.
func configFor(c *cobra.Command, ios *IOStreams) (*config.Config, error) {
	return resolveConfig(ios, c.Flags())
}

// onlyFlags is the part of a flag set that names.
func onlyFlags(fs *pflag.FlagSet, names ...string) *pflag.FlagSet {
	out := pflag.NewFlagSet("", pflag.ContinueOnError)
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			out.AddFlag(f)
		}
	}
	return out
}

// loadConfig resolves the configuration without printing anything; shell
// completion uses it as it is.
func loadConfig(ios *IOStreams, flags *pflag.FlagSet) (*config.Config, error) {
	return config.Resolve(config.Input{
		Flag: givenFlag(flags), Getenv: ios.Getenv, Home: ios.Getenv("HOME"),
		Path: configPath(ios), StateDir: stateDir(ios),
	})
}

// givenFlag reads the flags of a command line as the configuration takes
// them; flags may be nil.
func givenFlag(flags *pflag.FlagSet) func(string) (string, []string, bool) {
	return func(name string) (string, []string, bool) {
		if flags == nil {
			return "", nil, false
		}
		fl := flags.Lookup(name)
		if fl == nil || !fl.Changed {
			return "", nil, false
		}
		var list []string
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			list = sv.GetSlice()
		}
		return fl.Value.String(), list, true
	}
}

// useModel puts the model settings of a configuration into the options of
// a live run.
func useModel(cfg *config.Config, mo *modelOptions) {
	mo.Model, mo.Provider, mo.System = cfg.Model, cfg.Provider, cfg.System
	mo.modelFrom = settingName(cfg.Source("model"), "model")
	mo.useBaseURL(cfg)
	mo.useLimits(cfg)
}

// useLimits puts the limits of a configuration on the requests and the
// run into the options of a live run.
func (mo *modelOptions) useLimits(cfg *config.Config) {
	mo.MaxRetries, mo.Timeout, mo.IdleTimeout = cfg.MaxRetries, cfg.Timeout, cfg.IdleTimeout
}

// fillModel fills the model settings replay --resume has from neither a
// flag nor the transcript. The provider is already decided.
func fillModel(cfg *config.Config, mo *modelOptions) {
	if mo.Model == "" {
		mo.Model, mo.modelFrom = cfg.Model, settingName(cfg.Source("model"), "model")
	}
	if mo.System == "" {
		mo.System = cfg.System
	}
	if mo.BaseURL == "" {
		mo.useBaseURL(cfg)
	}
}

// useBaseURL takes the configuration's base URL for the provider, and
// where it came from.
func (mo *modelOptions) useBaseURL(cfg *config.Config) {
	var src config.Source
	mo.BaseURL, src = cfg.BaseURL(mo.providerName())
	mo.baseURLFrom = baseURLSetting(src)
}

// otelSetting is the otel setting of a configuration and where it came
// from, which tracing.Wanted weighs against the OTEL_* variables.
func otelSetting(cfg *config.Config) tracing.Setting {
	src := cfg.Source("otel").Kind
	return tracing.Setting{On: cfg.OTel, Given: src != config.SourceDefault, FromFile: src == config.SourceFile}
}

// useConfig fills run's options from the configuration; a flag given is
// already there and agrees with it. Continuing a conversation, the model
// settings wait in Config, as for replay --resume: the transcript's header
// comes between a flag and the configuration.
func (o *RunOptions) useConfig(c *cobra.Command) error {
	cfg, err := configFor(c, o.IO)
	if err != nil {
		return err
	}
	if o.Continue != "" {
		o.Config = cfg
		o.Model.useLimits(cfg)
	} else {
		useModel(cfg, &o.Model)
	}
	o.ToolsDirs, o.toolsSetting = cfg.ToolsDirs, toolsSetting(cfg)
	o.toolsDirsSet = toolsChosen(cfg)
	o.MaxSteps, o.Parallel = cfg.MaxSteps, cfg.Parallel
	o.TranscriptDir = cfg.TranscriptDir
	o.Limits.useConfig(cfg)
	o.OTel = otelSetting(cfg)
	o.MCPConfig, o.mcpSetting, o.mcpServers = cfg.MCPConfig, mcpSetting(cfg), cfg.MCPServers
	o.resumeArgs = resumeArgs(cfg)
	if err := o.Schema.useConfig(cfg); err != nil {
		return err
	}
	o.Sandbox, err = sandboxFrom(o.IO, cfg)
	return err
}

// useConfig fills replay's options from the configuration. The model
// settings wait in Config: with --resume the transcript's header comes
// between a flag and the configuration. --show and --html use no setting, so
// they read a transcript whatever state the configuration is in.
func (o *ReplayOptions) useConfig(c *cobra.Command) error {
	if o.Show || o.HTML != "" {
		return nil
	}
	cfg, err := configFor(c, o.IO)
	if err != nil {
		return err
	}
	o.Config = cfg
	o.ToolsDirs, o.toolsSetting = cfg.ToolsDirs, toolsSetting(cfg)
	o.toolsDirsSet = toolsChosen(cfg)
	o.MaxSteps, o.Parallel = cfg.MaxSteps, cfg.Parallel
	o.MCPConfig, o.mcpSetting, o.mcpServers = cfg.MCPConfig, mcpSetting(cfg), cfg.MCPServers
	o.Model.useLimits(cfg)
	o.TranscriptDir = cfg.TranscriptDir
	o.Limits.useConfig(cfg)
	o.OTel = otelSetting(cfg)
	o.resumeArgs = resumeArgs(cfg)
	if err := o.Schema.useConfig(cfg); err != nil {
		return err
	}
	o.Sandbox, err = sandboxFrom(o.IO, cfg)
	return err
}
