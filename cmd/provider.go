package cmd

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// modelOptions are the flags that choose and tune the model, shared by run
// and replay --resume.
type modelOptions struct {
	Provider    string
	Model       string
	BaseURL     string
	System      string
	Temperature float64
	setTemp     bool
	MaxTokens   int64
	MaxRetries  int
	Timeout     time.Duration
	// IdleTimeout is the longest the server may send nothing, before its
	// answer starts or inside it; 0 is no limit.
	IdleTimeout time.Duration
	// Store keeps responses on the server (responses only).
	Store bool
	// baseURLFrom names where BaseURL came from when neither the flag nor
	// the provider's variable gave it, for error messages.
	baseURLFrom string
	// modelFrom names where Model came from when the flag did not give
	// it, for error messages.
	modelFrom string
}

func addModelFlags(f *pflag.FlagSet, o *modelOptions) {
	f.StringVarP(&o.Model, "model", "m", "", "model to ask (default "+config.DefaultModel+"; "+config.DefaultResponsesModel+" with --provider responses, "+config.DefaultAnthropicModel+" with --provider anthropic)")
	f.StringVar(&o.Provider, "provider", "", "API to use: openai (Chat Completions), responses (OpenAI Responses) or anthropic (default: anthropic for claude-*, responses for OpenAI reasoning models o1, o3, o4-mini, gpt-5…, else openai)")
	f.StringVar(&o.BaseURL, "base-url", "", "API base URL, e.g. http://localhost:11434/v1 for Ollama (default from OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	f.StringVar(&o.System, "system", "", "system prompt")
	f.Float64Var(&o.Temperature, "temperature", 0, "sampling temperature (default: the server's)")
	f.Int64Var(&o.MaxTokens, "max-tokens", 0, "cap on each answer's output tokens (default: 4096 for anthropic, the server's for openai)")
	f.IntVar(&o.MaxRetries, "max-retries", config.DefaultMaxRetries, "retries of a failed model request (408, 409, 429, 5xx, connection errors), with backoff")
	f.DurationVar(&o.Timeout, "timeout", 0, "time limit for the whole run, e.g. 5m (default: none)")
	f.DurationVar(&o.IdleTimeout, "idle-timeout", httpretry.DefaultIdleTimeout, "give up on a server that sends nothing for `TIME`, before its answer or inside it: the request is retried, or the run ends (0: never)")
	f.BoolVar(&o.Store, "store", false, "responses: keep each response on the server and send only the new items with previous_response_id (default: stateless, store false)")
}

// check validates the flag values and notes which were given.
func (o *modelOptions) check(c *cobra.Command) error {
	o.setTemp = c.Flags().Changed("temperature")
	if o.setTemp && !(o.Temperature >= 0 && o.Temperature <= 2) { // NaN too
		return flagErrorf("--temperature %g is out of range: use a value from 0 to 2", o.Temperature)
	}
	// 0 given is no cap at all, which the Messages API refuses; not the
	// default, which is what leaving the flag out gives.
	if o.MaxTokens < 0 || (o.MaxTokens == 0 && c.Flags().Changed("max-tokens")) {
		return flagErrorf("--max-tokens %d: must be positive", o.MaxTokens)
	}
	if o.MaxRetries < 0 {
		return flagErrorf("--max-retries %d: must be 0 or more", o.MaxRetries)
	}
	if o.Timeout < 0 {
		return flagErrorf("--timeout %s: must be positive", o.Timeout)
	}
	if o.IdleTimeout < 0 {
		return flagErrorf("--idle-timeout %s: must be positive (0 means no limit)", o.IdleTimeout)
	}
	if o.Provider != "" && !slices.Contains(config.Providers, o.Provider) {
		return flagErrorf("--provider %q: use openai, responses or anthropic", o.Provider)
	}
	return nil
}

// providerName resolves the provider: the flag, else by model name.
func (o *modelOptions) providerName() string { return config.ProviderFor(o.Provider, o.Model) }

// secrets are the key values to keep out of every file and message.
func secrets(ios *IOStreams) *transcript.Redactor { return secretsWith(ios) }

// secretsWith is secrets with more values to keep out: those MCP servers
// were given.
func secretsWith(ios *IOStreams, extra ...string) *transcript.Redactor {
	return transcript.NewRedactor(append([]string{ios.Getenv("OPENAI_API_KEY"), ios.Getenv("ANTHROPIC_API_KEY")}, extra...)...)
}

// liveNet is what the runs of one invocation share: a connection pool,
// the limiter that paces their requests, and the tracing of their spans
// (nil: none). The zero value gives each provider its own.
type liveNet struct {
	engine.Net
	trace *engine.Tracer
}

// engineModel is the model settings resolved for the engine: the
// provider's key, organisation and project from the environment, and the
// base URL from the provider's variable when no setting gave one.
func (o *modelOptions) engineModel(ios *IOStreams) engine.Model {
	name := o.providerName()
	prefix := config.ProviderEnvPrefix(name) // OPENAI_…, ANTHROPIC_…
	m := engine.Model{
		Provider: name, Model: o.Model, ModelFrom: o.modelFrom, BaseURL: o.BaseURL, BaseURLFrom: o.baseURLFrom,
		APIKey: ios.Getenv(prefix + "_API_KEY"), Organization: ios.Getenv("OPENAI_ORG_ID"), Project: ios.Getenv("OPENAI_PROJECT_ID"),
		MaxTokens: o.MaxTokens, MaxRetries: o.MaxRetries, IdleTimeout: o.IdleTimeout, Store: o.Store,
	}
	if m.Model == "" {
		m.Model = config.DefaultModelFor(name)
	}
	if m.BaseURL == "" {
		m.BaseURL = ios.Getenv(prefix + "_BASE_URL")
	}
	if m.BaseURLFrom == "" {
		m.BaseURLFrom = baseURLSource(o.BaseURL, name)
	}
	if o.setTemp {
		t := o.Temperature
		m.Temperature = &t
	}
	return m
}

// baseURLSetting names the setting a resolved base URL came from, as an
// error message tells the user to check it: "" for the default.
func baseURLSetting(src config.Source) string { return settingName(src, "base_url") }

// settingName names the setting a resolved value of the configuration's
// key came from, as an error message tells the user to check it: the flag,
// the variable, or the key at its line of the file; "" for the default.
func settingName(src config.Source, key string) string {
	switch src.Kind {
	case config.SourceFlag, config.SourceEnv:
		return src.Name
	case config.SourceFile:
		return fmt.Sprintf("%s in %s:%d", key, src.File, src.Line)
	}
	return ""
}

// baseURLSource names where a base URL came from: the flag, else the
// provider's variable.
func baseURLSource(flag string, provider string) string {
	if flag != "" {
		return "--base-url"
	}
	return config.ProviderBaseURLEnv(provider)
}
