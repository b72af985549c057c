package cmd

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
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

// liveNet is what the providers of one invocation share: a connection pool
// and the limiter that paces their requests. The zero value gives each
// provider its own.
type liveNet struct {
	client  *http.Client
	limiter *httpretry.Limiter
	// trace, when set, traces the runs (see runTracer).
	trace *runTracer
}

// newProvider builds the provider the options name, and says the address it
// talks to. serverClearing, when set, has the (Anthropic) API clear old
// tool results itself.
func newProvider(ios *IOStreams, o *modelOptions, net liveNet, serverClearing *agent.ContextPolicy) (agent.Provider, string, error) {
	name := o.providerName()
	api, ok := providers[wire.Shape(name)]
	if !ok {
		return nil, "", flagErrorf("--provider %q: use openai, responses or anthropic", name)
	}
	if o.Store && !api.store {
		return nil, "", flagErrorf("--store keeps responses on the server: it applies to --provider responses only (the provider is %s)", name)
	}
	if o.MaxTokens > 0 && o.MaxTokens < api.minMaxTokens {
		// Every request would be refused ("integer below minimum value").
		return nil, "", flagErrorf("--max-tokens %d: the %s API takes at least %d (max_output_tokens)", o.MaxTokens, api.title, api.minMaxTokens)
	}
	if o.Model == "" {
		o.Model = config.DefaultModelFor(name)
	}
	prefix := config.ProviderEnvPrefix(name) // OPENAI_…, ANTHROPIC_…
	baseURL := o.BaseURL
	if baseURL == "" {
		baseURL = ios.Getenv(prefix + "_BASE_URL")
	}
	from := o.baseURLFrom
	if from == "" {
		from = baseURLSource(o.BaseURL, name)
	}
	if err := checkBaseURL(baseURL, from); err != nil {
		return nil, "", err
	}
	var temp *float64
	if o.setTemp {
		t := o.Temperature
		temp = &t
	}
	p, err := api.new(providerSettings{
		APIKey: ios.Getenv(prefix + "_API_KEY"), BaseURL: baseURL, BaseURLFrom: from, Model: o.Model, ModelFrom: o.modelFrom,
		Organization: ios.Getenv("OPENAI_ORG_ID"), Project: ios.Getenv("OPENAI_PROJECT_ID"),
		Temperature: temp, MaxTokens: o.MaxTokens, MaxRetries: o.MaxRetries, IdleTimeout: o.IdleTimeout,
		HTTPClient: net.client, Limiter: net.limiter, Store: o.Store, ServerClearing: serverClearing,
	})
	if errors.Is(err, provider.ErrNoAPIKey) || errors.Is(err, provider.ErrBadAPIKey) {
		return nil, "", &ExitError{Code: ExitProvider, Err: err}
	}
	if err != nil {
		return nil, "", err
	}
	return p, p.BaseURL(), nil
}

// remoteProvider is a provider that talks to a server.
type remoteProvider interface {
	agent.Provider
	// BaseURL is the server's address.
	BaseURL() string
}

// providerSettings are what a run gives the provider it builds, whichever
// API it is; each takes the settings its API has.
type providerSettings struct {
	APIKey, BaseURL, BaseURLFrom string
	Model, ModelFrom             string
	// Organization and Project are OpenAI's.
	Organization, Project string
	Temperature           *float64
	MaxTokens             int64
	MaxRetries            int
	IdleTimeout           time.Duration
	HTTPClient            *http.Client
	Limiter               *httpretry.Limiter
	// Store keeps responses on the server (responses).
	Store bool
	// ServerClearing has the API clear old tool results itself (anthropic).
	ServerClearing *agent.ContextPolicy
}

func (s providerSettings) openAI() openai.Config {
	return openai.Config{
		APIKey: s.APIKey, BaseURL: s.BaseURL, BaseURLFrom: s.BaseURLFrom, Model: s.Model, ModelFrom: s.ModelFrom,
		Organization: s.Organization, Project: s.Project, Temperature: s.Temperature, MaxTokens: s.MaxTokens,
		MaxRetries: s.MaxRetries, IdleTimeout: s.IdleTimeout, HTTPClient: s.HTTPClient, Limiter: s.Limiter,
	}
}

// providerAPI is one API --provider names: how its provider is built, and
// what of the run's settings it takes.
type providerAPI struct {
	new func(providerSettings) (remoteProvider, error)
	// title names the API in messages ("the Responses API").
	title string
	// baseURL is the API's own address, used when none is set.
	baseURL string
	// store is set when the API keeps responses on the server if asked
	// (--store).
	store bool
	// minMaxTokens is the least --max-tokens the API takes; 0 is any.
	minMaxTokens int64
	// serverClearing is set when the API can clear old tool results
	// itself (context_editing: server).
	serverClearing bool
}

// providers are the APIs by the name --provider takes. A new API is a
// package under pkg/provider, a shape in pkg/wire and a row here.
var providers = map[wire.Shape]providerAPI{
	wire.Chat: {
		new: func(s providerSettings) (remoteProvider, error) {
			return openai.NewChat(s.openAI())
		},
		title: "Chat Completions", baseURL: openai.BaseURL,
	},
	wire.Responses: {
		new: func(s providerSettings) (remoteProvider, error) {
			return openai.NewResponses(openai.ResponsesConfig{Config: s.openAI(), Store: s.Store})
		},
		title: "Responses", baseURL: openai.BaseURL, store: true, minMaxTokens: config.MinResponsesOutputTokens,
	},
	wire.Messages: {
		new: func(s providerSettings) (remoteProvider, error) {
			return anthropic.NewMessages(anthropic.Config{
				APIKey: s.APIKey, BaseURL: s.BaseURL, BaseURLFrom: s.BaseURLFrom, Model: s.Model, ModelFrom: s.ModelFrom,
				Temperature: s.Temperature, MaxTokens: s.MaxTokens, MaxRetries: s.MaxRetries, IdleTimeout: s.IdleTimeout,
				HTTPClient: s.HTTPClient, Limiter: s.Limiter, ServerClearing: s.ServerClearing,
			})
		},
		title: "Messages", baseURL: anthropic.BaseURL, serverClearing: true,
	},
}
