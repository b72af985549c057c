package agent

import (
	"bytes"
	"context"
	"encoding/base64"
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
)

// AnthropicBaseURL is the Messages API's default address.
const AnthropicBaseURL = "https://api.anthropic.com"

// DefaultAnthropicMaxTokens is sent when no --max-tokens is given: the API
// requires a value.
const DefaultAnthropicMaxTokens = 4096

// AnthropicConfig configures the Anthropic provider.
type AnthropicConfig struct {
	APIKey  string
	BaseURL string
	Model   string
	// BaseURLFrom names the setting BaseURL came from ("OPENAI_BASE_URL",
	// "base_url in FILE:LINE"), for the hints of errors; "" is --base-url.
	BaseURLFrom string
	// ModelFrom names the setting Model came from, as OpenAIConfig's does.
	ModelFrom  string
	MaxRetries int
	// IdleTimeout is as in OpenAIConfig.
	IdleTimeout time.Duration
	MaxTokens   int64
	Temperature *float64
	HTTPClient  *http.Client
	// ServerClearing, when on, has the API clear old tool results itself
	// (context management, a beta of the Messages API) instead of the
	// loop.
	ServerClearing *ContextPolicy
	// Limiter is as in OpenAIConfig.
	Limiter *Limiter
}

// Anthropic talks to the Anthropic Messages API.
type Anthropic struct {
	AnthropicDialect
	messages anthropic.MessageService
	cfg      AnthropicConfig
	// given is the base URL as it was given, for errors to name.
	given string
}

var _ Provider = (*Anthropic)(nil)

// NewAnthropic builds the provider. It fails without an API key unless
// BaseURL points at another server.
func NewAnthropic(cfg AnthropicConfig) (*Anthropic, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic: no model given")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = AnthropicBaseURL
	}
	given := cfg.BaseURL
	cfg.BaseURL = anthropicRoot(cfg.BaseURL)
	isDefault := providerDefault("anthropic", cfg.BaseURL)
	if isDefault && cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: set ANTHROPIC_API_KEY, or pass --base-url for another server", ErrNoAPIKey)
	}
	if err := checkAPIKey("ANTHROPIC_API_KEY", cfg.APIKey); err != nil {
		return nil, err
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultAnthropicMaxTokens
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = defaultHTTPClient()
	}
	opts := []aoption.RequestOption{
		aoption.WithEnvironmentProduction(),
		aoption.WithHTTPClient(withFaultTransport(httpClient, cfg.Limiter, cfg.MaxRetries, cfg.IdleTimeout)),
		aoption.WithBaseURL(cfg.BaseURL),
		// The transport retries, for every provider alike.
		aoption.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, aoption.WithAPIKey(cfg.APIKey))
	}
	// Only the Messages service, for the reasons given in NewOpenAI.
	return &Anthropic{messages: anthropic.NewMessageService(opts...), cfg: cfg, given: given}, nil
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
func (a *Anthropic) Model() string { return a.cfg.Model }

// BaseURL is the server's address.
func (a *Anthropic) BaseURL() string { return a.cfg.BaseURL }

// Complete sends the conversation and returns the assistant's turn.
func (a *Anthropic) Complete(ctx context.Context, req *Request) (*Turn, error) {
	b := a.body(req)
	// The params carry what the SDK reads itself (the model, and
	// max_tokens for its timeout); the body goes as composed.
	params := anthropic.MessageNewParams{Model: anthropic.Model(a.cfg.Model), MaxTokens: a.cfg.MaxTokens}
	// As its pieces, as bodyOptions has the OpenAI SDK send them.
	var given any = b.reader()
	if req.OnText != nil {
		given = []byte("{}")
	}
	opts := []aoption.RequestOption{
		aoption.WithRequestBody("application/json", given),
		aoption.WithMiddleware(func(r *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
			b.sized(r)
			return next(r)
		}),
	}
	if a.cfg.ServerClearing.On() {
		opts = append(opts, aoption.WithHeaderAdd("anthropic-beta", ServerClearingBeta))
	}
	if req.OnText != nil {
		turn, err := a.stream(ctx, params, opts, req.OnText)
		return withBytes(turn, b.Len()), err
	}
	msg, err := a.messages.New(ctx, params, opts...)
	if err != nil {
		return nil, a.providerError(err)
	}
	turn, err := a.turn(msg)
	if turn != nil {
		turn.ContextManagement = rawField(msg.JSON.ExtraFields, "context_management")
	}
	return withBytes(turn, b.Len()), err
}

// body composes a Messages request body from the wire messages; see
// OpenAI.body.
func (a *Anthropic) body(req *Request) *body {
	var system []byte
	if req.System != "" {
		// Marked for prompt caching: the system prompt is the same on
		// every step of a run.
		system, _ = marshalNoEscape([]anthropic.TextBlockParam{{Text: req.System, CacheControl: anthropic.NewCacheControlEphemeralParam()}})
	}
	b := newBody(2 * (len(req.Messages) + len(req.Tools)))
	if req.OnText != nil {
		b.raw("stream", []byte("true"))
	}
	b.str("model", a.cfg.Model)
	b.num("max_tokens", a.cfg.MaxTokens)
	if system != nil {
		b.raw("system", system)
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
		b.array("tools", tools, nil)
		// The API refuses a tool_choice without tools; and a conversation
		// with tool calls in it needs its tools defined, so the last
		// request keeps them and says none may be called.
		if choiceNone {
			b.raw("tool_choice", []byte(`{"type":"none"}`))
		}
	}
	if a.cfg.Temperature != nil {
		// This SDK version no longer models temperature; models that take
		// it still read it from the body.
		b.float("temperature", *a.cfg.Temperature)
	}
	if p := a.cfg.ServerClearing; p.On() {
		b.raw("context_management", serverClearing(p))
	}
	b.array("messages", req.Messages, nil)
	b.end()
	return b
}

// calledToolStubs defines, in wire form, each tool the assistant messages
// called, with an open schema: what a request needs to carry a
// conversation's tool_use blocks when none of its tools is offered.
func calledToolStubs(msgs []Message) []Message {
	var stubs []Message
	seen := map[string]bool{}
	for _, msg := range msgs {
		if !bytes.Contains(msg, []byte(`"tool_use"`)) {
			continue
		}
		var m antMessage
		if json.Unmarshal(msg, &m) != nil || m.Role != "assistant" {
			continue
		}
		blocks, _ := antBlocks(m.Content)
		for _, bl := range blocks {
			if bl.Type != "tool_use" || seen[bl.Name] {
				continue
			}
			seen[bl.Name] = true
			stub, _ := marshalNoEscape(map[string]any{
				"name":         bl.Name,
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
func ServerClearing(p *ContextPolicy) json.RawMessage {
	return serverClearing(p)
}

// serverClearing is the context management that has the API clear old
// tool results itself, as the policy would.
func serverClearing(p *ContextPolicy) []byte {
	edit := anthropic.BetaClearToolUses20250919EditParam{
		Trigger: anthropic.BetaClearToolUses20250919EditTriggerUnionParam{
			OfInputTokens: &anthropic.BetaInputTokensTriggerParam{Value: p.Limit},
		},
		Keep:         anthropic.BetaToolUsesKeepParam{Value: int64(max(p.Keep, 0))},
		ClearAtLeast: anthropic.BetaInputTokensClearAtLeastParam{Value: p.batch()},
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
func (a *Anthropic) stream(ctx context.Context, params anthropic.MessageNewParams, opts []aoption.RequestOption, onText func(string)) (*Turn, error) {
	for attempt := 0; ; attempt++ {
		shown := false
		turn, err := a.streamOnce(ctx, params, opts, func(s string) {
			shown = true
			onText(s)
		})
		if err == nil || shown || attempt >= a.cfg.MaxRetries || !transientStreamError(err) {
			return turn, err
		}
		if serr := sleep(ctx, backoff(attempt)); serr != nil {
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

func (a *Anthropic) streamOnce(ctx context.Context, params anthropic.MessageNewParams, opts []aoption.RequestOption, onText func(string)) (*Turn, error) {
	s := a.messages.NewStreaming(withStreamed(ctx), params, opts...)
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
			return nil, &ProviderError{Provider: "anthropic", Message: "bad stream event: " + err.Error(), Err: err}
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			onText(ev.Delta.Text)
		}
	}
	if err := s.Err(); err != nil {
		return nil, a.providerError(err)
	}
	if err := held.flush(&msg); err != nil {
		return nil, &ProviderError{Provider: "anthropic", Message: "bad stream event: " + err.Error(), Err: err}
	}
	if msg.StopReason == "" {
		return nil, &ProviderError{Provider: "anthropic", Message: "the stream ended before the message was complete"}
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
func (a *Anthropic) turn(msg *anthropic.Message) (*Turn, error) {
	raw, err := antAssistantMessage(msg)
	if err != nil {
		return nil, &ProviderError{Provider: "anthropic", Message: "cannot re-encode the assistant message: " + err.Error(), Err: err}
	}
	turn, err := a.ParseAssistant(raw)
	if err != nil {
		return nil, &ProviderError{Provider: "anthropic", Message: err.Error(), Err: err}
	}
	turn.FinishReason = string(msg.StopReason)
	switch msg.StopReason {
	case anthropic.StopReasonToolUse:
		turn.Stop = StopToolUse
	case anthropic.StopReasonMaxTokens, anthropic.StopReasonModelContextWindowExceeded:
		turn.Stop = StopMaxTokens
	case anthropic.StopReasonRefusal:
		turn.Stop = StopRefusal
	case anthropic.StopReasonPauseTurn:
		turn.Stop = StopPause
	default: // end_turn, stop_sequence
		turn.Stop = StopEnd
		if len(turn.Calls) > 0 {
			turn.Stop = StopToolUse
		}
	}
	if turn.Stop == StopEnd && isEmpty(turn) {
		return nil, &ProviderError{Provider: "anthropic", Message: "the response has no content: neither text nor tool calls"}
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
		raw, err := marshalNoEscape(block)
		if err != nil {
			return nil, err
		}
		b.Write(raw)
	}
	b.WriteString(`],"role":"assistant"}`)
	return b.Bytes(), nil
}

func (a *Anthropic) providerError(err error) error {
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		return transportError("anthropic", a.given, a.cfg.BaseURLFrom, err)
	}
	if apiErr.StatusCode == http.StatusOK {
		// An error event inside a stream: its 200 says nothing.
		pe := &ProviderError{Provider: "anthropic", Message: fmt.Sprintf("the stream ended with an error (%s): %s", apiErr.Type(), apiErr.Message), Err: err}
		if transientStreamError(err) {
			pe.Hint = fmt.Sprintf("after %d retries; raise --max-retries or try later", a.cfg.MaxRetries)
		}
		return pe
	}
	return apiError(endpoint{provider: "anthropic", keyVar: "ANTHROPIC_API_KEY", hasKey: a.cfg.APIKey != "",
		model: a.cfg.Model, modelFrom: a.cfg.ModelFrom, baseURL: a.given, urlFrom: a.cfg.BaseURLFrom, retries: a.cfg.MaxRetries},
		apiErr.StatusCode, apiErr.Message, apiErr.Response, err)
}

// AnthropicDialect is the Messages message grammar.
type AnthropicDialect struct{}

var _ Dialect = AnthropicDialect{}

// Name is "anthropic".
func (AnthropicDialect) Name() string { return "anthropic" }

// UserMessage is a user message with one text block.
func (AnthropicDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
	return b
}

// ResultMessages writes one user message whose content is a tool_result
// block per call, in call order. Failures carry is_error and a non-empty
// text; an empty success leaves the content out (an empty text block is
// refused). A result's images follow its text inside its tool_result, as
// image blocks; one the API would refuse is described in the text instead.
func (AnthropicDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	if len(results) == 0 {
		return nil, nil
	}
	blocks := make([]anthropic.ContentBlockParamUnion, len(results))
	idx := make([]int, len(results))
	for i, r := range results {
		b := anthropic.ToolResultBlockParam{ToolUseID: r.Call.ID}
		content := r.Result.Content
		var images []anthropic.ToolResultBlockParamContentUnion
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				content = withLine(content, notShown(im, why))
				continue
			}
			images = append(images, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: base64.StdEncoding.EncodeToString(im.Data), MediaType: anthropic.Base64ImageSourceMediaType(t),
				}},
			}})
		}
		if r.Result.IsError {
			b.IsError = anthropic.Bool(true)
			if strings.TrimSpace(content) == "" {
				content = "the tool failed without a message"
			}
		}
		if strings.TrimSpace(content) != "" {
			b.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: content}}}
		}
		b.Content = append(b.Content, images...)
		blocks[i] = anthropic.ContentBlockParamUnion{OfToolResult: &b}
		idx[i] = i
	}
	msg, err := json.Marshal(anthropic.NewUserMessage(blocks...))
	if err != nil {
		return nil, err
	}
	return []ResultMessage{{Message: msg, Results: idx}}, nil
}

// antMessage holds the fields of a Messages message the loop reads.
type antMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Source    *antImageSource `json:"source"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// antImageSource is an image block's source.
type antImageSource struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// recordedImage reads an image block's source back.
func recordedImage(src *antImageSource) Image {
	if src == nil {
		return Image{}
	}
	data, _ := base64.StdEncoding.DecodeString(src.Data)
	return Image{MIMEType: src.MediaType, Data: data}
}

func antBlocks(content json.RawMessage) ([]antBlock, string) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return nil, s
	}
	var blocks []antBlock
	_ = json.Unmarshal(content, &blocks)
	return blocks, ""
}

// ParseAssistant reads text and tool_use blocks from an assistant message.
func (AnthropicDialect) ParseAssistant(msg Message) (*Turn, error) {
	var m antMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("assistant message is not a JSON object: %w", err)
	}
	if m.Role != "assistant" {
		return nil, fmt.Errorf("message has role %q, want assistant", m.Role)
	}
	blocks, text := antBlocks(m.Content)
	t := &Turn{Messages: []Message{msg}, Stop: StopEnd}
	var b strings.Builder
	b.WriteString(text)
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "tool_use":
			args := []byte(bl.Input)
			if len(args) == 0 {
				args = []byte("{}")
			}
			t.Calls = append(t.Calls, Call{ID: bl.ID, Name: bl.Name, Arguments: args})
		}
	}
	t.Text = b.String()
	if len(t.Calls) > 0 {
		t.Stop = StopToolUse
	}
	return t, nil
}

// ParseResults reads the tool_result blocks of a user message.
func (AnthropicDialect) ParseResults(msg Message) []RecordedResult {
	var m antMessage
	if json.Unmarshal(msg, &m) != nil || m.Role != "user" {
		return nil
	}
	blocks, _ := antBlocks(m.Content)
	var out []RecordedResult
	for _, bl := range blocks {
		if bl.Type != "tool_result" {
			continue
		}
		r := RecordedResult{CallID: bl.ToolUseID, IsError: bl.IsError}
		inner, text := antBlocks(bl.Content)
		for _, ib := range inner {
			switch ib.Type {
			case "text":
				text += ib.Text
			case "image":
				// An image reads as its label, so that a replay that gets
				// another image, or none, sees a difference.
				text = withLine(text, "[image: "+imageLabel(recordedImage(ib.Source))+"]")
			}
		}
		r.Content, r.Text = text, text
		out = append(out, r)
	}
	return out
}

// ResultContents locates the content of each tool_result block of a user
// message.
func (AnthropicDialect) ResultContents(msg Message) []ResultContent {
	var role string
	var content span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"role"`:
			role, _ = stringValue(msg, v)
		case `"content"`:
			content = v
		}
		return true
	})
	if err != nil || role != "user" || content.end == 0 || msg[content.start] != '[' {
		return nil
	}
	var out []ResultContent
	_ = arrayElems(msg, content.start, func(block span) {
		var typ, id string
		var c span
		_ = objectFields(msg, block.start, func(key []byte, v span) bool {
			switch string(key) {
			case `"type"`:
				typ, _ = stringValue(msg, v)
			case `"tool_use_id"`:
				id, _ = unquote(msg[v.start:v.end])
			case `"content"`:
				c = v
			}
			return true
		})
		if typ == "tool_result" {
			out = append(out, ResultContent{CallID: id, Start: c.start, End: c.end})
		}
	})
	return out
}

// ItemTurns is false: a turn is one assistant message.
func (AnthropicDialect) ItemTurns() bool { return false }

// Role is the message's role.
func (AnthropicDialect) Role(msg Message) string { return messageRole(msg) }

// antTool is a custom tool definition; the schema stays raw so the
// properties keep their order.
type antTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

// ToolDefs writes {"name","description","input_schema"} definitions; the
// last carries cache_control, which caches the whole tools array. One the
// API would refuse is a *ToolDefError.
func (AnthropicDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for i, d := range defs {
		if p := checkSpec("anthropic", d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		t := antTool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters}
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if i == len(defs)-1 {
			t.CacheControl = &cacheControl{Type: "ephemeral"}
		}
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
