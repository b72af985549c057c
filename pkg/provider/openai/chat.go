// Package openai holds the providers of OpenAI's two APIs, Chat Completions
// (Chat, which compatible servers such as Ollama, vLLM and llama.cpp's
// speak too) and Responses; with the anthropic package, the only code that
// imports an LLM SDK.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/jsonesc"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider"
)

// BaseURL is the OpenAI API's default address.
const BaseURL = "https://api.openai.com/v1"

// Host is the OpenAI API's own host: a request there needs a key.
const Host = "api.openai.com"

// Config configures the OpenAI providers.
type Config struct {
	// APIKey may be empty for a local server (BaseURL set).
	APIKey  string
	BaseURL string
	Model   string
	// BaseURLFrom names the setting BaseURL came from ("OPENAI_BASE_URL",
	// "base_url in FILE:LINE"), for the hints of errors; "" is --base-url.
	BaseURLFrom string
	// ModelFrom names the setting Model came from ("AGENTLOOP_MODEL",
	// "model in FILE:LINE"), for the hints of errors; "" is --model.
	ModelFrom string
	// MaxRetries is the retry budget for 408/409/429/5xx and connection
	// errors, with backoff (see httpretry.Wrap).
	MaxRetries int
	// IdleTimeout is the longest the server may send nothing, before its
	// response or inside it; 0 is no limit (see httpretry.Wrap).
	IdleTimeout time.Duration
	// Limiter paces the requests; providers that share one slow down
	// together. Nil: a limiter of this provider's own.
	Limiter     *httpretry.Limiter
	Temperature *float64
	// MaxTokens caps the answer's tokens; 0 leaves the server's default.
	MaxTokens int64
	// Organization and Project are sent as OpenAI-Organization and
	// OpenAI-Project when set.
	Organization, Project string
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
}

// Chat talks to an OpenAI Chat Completions API or a compatible server
// (Ollama, vLLM, llama.cpp server, …).
type Chat struct {
	agent.OpenAIDialect
	chat openai.ChatCompletionService
	cfg  Config
}

var _ agent.Provider = (*Chat)(nil)

// NewChat builds the provider. It fails without an API key unless BaseURL
// points at another server.
func NewChat(cfg Config) (*Chat, error) {
	opts, err := openAIOptions("openai", &cfg)
	if err != nil {
		return nil, err
	}
	// Only the Chat Completions service: the SDK's NewClient builds every
	// service of the API and reads credentials from the environment on its
	// own, which links in (and pages in at start-up) code agentloop never
	// runs. The key and the address are the ones agentloop was given.
	return &Chat{chat: openai.NewChatCompletionService(opts...), cfg: cfg}, nil
}

// openAIOptions checks an OpenAI configuration, filling in the default
// address, and returns the client options both OpenAI providers use.
func openAIOptions(name string, cfg *Config) ([]option.RequestOption, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%s: no model given", name)
	}
	isDefault := cfg.BaseURL == "" || provider.OnHost(cfg.BaseURL, Host)
	if cfg.BaseURL == "" {
		cfg.BaseURL = BaseURL
	}
	if isDefault && cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: set OPENAI_API_KEY, or pass --base-url for a local server", provider.ErrNoAPIKey)
	}
	if err := provider.CheckAPIKey("OPENAI_API_KEY", cfg.APIKey); err != nil {
		return nil, err
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = httpretry.DefaultClient()
	}
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(httpretry.Wrap(httpClient, cfg.Limiter, cfg.MaxRetries, cfg.IdleTimeout)),
		option.WithBaseURL(cfg.BaseURL),
		// The transport retries, for every provider alike.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.Organization != "" {
		opts = append(opts, option.WithOrganization(cfg.Organization))
	}
	if cfg.Project != "" {
		opts = append(opts, option.WithProject(cfg.Project))
	}
	return opts, nil
}

// Model is the model asked.
func (o *Chat) Model() string { return o.cfg.Model }

// BaseURL is the server's address.
func (o *Chat) BaseURL() string { return o.cfg.BaseURL }

// Complete sends the conversation and returns the assistant's turn.
func (o *Chat) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	b := o.body(req)
	// The params carry the model only: the body goes as composed.
	params := openai.ChatCompletionNewParams{Model: o.cfg.Model}
	if req.OnText != nil {
		turn, err := o.stream(ctx, params, bodyOptions(b, true), req.OnText)
		if err != nil {
			return nil, provider.AnswerFormatHint(err, req.Answer, "response_format")
		}
		return withBytes(turn, b.Len()), nil
	}
	comp, err := o.chat.New(ctx, params, bodyOptions(b, false)...)
	if err != nil {
		return nil, provider.AnswerFormatHint(o.providerError(err), req.Answer, "response_format")
	}
	if len(comp.Choices) == 0 {
		return nil, &agent.ProviderError{Provider: "openai", Message: "the response has no choices"}
	}
	m := comp.Choices[0].Message
	extras := make([]map[string]any, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		extras[i] = extraFields(tc.AsFunction().JSON.ExtraFields)
	}
	turn, err := o.turn(comp, extraFields(m.JSON.ExtraFields), extras)
	return withBytes(turn, b.Len()), err
}

// body composes a Chat Completions request body from the wire messages.
func (o *Chat) body(req *agent.Request) *provider.Body {
	var system []agent.Message
	if req.System != "" {
		s, _ := jsonesc.Marshal(openai.SystemMessage(req.System))
		system = []agent.Message{s}
	}
	b := provider.NewBody(2 * (len(req.Messages) + len(req.Tools)))
	if req.OnText != nil {
		b.Raw("stream", []byte("true"))
		b.Raw("stream_options", []byte(`{"include_usage":true}`))
	}
	b.Str("model", o.cfg.Model)
	if len(req.Tools) > 0 {
		b.Array("tools", req.Tools, nil)
		// With no tools there is nothing to choose from, and the API
		// refuses a tool_choice.
		if req.ToolChoiceNone {
			b.Str("tool_choice", "none")
		}
	}
	if o.cfg.Temperature != nil {
		b.Float("temperature", *o.cfg.Temperature)
	}
	if o.cfg.MaxTokens > 0 {
		b.Num("max_completion_tokens", o.cfg.MaxTokens)
	}
	if req.Answer != nil {
		b.Raw("response_format", chatResponseFormat(req.Answer))
	}
	b.Array("messages", system, req.Messages)
	b.End()
	return b
}

// bodyOptions have the SDK send b as its pieces, not joined (see body).
// The SDK takes a body as a reader, which it would send without a length
// and could not read again for a retry: a middleware of the SDK's, which
// sees every attempt, gives each one the body with both (sized).
//
// A streamed request's SDK call sets "stream" again in the body it was
// given, and only a buffer will do for that: it is given a stand-in, which
// the middleware replaces in the same way. The body as composed has
// "stream" already.
func bodyOptions(b *provider.Body, streamed bool) []option.RequestOption {
	var given any = b.Reader()
	if streamed {
		given = []byte("{}")
	}
	return []option.RequestOption{
		option.WithRequestBody("application/json", given),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			b.Sized(r)
			return next(r)
		}),
	}
}

// withBytes notes the size of the request body that got a turn.
func withBytes(t *agent.Turn, n int) *agent.Turn {
	if t != nil {
		t.RequestBytes = n
	}
	return t
}

func (o *Chat) stream(ctx context.Context, params openai.ChatCompletionNewParams, send []option.RequestOption, onText func(string)) (*agent.Turn, error) {
	s := o.chat.NewStreaming(httpretry.WithStreamed(ctx), params, send...)
	defer s.Close()
	var acc openai.ChatCompletionAccumulator
	// The accumulator keeps only the fields the SDK models; the rest
	// (reasoning_content deltas, provider extensions on tool calls) are
	// gathered here so the turn goes back whole.
	msgExtra := extraAccumulator{}
	callExtra := map[int64]extraAccumulator{}
	for s.Next() {
		chunk := s.Current()
		acc.AddChunk(chunk)
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			msgExtra.add(c.Delta.JSON.ExtraFields)
			for _, tc := range c.Delta.ToolCalls {
				if len(tc.JSON.ExtraFields) > 0 {
					if callExtra[tc.Index] == nil {
						callExtra[tc.Index] = extraAccumulator{}
					}
					callExtra[tc.Index].add(tc.JSON.ExtraFields)
				}
			}
			if c.Delta.Content != "" {
				onText(c.Delta.Content)
			}
		}
	}
	if err := s.Err(); err != nil {
		return nil, o.providerError(err)
	}
	if len(acc.Choices) == 0 {
		return nil, &agent.ProviderError{Provider: "openai", Message: "the stream ended without a choice"}
	}
	// A stream that stops without a finish reason (the server or a proxy
	// gave up, the connection closed cleanly) holds part of a message:
	// taken as the answer it would be a shorter, wrong one.
	if acc.Choices[0].FinishReason == "" {
		return nil, &agent.ProviderError{Provider: "openai", Message: "the stream ended before the message was complete"}
	}
	extras := make([]map[string]any, len(acc.Choices[0].Message.ToolCalls))
	for i, e := range callExtra {
		if int(i) < len(extras) {
			extras[i] = e.fields()
		}
	}
	return o.turn(&acc.ChatCompletion, msgExtra.fields(), extras)
}

// extraAccumulator gathers a streamed message's unmodelled fields: string
// values arrive as deltas and are joined, other values replace each other.
// A string is joined as text and encoded once, at the end: joined as JSON
// at each delta, a long reasoning_content took time that grew with the
// square of its length.
type extraAccumulator map[string]*extraField

type extraField struct {
	raw      json.RawMessage // the value as it came, when one delta did
	isString bool
	text     *strings.Builder // the strings of two deltas or more, joined
}

func (a extraAccumulator) add(fields map[string]respjson.Field) {
	for k, f := range fields {
		raw := f.Raw()
		if raw == "" || raw == respjson.Omitted || raw == "null" {
			continue
		}
		var delta string
		isString := json.Unmarshal([]byte(raw), &delta) == nil
		prev, ok := a[k]
		if !ok || !isString || !prev.isString {
			a[k] = &extraField{raw: json.RawMessage(raw), isString: isString}
			continue
		}
		if prev.text == nil {
			var sofar string
			_ = json.Unmarshal(prev.raw, &sofar)
			prev.text = &strings.Builder{}
			prev.text.WriteString(sofar)
			prev.raw = nil
		}
		prev.text.WriteString(delta)
	}
}

func (a extraAccumulator) fields() map[string]any {
	if len(a) == 0 {
		return nil
	}
	out := make(map[string]any, len(a))
	for k, v := range a {
		if v.text != nil {
			b, _ := json.Marshal(v.text.String())
			out[k] = json.RawMessage(b)
			continue
		}
		out[k] = v.raw
	}
	return out
}

// turn makes a Turn of the first choice; msgExtra and callExtra are the
// message's and each tool call's unmodelled fields.
func (o *Chat) turn(comp *openai.ChatCompletion, msgExtra map[string]any, callExtra []map[string]any) (*agent.Turn, error) {
	choice := comp.Choices[0]
	msg, err := assistantMessage(choice.Message, msgExtra, callExtra)
	if err != nil {
		return nil, &agent.ProviderError{Provider: "openai", Message: "cannot re-encode the assistant message: " + err.Error(), Err: err}
	}
	turn, err := o.ParseAssistant(msg)
	if err != nil {
		return nil, &agent.ProviderError{Provider: "openai", Message: err.Error(), Err: err}
	}
	turn.FinishReason = choice.FinishReason
	turn.ResponseID, turn.ResponseModel = comp.ID, comp.Model
	switch {
	case choice.FinishReason == "length":
		turn.Stop = agent.StopMaxTokens
	case choice.Message.Refusal != "" && len(turn.Calls) == 0:
		turn.Stop = agent.StopRefusal
		if turn.Text == "" {
			turn.Text = choice.Message.Refusal
		}
	case len(turn.Calls) > 0:
		// Some servers say "stop" for a turn with tool calls; the calls decide.
		turn.Stop = agent.StopToolUse
	default:
		turn.Stop = agent.StopEnd
	}
	if turn.Stop == agent.StopEnd && turn.Empty() {
		return nil, &agent.ProviderError{Provider: "openai", Message: "the response has no content: neither text nor tool calls"}
	}
	u := comp.Usage
	turn.Usage.InputTokens = u.PromptTokens
	turn.Usage.OutputTokens = u.CompletionTokens
	turn.Usage.CacheReadInputTokens = u.PromptTokensDetails.CachedTokens
	turn.Usage.ReasoningTokens = u.CompletionTokensDetails.ReasoningTokens
	return turn, nil
}

// assistantMessage converts a returned message into the message that goes
// back, through the SDK's ToParam, then restores what ToParam cannot know:
// fields the SDK does not model (reasoning_content from DeepSeek and vLLM,
// provider extensions on tool calls such as Gemini's thought signatures),
// which servers require to be sent back unchanged.
func assistantMessage(m openai.ChatCompletionMessage, msgExtra map[string]any, callExtra []map[string]any) (agent.Message, error) {
	p := m.ToAssistantMessageParam()
	for i, tc := range m.ToolCalls {
		if i >= len(p.ToolCalls) {
			break
		}
		if tc.Type != "function" && tc.Type != "" {
			continue
		}
		fn := tc.AsFunction()
		if p.ToolCalls[i].OfFunction == nil {
			// A server that leaves out "type" (some local ones do) still
			// made a function call; ToParam drops it without a type.
			p.ToolCalls[i].OfFunction = &openai.ChatCompletionMessageFunctionToolCallParam{
				ID:       fn.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Arguments: fn.Function.Arguments, Name: fn.Function.Name},
			}
		}
		if i < len(callExtra) && callExtra[i] != nil {
			p.ToolCalls[i].OfFunction.SetExtraFields(callExtra[i])
		}
		if extra := extraFields(fn.Function.JSON.ExtraFields); extra != nil {
			p.ToolCalls[i].OfFunction.Function.SetExtraFields(extra)
		}
	}
	if msgExtra != nil {
		p.SetExtraFields(msgExtra)
	}
	return json.Marshal(openai.ChatCompletionMessageParamUnion{OfAssistant: &p})
}

func extraFields(fields map[string]respjson.Field) map[string]any {
	var out map[string]any
	for k, f := range fields {
		raw := f.Raw()
		if raw == "" || raw == respjson.Omitted || raw == "null" {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = json.RawMessage(raw)
	}
	return out
}

func (o *Chat) providerError(err error) error {
	return apiError(endpointOf(o.Name(), &o.cfg), err)
}

// endpointOf is where the requests of an OpenAI provider go, for its
// errors.
func endpointOf(name string, cfg *Config) provider.Endpoint {
	return provider.Endpoint{Provider: name, Host: Host, KeyVar: "OPENAI_API_KEY", HasKey: cfg.APIKey != "",
		Model: cfg.Model, ModelFrom: cfg.ModelFrom, BaseURL: cfg.BaseURL, URLFrom: cfg.BaseURLFrom, Retries: cfg.MaxRetries, UnderV1: true}
}

// apiError is err as a *agent.ProviderError: an error status the SDK
// reported, or a request that got no usable response.
func apiError(e provider.Endpoint, err error) *agent.ProviderError {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return e.TransportError(err)
	}
	return e.APIError(apiErr.StatusCode, apiErr.Message, apiErr.Response, err)
}
