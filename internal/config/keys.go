// Package config resolves agentloop's settings. Each setting comes from
// the first of these that gives it:
//
//  1. a flag on the command line
//  2. an AGENTLOOP_* environment variable
//     (base_url: then the provider's own OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
//  3. the configuration file: the selected profile, then the top level
//  4. the built-in default
//
// The package is in three layers that do not mix: the table of settings
// (keys.go), the file parser (file.go) and the resolution (resolve.go);
// values.go holds how a value is written, which the last two share.
// It reads nothing itself but the configuration file: the flags, the
// environment and the folders come in an Input. docs/configuration.md
// describes the file; keep the two in step.
package config

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// FileName is the configuration file's name in $XDG_CONFIG_HOME/agentloop.
const FileName = "config.yaml"

// ProfileEnv selects a profile when --profile is not given.
const ProfileEnv = "AGENTLOOP_PROFILE"

// Built-in defaults that are not the loop's.
const (
	// DefaultModel is the model asked when neither a flag nor the
	// configuration names one, and no provider is named either.
	DefaultModel = "gpt-4o-mini"
	// DefaultAnthropicModel is the default model of the anthropic provider.
	DefaultAnthropicModel = "claude-sonnet-4-5"
	// DefaultResponsesModel is the default model of the responses provider.
	DefaultResponsesModel = "gpt-5-mini"
	// DefaultMaxRetries is the default of max_retries.
	DefaultMaxRetries = 2
	// MinResponsesOutputTokens is the least max_output_tokens (--max-tokens)
	// the Responses API takes.
	MinResponsesOutputTokens = 16
)

// Providers are the values of provider: OpenAI Chat Completions, the
// OpenAI Responses API, Anthropic Messages.
var Providers = []string{string(wire.Chat), string(wire.Responses), string(wire.Messages)}

// providerDefaults are each provider's defaults: its model, and the
// prefix of its variables (OPENAI for both OpenAI APIs).
var providerDefaults = map[wire.Shape]struct{ model, envPrefix string }{
	wire.Chat:      {DefaultModel, "OPENAI"},
	wire.Responses: {DefaultResponsesModel, "OPENAI"},
	wire.Messages:  {DefaultAnthropicModel, "ANTHROPIC"},
}

// defaultsOf are a provider's defaults; Chat Completions' for a name not
// known.
func defaultsOf(provider string) struct{ model, envPrefix string } {
	if d, ok := providerDefaults[wire.Shape(provider)]; ok {
		return d
	}
	return providerDefaults[wire.Chat]
}

// DefaultModelFor is the default model of a provider.
func DefaultModelFor(provider string) string { return defaultsOf(provider).model }

// reasoningModel matches the names of OpenAI's reasoning models (o1, o3,
// o4-mini, the gpt-5 family, codex-mini), whose reasoning the Responses API
// carries from one step to the next and Chat Completions throws away.
var reasoningModel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(o[1-9][0-9]*(-|$)|gpt-5|codex-)`) })

// ProviderFor is the provider a configuration chooses: the one named, else
// the one a model's name implies: anthropic for claude-*, responses for an
// OpenAI reasoning model, openai (Chat Completions, which compatible
// servers speak) for any other.
func ProviderFor(provider, model string) string {
	switch {
	case provider != "":
		return provider
	case strings.HasPrefix(model, "claude"):
		return string(wire.Messages)
	case reasoningModel().MatchString(model):
		return string(wire.Responses)
	}
	return string(wire.Chat)
}

// ProviderEnvPrefix is the prefix of a provider's variables: OPENAI for
// both OpenAI APIs, ANTHROPIC.
func ProviderEnvPrefix(provider string) string { return defaultsOf(provider).envPrefix }

// Kind is how a setting's value is written and read.
type Kind int

const (
	String   Kind = iota
	Int           // a whole number
	Duration      // 30s, 5m, 1h30m
	Path          // a path; ~/ is the home folder
	PathList      // paths; colon-separated in the environment
	List          // strings; the file only
	Number        // a decimal number, e.g. 0.50
	Servers       // MCP servers, NAME: {keys}; the file only
	Bool          // true or false
)

// Key is one setting of the configuration.
type Key struct {
	Name string // in the file
	Env  string // the AGENTLOOP_* variable, "" for none
	Flag string // the flag of the commands that take one, "" for none
	Kind Kind
	// Check returns what is wrong with a value, or "".
	Check func(v any) string
}

// Keys are the settings, in the order config show prints them.
var Keys = []Key{
	{Name: "model", Env: "AGENTLOOP_MODEL", Flag: "model", Kind: String, Check: checkModel},
	{Name: "provider", Env: "AGENTLOOP_PROVIDER", Flag: "provider", Kind: String, Check: checkProvider},
	{Name: "base_url", Env: "AGENTLOOP_BASE_URL", Flag: "base-url", Kind: String, Check: checkBaseURL},
	{Name: "tools_dirs", Env: "AGENTLOOP_TOOLS_DIRS", Flag: "tools-dir", Kind: PathList, Check: noEmptyItem},
	{Name: "max_steps", Env: "AGENTLOOP_MAX_STEPS", Flag: "max-steps", Kind: Int, Check: atLeast(1, "must be at least 1")},
	{Name: "max_total_tokens", Env: "AGENTLOOP_MAX_TOTAL_TOKENS", Flag: "max-total-tokens", Kind: Int, Check: atLeast(0, noLimit)},
	{Name: "max_cost", Env: "AGENTLOOP_MAX_COST", Flag: "max-cost", Kind: Number, Check: notNegativeNumber},
	{Name: "context_limit", Env: "AGENTLOOP_CONTEXT_LIMIT", Flag: "context-limit", Kind: Int, Check: atLeast(0, noLimit)},
	{Name: "context_keep", Env: "AGENTLOOP_CONTEXT_KEEP", Kind: Int, Check: atLeast(0, "must be 0 or more")},
	{Name: "context_keep_tools", Kind: List, Check: noEmptyItem},
	{Name: "context_clear_at_least", Env: "AGENTLOOP_CONTEXT_CLEAR_AT_LEAST", Kind: Int, Check: atLeast(0, "must be 0 or more (0: a fifth of context_limit)")},
	{Name: "context_editing", Env: "AGENTLOOP_CONTEXT_EDITING", Kind: String, Check: checkContextEditing},
	{Name: "parallel", Env: "AGENTLOOP_PARALLEL", Flag: "parallel", Kind: Int, Check: atLeast(1, "must be at least 1")},
	{Name: "transcript_dir", Env: "AGENTLOOP_TRANSCRIPT_DIR", Kind: Path, Check: notEmpty},
	{Name: "max_retries", Env: "AGENTLOOP_MAX_RETRIES", Flag: "max-retries", Kind: Int, Check: atLeast(0, "must be 0 or more")},
	{Name: "timeout", Env: "AGENTLOOP_TIMEOUT", Flag: "timeout", Kind: Duration, Check: notNegative},
	{Name: "idle_timeout", Env: "AGENTLOOP_IDLE_TIMEOUT", Flag: "idle-timeout", Kind: Duration, Check: notNegative},
	{Name: "system", Env: "AGENTLOOP_SYSTEM", Flag: "system", Kind: String},
	{Name: "models", Kind: List, Check: noEmptyItem},
	{Name: "mcp_config", Env: "AGENTLOOP_MCP_CONFIG", Flag: "mcp-config", Kind: PathList, Check: noEmptyItem},
	{Name: "mcp_servers", Kind: Servers},
	{Name: "sandbox", Env: "AGENTLOOP_SANDBOX", Flag: "sandbox", Kind: String, Check: checkSandbox},
	{Name: "sandbox_required", Env: "AGENTLOOP_SANDBOX_REQUIRED", Flag: "sandbox-required", Kind: Bool},
	{Name: "otel", Env: "AGENTLOOP_OTEL", Flag: "otel", Kind: Bool},
	{Name: "schema", Env: "AGENTLOOP_SCHEMA", Flag: "schema", Kind: String},
	{Name: "schema_retries", Env: "AGENTLOOP_SCHEMA_RETRIES", Flag: "schema-retries", Kind: Int, Check: atLeast(0, "must be 0 or more")},
	{Name: "schema_mode", Env: "AGENTLOOP_SCHEMA_MODE", Flag: "schema-mode", Kind: String, Check: checkSchemaMode},
	{Name: "batch_api", Env: "AGENTLOOP_BATCH_API", Flag: "batch-api", Kind: Bool},
}

// DefaultSchemaRetries is the default of schema_retries.
const DefaultSchemaRetries = 1

func checkSchemaMode(v any) string {
	switch v.(string) {
	case transcript.SchemaNative, transcript.SchemaPrompt:
		return ""
	}
	return "use native or prompt"
}

// DefaultSandbox is the sandbox mode of script tools when no setting
// chooses one: the most restricted in which the example tools work (they
// read, and http_get declares network: true).
const DefaultSandbox = sandbox.ReadOnly

func checkSandbox(v any) string {
	if _, err := sandbox.ParseMode(v.(string)); err != nil {
		return "use off, read-only or workspace-write"
	}
	return ""
}

// Lookup finds a key by its name in the file.
func Lookup(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// defaultValue is a key's built-in default; transcript_dir's is under the
// state folder.
func defaultValue(k Key, stateDir string) any {
	switch k.Name {
	case "model":
		return DefaultModel
	case "max_steps":
		return agent.DefaultMaxSteps
	case "parallel":
		return agent.DefaultParallel
	case "max_retries":
		return DefaultMaxRetries
	case "idle_timeout":
		return httpretry.DefaultIdleTimeout
	case "context_keep":
		return agent.DefaultContextKeep
	case "context_editing":
		return ContextEditingClient
	case "sandbox":
		return string(DefaultSandbox)
	case "schema_retries":
		return DefaultSchemaRetries
	case "schema_mode":
		return transcript.SchemaNative
	case "transcript_dir":
		return filepath.Join(stateDir, "transcripts")
	}
	switch k.Kind {
	case Int:
		return 0
	case Duration:
		return time.Duration(0)
	case List, PathList:
		return []string(nil)
	case Number:
		return 0.0
	case Servers:
		return []*mcp.Config(nil)
	case Bool:
		return false
	}
	return ""
}

// The values of context_editing.
const (
	// ContextEditingClient clears old tool results in what agentloop sends.
	ContextEditingClient = "client"
	// ContextEditingServer has the Anthropic API clear them
	// (clear_tool_uses_20250919).
	ContextEditingServer = "server"
)

const noLimit = "must be 0 or more (0 means no limit)"

func checkContextEditing(v any) string {
	switch v.(string) {
	case ContextEditingClient, ContextEditingServer:
		return ""
	}
	return "use client or server"
}

func notNegativeNumber(v any) string {
	if f := v.(float64); !(f >= 0) || math.IsInf(f, 0) { // NaN too
		return noLimit
	}
	return ""
}

func notEmpty(v any) string {
	if v.(string) == "" {
		return "must not be empty"
	}
	return ""
}

// checkModel refuses a model name no API has: empty, or with a space or a
// line end around it (a variable set from a file with a line end, a name
// pasted with a space), which the API answers with a 404 for a model that
// looks like the right one.
func checkModel(v any) string {
	s := v.(string)
	if s == "" {
		return "must not be empty"
	}
	if strings.TrimSpace(s) != s {
		return fmt.Sprintf("has a space or a line end around the name; write %q", strings.TrimSpace(s))
	}
	return ""
}

func checkProvider(v any) string {
	if slices.Contains(Providers, v.(string)) {
		return ""
	}
	return "use openai, responses or anthropic"
}

func checkBaseURL(v any) string { return BaseURLProblem(v.(string)) }

func noEmptyItem(v any) string {
	for _, s := range v.([]string) {
		if s == "" {
			return "an entry is empty"
		}
	}
	return ""
}

func atLeast(n int, msg string) func(any) string {
	return func(v any) string {
		if v.(int) < n {
			return msg
		}
		return ""
	}
}

func notNegative(v any) string {
	if v.(time.Duration) < 0 {
		return "must be positive (0 means no limit)"
	}
	return ""
}

// BaseURLProblem says what makes a base URL one no request can be made
// to, or "" when it is usable. The SDKs would report such an address as an
// API error, exit 4, in their own words; agentloop refuses it before any
// request, wherever it came from (a flag, a variable, the configuration
// file, a transcript).
func BaseURLProblem(raw string) string {
	if raw == "" {
		return "" // the provider's default
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("is not a URL: %v", unwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "want an http:// or https:// URL, e.g. http://localhost:11434/v1"
	case u.Hostname() == "":
		return "has no host"
	}
	return ""
}

// unwrapURLError drops the *url.Error wrapping, which repeats the URL.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
