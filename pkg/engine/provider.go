package engine

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Model is the model a run asks and how it is asked, every value
// resolved: the flags, the environment, the configuration file and a
// recording have had their say.
type Model struct {
	// Provider is the API by the name --provider takes.
	Provider string
	Model    string
	// ModelFrom names where Model came from, for error messages; "" is
	// the flag.
	ModelFrom string
	// APIKey is the provider's key; Organization and Project OpenAI's.
	APIKey                string
	Organization, Project string
	// BaseURL is the server's address, "" for the API's own; BaseURLFrom
	// names the setting that gave it (a flag, a variable, a line of the
	// file), for error messages.
	BaseURL, BaseURLFrom string
	Temperature          *float64
	MaxTokens            int64
	MaxRetries           int
	// IdleTimeout is the longest the server may send nothing; 0 is no
	// limit.
	IdleTimeout time.Duration
	// Store keeps responses on the server (responses only).
	Store bool
}

// Net is what the providers of one command share: a connection pool and
// the limiter that paces their requests. The zero value gives each
// provider its own.
type Net struct {
	Client  *http.Client
	Limiter *httpretry.Limiter
}

// remoteProvider is a provider that talks to a server.
type remoteProvider interface {
	agent.Provider
	// BaseURL is the server's address.
	BaseURL() string
}

// api is one API --provider names: how its provider is built, and what of
// the run's settings it takes.
type api struct {
	new func(m Model, net Net, serverClearing *agent.ContextPolicy) (remoteProvider, error)
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

func openAIConfig(m Model, net Net) openai.Config {
	return openai.Config{
		APIKey: m.APIKey, BaseURL: m.BaseURL, BaseURLFrom: m.BaseURLFrom, Model: m.Model, ModelFrom: m.ModelFrom,
		Organization: m.Organization, Project: m.Project, Temperature: m.Temperature, MaxTokens: m.MaxTokens,
		MaxRetries: m.MaxRetries, IdleTimeout: m.IdleTimeout, HTTPClient: net.Client, Limiter: net.Limiter,
	}
}

// apis are the APIs by the name --provider takes. A new API is a package
// under pkg/provider, a shape in pkg/wire and a row here.
var apis = map[wire.Shape]api{
	wire.Chat: {
		new: func(m Model, net Net, _ *agent.ContextPolicy) (remoteProvider, error) {
			return openai.NewChat(openAIConfig(m, net))
		},
		title: "Chat Completions", baseURL: openai.BaseURL,
	},
	wire.Responses: {
		new: func(m Model, net Net, _ *agent.ContextPolicy) (remoteProvider, error) {
			return openai.NewResponses(openai.ResponsesConfig{Config: openAIConfig(m, net), Store: m.Store})
		},
		title: "Responses", baseURL: openai.BaseURL, store: true, minMaxTokens: config.MinResponsesOutputTokens,
	},
	wire.Messages: {
		new: func(m Model, net Net, serverClearing *agent.ContextPolicy) (remoteProvider, error) {
			return anthropic.NewMessages(anthropic.Config{
				APIKey: m.APIKey, BaseURL: m.BaseURL, BaseURLFrom: m.BaseURLFrom, Model: m.Model, ModelFrom: m.ModelFrom,
				Temperature: m.Temperature, MaxTokens: m.MaxTokens, MaxRetries: m.MaxRetries, IdleTimeout: m.IdleTimeout,
				HTTPClient: net.Client, Limiter: net.Limiter, ServerClearing: serverClearing,
			})
		},
		title: "Messages", baseURL: anthropic.BaseURL, serverClearing: true,
	},
}

// DefaultBaseURL is the address of the API --provider names, used when
// none is set.
func DefaultBaseURL(name string) (string, bool) {
	a, ok := apis[wire.Shape(name)]
	return a.baseURL, ok
}

// IsDefaultBaseURL reports whether u is one of the APIs' own addresses.
func IsDefaultBaseURL(u string) bool {
	for _, a := range apis {
		if config.SameBaseURL(u, a.baseURL) {
			return true
		}
	}
	return false
}

// NewProvider builds the provider m names. serverClearing, when set, has
// the (Anthropic) API clear old tool results itself. A key missing or
// malformed is a Key error; a setting the API does not take, a Flag error.
func NewProvider(m Model, net Net, serverClearing *agent.ContextPolicy) (agent.Provider, error) {
	a, ok := apis[wire.Shape(m.Provider)]
	if !ok {
		return nil, flagf("--provider %q: use openai, responses or anthropic", m.Provider)
	}
	if m.Store && !a.store {
		return nil, flagf("--store keeps responses on the server: it applies to --provider responses only (the provider is %s)", m.Provider)
	}
	if m.MaxTokens > 0 && m.MaxTokens < a.minMaxTokens {
		// Every request would be refused ("integer below minimum value").
		return nil, flagf("--max-tokens %d: the %s API takes at least %d (max_output_tokens)", m.MaxTokens, a.title, a.minMaxTokens)
	}
	if m.Model == "" {
		m.Model = config.DefaultModelFor(m.Provider)
	}
	if err := CheckBaseURL(m.BaseURL, m.BaseURLFrom); err != nil {
		return nil, err
	}
	p, err := a.new(m, net, serverClearing)
	if errors.Is(err, provider.ErrNoAPIKey) || errors.Is(err, provider.ErrBadAPIKey) {
		return nil, &SetupError{Kind: Key, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// BaseURLOf is the address a provider NewProvider built talks to.
func BaseURLOf(p agent.Provider) string {
	if r, ok := p.(remoteProvider); ok {
		return r.BaseURL()
	}
	return ""
}

// Passing reports whether a provider error may pass when the same
// request is sent again later: the network, a timeout, the rate limit,
// the server's fault, a response that was not what it should be. A run
// one of those ended is worth going on with. A request the API refused as
// it is (400, 422), or a setting it refused (the key: 401, 403; the model
// or address: 404; an https:// address of a plain HTTP server), is not: it
// is fixed, and run again, first. But a --store request whose previous
// response the server does not hold goes on in a resume, which sends the
// whole conversation.
func Passing(pe *agent.ProviderError) bool {
	if errors.Is(pe, http.ErrSchemeMismatch) {
		return false
	}
	if errors.Is(pe, openai.ErrPreviousResponseNotFound) {
		return true
	}
	if errors.Is(pe, provider.ErrAnswerFormatRefused) {
		// A 500 of a server without structured output: it refuses the
		// field every time.
		return false
	}
	switch pe.Status {
	case http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity:
		return false
	}
	return true
}

// ProviderErrorText reports whether an end record's error is one a
// provider error writes (it starts with the name of an API of the table)
// or a time limit does.
func ProviderErrorText(msg string) bool {
	for shape := range apis {
		if strings.HasPrefix(msg, string(shape)+": ") {
			return true
		}
	}
	return strings.HasPrefix(msg, ErrTimeout.Error())
}
