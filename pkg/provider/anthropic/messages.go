// Package anthropic holds the provider of Anthropic's Messages API; with
// the openai package, the only code that imports an LLM SDK.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/respjson"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/jsonesc"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider"
)

// BaseURL is the Messages API's default address.
const BaseURL = "https://api.anthropic.com"

// Host is the Anthropic API's own host: a request there needs a key.
const Host = "api.anthropic.com"

// DefaultMaxTokens is sent when no --max-tokens is given: the API
// requires a value.
const DefaultMaxTokens = 4096

// Config configures the Anthropic provider.
type Config struct {
	APIKey  string
	BaseURL string
	Model   string
	// BaseURLFrom names the setting BaseURL came from ("OPENAI_BASE_URL",
	// "base_url in FILE:LINE"), for the hints of errors; "" is --base-url.
	BaseURLFrom string
	// ModelFrom names the setting Model came from ("AGENTLOOP_MODEL",
	// "model in FILE:LINE"), for the hints of errors; "" is --model.
	ModelFrom  string
	MaxRetries int
	// IdleTimeout is the longest the server may send nothing, before its
	// response or inside it; 0 is no limit (see httpretry.Wrap).
	IdleTimeout time.Duration
	MaxTokens   int64
	Temperature *float64
	HTTPClient  *http.Client
	// ServerClearing, when on, has the API clear old tool results itself
	// (context management, a beta of the Messages API) instead of the
	// loop.
	ServerClearing *agent.ContextPolicy
	// Limiter paces the requests; providers that share one slow down
	// together. Nil: a limiter of this provider's own.
	Limiter *httpretry.Limiter
}

// Messages talks to the Anthropic Messages API.
type Messages struct {
	agent.AnthropicDialect
	messages anthropic.MessageService
	cfg      Config
	// given is the base URL as it was given, for errors to name.
	given string
}

var _ agent.Provider = (*Messages)(nil)

// NewMessages builds the provider. It fails without an API key unless
// BaseURL points at another server.
func NewMessages(cfg Config) (*Messages, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic: no model given")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = BaseURL
	}
	given := cfg.BaseURL
	cfg.BaseURL = anthropicRoot(cfg.BaseURL)
	isDefault := provider.OnHost(cfg.BaseURL, Host)
	if isDefault && cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: set ANTHROPIC_API_KEY, or pass --base-url for another server", provider.ErrNoAPIKey)
	}
	if err := provider.CheckAPIKey("ANTHROPIC_API_KEY", cfg.APIKey); err != nil {
		return nil, err
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	// Only the Messages service: the SDK's NewClient builds every service of
	// the API and reads credentials from the environment on its own, which
	// links in (and pages in at start-up) code agentloop never runs. The
	// key and the address are the ones agentloop was given.
	return &Messages{messages: anthropic.NewMessageService(requestOptions(&cfg)...), cfg: cfg, given: given}, nil
}

// requestOptions are the SDK options of every service: the address and
// key agentloop was given, through its retrying transport.
func requestOptions(cfg *Config) []aoption.RequestOption {
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = httpretry.DefaultClient()
	}
	opts := []aoption.RequestOption{
		aoption.WithEnvironmentProduction(),
		aoption.WithHTTPClient(httpretry.Wrap(httpClient, cfg.Limiter, cfg.MaxRetries, cfg.IdleTimeout)),
		aoption.WithBaseURL(cfg.BaseURL),
		// The transport retries, for every provider alike.
		aoption.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, aoption.WithAPIKey(cfg.APIKey))
	}
	return opts
}

// anthropicRoot drops a final /v1 from a base URL. The SDK adds
// /v1/messages itself, while OpenAI-style base URLs (and many proxies'
// instructions) end in /v1: both forms name the same server.
func anthropicRoot(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/v1") {
		return base
	}
	u.Path, u.RawPath = strings.TrimSuffix(p, "/v1"), ""
	return u.String()
}

// Model is the model asked.
func (a *Messages) Model() string { return a.cfg.Model }

// BaseURL is the server's address.
func (a *Messages) BaseURL() string { return a.cfg.BaseURL }

// Complete sends the conversation and returns the assistant's turn.
func (a *Messages) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	b := a.body(req)
	// The params carry what the SDK reads itself (the model, and
	// max_tokens for its timeout); the body goes as composed.
	params := anthropic.MessageNewParams{Model: anthropic.Model(a.cfg.Model), MaxTokens: a.cfg.MaxTokens}
	// As its pieces, not joined: see provider.Body.Sized.
	var given any = b.Reader()
	if req.OnText != nil {
		given = []byte("{}")
	}
	opts := []aoption.RequestOption{
		aoption.WithRequestBody("application/json", given),
		aoption.WithMiddleware(func(r *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
			b.Sized(r)
			return next(r)
		}),
	}
	if a.cfg.ServerClearing.On() {
		opts = append(opts, aoption.WithHeaderAdd("anthropic-beta", ServerClearingBeta))
	}
	if req.OnText != nil {
		turn, err := a.stream(ctx, params, opts, req.OnText)
		if err != nil {
			return nil, provider.AnswerFormatHint(err, req.Answer, "output_config.format")
		}
		return withBytes(turn, b.Len()), nil
	}
	msg, err := a.messages.New(ctx, params, opts...)
	if err != nil {
		return nil, provider.AnswerFormatHint(a.providerError(err), req.Answer, "output_config.format")
	}
	turn, err := a.turn(msg)
	if turn != nil {
		turn.ContextManagement = rawField(msg.JSON.ExtraFields, "context_management")
	}
	return withBytes(turn, b.Len()), err
}

// body composes a Messages request body from the wire messages, each
// message's own bytes (see provider.Body).
func (a *Messages) body(req *agent.Request) *provider.Body {
	var system []byte
	if req.System != "" {
		// Marked for prompt caching: the system prompt is the same on
		// every step of a run.
		system, _ = jsonesc.Marshal([]anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}})
	}
	b := provider.NewBody(2 * (len(req.Messages) + len(req.Tools)))
	if req.OnText != nil {
		b.Raw("stream", []byte("true"))
	}
	b.Str("model", a.cfg.Model)
	b.Num("max_tokens", a.cfg.MaxTokens)
	if system != nil {
		b.Raw("system", system)
	}
	tools, choiceNone := req.Tools, req.ToolChoiceNone
	if len(tools) == 0 {
		// The API refuses messages with tool_use blocks in a request that
		// defines no tools (a follow-up whose tools are gone): the tools
		// called are defined again, and none may be called.
		if tools = calledToolStubs(req.Messages); len(tools) > 0 {
			choiceNone = true
		}
	}
	if len(tools) > 0 {
		b.Array("tools", tools, nil)
		// The API refuses a tool_choice without tools; and a conversation
		// with tool calls in it needs its tools defined, so the last
		// request keeps them and says none may be called.
		if choiceNone {
			b.Raw("tool_choice", []byte(`{"type":"none"}`))
		}
	}
	if a.cfg.Temperature != nil {
		// This SDK version no longer models temperature; models that take
		// it still read it from the body.
		b.Float("temperature", *a.cfg.Temperature)
	}
	if p := a.cfg.ServerClearing; p.On() {
		b.Raw("context_management", serverClearing(p))
	}
	if req.Answer != nil {
		b.Raw("output_config", outputConfig(req.Answer))
	}
	b.Array("messages", req.Messages, nil)
	b.End()
	return b
}

// outputConfig is the output_config of Anthropic's structured outputs
// (anthropic-sdk-go v2 OutputConfigParam.Format, a JSONOutputFormatParam):
// generally available, so without a beta header. The schema goes as the
// bytes it was made as.
func outputConfig(f *agent.AnswerFormat) []byte {
	b := []byte(`{"format":{"type":"json_schema","schema":`)
	b = append(b, f.Schema...)
	return append(b, "}}"...)
}

// calledToolStubs defines, in wire form, each tool the assistant messages
// called, with an open schema: what a request needs to carry a
// conversation's tool_use blocks when none of its tools is offered.
func calledToolStubs(msgs []agent.Message) []agent.Message {
	var stubs []agent.Message
	seen := map[string]bool{}
	for _, msg := range msgs {
		if !bytes.Contains(msg, []byte(`"tool_use"`)) {
			continue
		}
		t, err := agent.AnthropicDialect{}.ParseAssistant(msg)
		if err != nil {
			continue
		}
		for _, c := range t.Calls {
			if seen[c.Name] {
				continue
			}
			seen[c.Name] = true
			stub, _ := jsonesc.Marshal(map[string]any{
				"name":         c.Name,
				"description":  "Not offered in this conversation any more.",
				"input_schema": map[string]any{"type": "object"},
			})
			stubs = append(stubs, stub)
		}
	}
	return stubs
}

// ServerClearingBeta is the anthropic-beta header value that requests
// with ServerClearing's context management carry.
const ServerClearingBeta = string(anthropic.AnthropicBetaContextManagement2025_06_27)

// ServerClearing is the context management (its JSON) that has the
// Anthropic API clear old tool results itself, as the policy would: what
// each request of such a run carries as "context_management".
func ServerClearing(p *agent.ContextPolicy) json.RawMessage {
	return serverClearing(p)
}

// serverClearing is the context management that has the API clear old
// tool results itself, as the policy would.
func serverClearing(p *agent.ContextPolicy) []byte {
	edit := anthropic.BetaClearToolUses20250919EditParam{
		Trigger: anthropic.BetaClearToolUses20250919EditTriggerUnionParam{
			OfInputTokens: &anthropic.BetaInputTokensTriggerParam{Value: p.Limit},
		},
		Keep:         anthropic.BetaToolUsesKeepParam{Value: int64(max(p.Keep, 0))},
		ClearAtLeast: anthropic.BetaInputTokensClearAtLeastParam{Value: p.Batch()},
		ExcludeTools: p.KeepTools,
	}
	b, _ := json.Marshal(anthropic.BetaContextManagementConfigParam{
		Edits: []anthropic.BetaContextManagementConfigEditUnionParam{{OfClearToolUses20250919: &edit}},
	})
	return b
}

// stream sends a streamed request. An error event the API sends inside a
// stream it answered with 200 (overloaded_error, api_error: what a 529 or a
// 500 says before the stream starts) is retried as those statuses are, up
// to --max-retries times, as long as none of the answer's text was shown:
// shown, a new attempt would print it twice. The transport retries the
// statuses of each attempt on its own, as it does every request's.
func (a *Messages) stream(ctx context.Context, params anthropic.MessageNewParams, opts []aoption.RequestOption, onText func(string)) (*agent.Turn, error) {
	for attempt := 0; ; attempt++ {
		shown := false
		turn, err := a.streamOnce(ctx, params, opts, func(s string) {
			shown = true
			onText(s)
		})
		if err == nil || shown || attempt >= a.cfg.MaxRetries || !transientStreamError(err) {
			return turn, err
		}
		if serr := httpretry.Sleep(ctx, httpretry.Backoff(attempt)); serr != nil {
			return nil, serr
		}
	}
}

// transientStreamError reports whether err is an error event of a stream
// that a new request may well not meet.
func transientStreamError(err error) bool {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusOK {
		return false
	}
	switch apiErr.Type() {
	case "overloaded_error", "api_error":
		return true
	}
	return false
}

func (a *Messages) streamOnce(ctx context.Context, params anthropic.MessageNewParams, opts []aoption.RequestOption, onText func(string)) (*agent.Turn, error) {
	s := a.messages.NewStreaming(httpretry.WithStreamed(ctx), params, opts...)
	defer s.Close()
	var msg anthropic.Message
	var held heldDeltas
	var edits json.RawMessage // the API's own clearing, told at the end
	for s.Next() {
		ev := s.Current()
		if ev.Type == "message_delta" {
			if d, ok := ev.AsAny().(anthropic.MessageDeltaEvent); ok {
				if cm := rawField(d.JSON.ExtraFields, "context_management"); cm != nil {
					edits = cm
				}
			}
		}
		if err := held.accumulate(&msg, ev); err != nil {
			return nil, &agent.ProviderError{Provider: "anthropic", Message: "bad stream event: " + err.Error(), Err: err}
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			onText(ev.Delta.Text)
		}
	}
	if err := s.Err(); err != nil {
		return nil, a.providerError(err)
	}
	if err := held.flush(&msg); err != nil {
		return nil, &agent.ProviderError{Provider: "anthropic", Message: "bad stream event: " + err.Error(), Err: err}
	}
	if msg.StopReason == "" {
		return nil, &agent.ProviderError{Provider: "anthropic", Message: "the stream ended before the message was complete"}
	}
	turn, err := a.turn(&msg)
	if turn != nil {
		turn.ContextManagement = edits
	}
	return turn, err
}

// heldDeltas gathers the text (or thinking) deltas of a content block that
// come one after another, and hands them to Message.Accumulate as one
// delta. Accumulate adds each delta to the block with +=, a copy of the
// whole text so far: over the thousands of deltas of a long answer the
// copying grew with the square of its length, and an endless stream of
// small deltas held the CPU for hours before it reached the size bound.
type heldDeltas struct {
	kind  string // "text_delta" or "thinking_delta"; "" when none is held
	index int64
	text  strings.Builder
}

// accumulate adds ev to msg, holding it back if it is a text or thinking
// delta that continues those held.
func (h *heldDeltas) accumulate(msg *anthropic.Message, ev anthropic.MessageStreamEventUnion) error {
	kind := ""
	if ev.Type == "content_block_delta" && (ev.Delta.Type == "text_delta" || ev.Delta.Type == "thinking_delta") {
		kind = ev.Delta.Type
	}
	if h.kind != "" && (kind != h.kind || ev.Index != h.index) {
		if err := h.flush(msg); err != nil {
			return err
		}
	}
	if kind == "" {
		return msg.Accumulate(ev)
	}
	h.kind, h.index = kind, ev.Index
	h.text.WriteString(ev.Delta.Text)
	h.text.WriteString(ev.Delta.Thinking)
	return nil
}

// flush adds the deltas held to msg, as one.
func (h *heldDeltas) flush(msg *anthropic.Message) error {
	if h.kind == "" {
		return nil
	}
	ev := anthropic.MessageStreamEventUnion{Type: "content_block_delta", Index: h.index}
	ev.Delta.Type = h.kind
	if h.kind == "text_delta" {
		ev.Delta.Text = h.text.String()
	} else {
		ev.Delta.Thinking = h.text.String()
	}
	h.kind = ""
	h.text.Reset()
	return msg.Accumulate(ev)
}

// rawField is an unmodelled field of a response as it came, or nil.
func rawField(fields map[string]respjson.Field, name string) json.RawMessage {
	f, ok := fields[name]
	if !ok {
		return nil
	}
	raw := f.Raw()
	if raw == "" || raw == respjson.Omitted || raw == "null" {
		return nil
	}
	return json.RawMessage(raw)
}

// turn makes a Turn of a response: the whole content array goes back, each
// block through the SDK's ToParam, except thinking blocks, which go back as
// the exact bytes received (the API checks their signatures).
func (a *Messages) turn(msg *anthropic.Message) (*agent.Turn, error) {
	raw, err := antAssistantMessage(msg)
	if err != nil {
		return nil, &agent.ProviderError{Provider: "anthropic", Message: "cannot re-encode the assistant message: " + err.Error(), Err: err}
	}
	turn, err := a.ParseAssistant(raw)
	if err != nil {
		return nil, &agent.ProviderError{Provider: "anthropic", Message: err.Error(), Err: err}
	}
	turn.FinishReason = string(msg.StopReason)
	turn.ResponseID, turn.ResponseModel = msg.ID, string(msg.Model)
	switch msg.StopReason {
	case anthropic.StopReasonToolUse:
		turn.Stop = agent.StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		turn.Stop = agent.StopMaxTokens
	case anthropic.StopReasonRefusal:
		turn.Stop = agent.StopRefusal
	case anthropic.StopReasonPauseTurn:
		turn.Stop = agent.StopPause
	default: // end_turn, stop_sequence
		turn.Stop = agent.StopEnd
		if len(turn.Calls) > 0 {
			turn.Stop = agent.StopToolUse
		}
	}
	if turn.Stop == agent.StopEnd && turn.Empty() {
		return nil, &agent.ProviderError{Provider: "anthropic", Message: "the response has no content: neither text nor tool calls"}
	}
	u := msg.Usage
	turn.Usage.InputTokens = u.InputTokens
	turn.Usage.OutputTokens = u.OutputTokens
	turn.Usage.CacheCreationInputTokens = u.CacheCreationInputTokens
	turn.Usage.CacheReadInputTokens = u.CacheReadInputTokens
	return turn, nil
}

// antAssistantMessage is the assistant message of a response: each content
// block through ToParam but an empty text block, and thinking blocks as
// the bytes received (spaces between tokens aside: a transcript line holds no
// newline). The SDK's encoder would rewrite them (a "<" in the thinking as
// \u003c).
func antAssistantMessage(msg *anthropic.Message) ([]byte, error) {
	p := msg.ToParam()
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	n := 0
	for i, block := range p.OfAssistant.Content {
		var c anthropic.ContentBlockUnion
		if i < len(msg.Content) {
			c = msg.Content[i]
		}
		if c.Type == "text" && c.Text == "" {
			// A text block the stream opened and a refusal or max_tokens
			// closed at once: the API refuses an empty text block in
			// a request, its own included.
			continue
		}
		if n++; n > 1 {
			b.WriteByte(',')
		}
		if c.Type == "thinking" || c.Type == "redacted_thinking" {
			if json.Compact(&b, []byte(c.RawJSON())) == nil {
				continue
			}
		}
		raw, err := jsonesc.Marshal(block)
		if err != nil {
			return nil, err
		}
		b.Write(raw)
	}
	b.WriteString(`],"role":"assistant"}`)
	return b.Bytes(), nil
}

func (a *Messages) providerError(err error) error {
	e := provider.Endpoint{Provider: a.Name(), Host: Host, KeyVar: "ANTHROPIC_API_KEY", HasKey: a.cfg.APIKey != "",
		Model: a.cfg.Model, ModelFrom: a.cfg.ModelFrom, BaseURL: a.given, URLFrom: a.cfg.BaseURLFrom, Retries: a.cfg.MaxRetries}
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return e.TransportError(err)
	}
	if apiErr.StatusCode == http.StatusOK {
		// An error event inside a stream: its 200 says nothing.
		pe := &agent.ProviderError{Provider: "anthropic", Message: fmt.Sprintf("the stream ended with an error (%s): %s", apiErr.Type(), apiErr.Message), Err: err}
		if transientStreamError(err) {
			pe.Hint = fmt.Sprintf("after %d retries; raise --max-retries or try later", a.cfg.MaxRetries)
		}
		return pe
	}
	return e.APIError(apiErr.StatusCode, apiErr.Message, apiErr.Response, err)
}

// withBytes notes the size of the request body that got a turn.
func withBytes(t *agent.Turn, n int) *agent.Turn {
	if t != nil {
		t.RequestBytes = n
	}
	return t
}
