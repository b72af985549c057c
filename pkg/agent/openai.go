package agent

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
)

// OpenAIBaseURL is the Chat Completions API's default address.
const OpenAIBaseURL = "https://api.openai.com/v1"

// OpenAIConfig configures the OpenAI provider.
type OpenAIConfig struct {
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
	// errors, with backoff (see faultTransport).
	MaxRetries int
	// IdleTimeout is the longest the server may send nothing, before its
	// response or inside it; 0 is no limit (see faultTransport).
	IdleTimeout time.Duration
	// Limiter paces the requests; providers that share one slow down
	// together. Nil: a limiter of this provider's own.
	Limiter     *Limiter
	Temperature *float64
	// MaxTokens caps the answer's tokens; 0 leaves the server's default.
	MaxTokens int64
	// Organization and Project are sent as OpenAI-Organization and
	// OpenAI-Project when set.
	Organization, Project string
	// HTTPClient replaces the default client (tests, proxies).
	HTTPClient *http.Client
}

// OpenAI talks to an OpenAI Chat Completions API or a compatible server
// (Ollama, vLLM, llama.cpp server, …).
type OpenAI struct {
	OpenAIDialect
	chat openai.ChatCompletionService
	cfg  OpenAIConfig
}

var _ Provider = (*OpenAI)(nil)

// ErrNoAPIKey is returned for the default endpoint without a key.
var ErrNoAPIKey = errors.New("no API key")

// NewOpenAI builds the provider. It fails without an API key unless BaseURL
// points at another server.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	opts, err := openAIOptions("openai", &cfg)
	if err != nil {
		return nil, err
	}
	// Only the Chat Completions service: the SDK's NewClient builds every
	// service of the API and reads credentials from the environment on its
	// own, which links in (and pages in at start-up) code agentloop never
	// runs. The key and the address are the ones agentloop was given.
	return &OpenAI{chat: openai.NewChatCompletionService(opts...), cfg: cfg}, nil
}

// openAIOptions checks an OpenAI configuration, filling in the default
// address, and returns the client options both OpenAI providers use.
func openAIOptions(provider string, cfg *OpenAIConfig) ([]option.RequestOption, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("%s: no model given", provider)
	}
	isDefault := cfg.BaseURL == "" || providerDefault("openai", cfg.BaseURL)
	if cfg.BaseURL == "" {
		cfg.BaseURL = OpenAIBaseURL
	}
	if isDefault && cfg.APIKey == "" {
		return nil, fmt.Errorf("%w: set OPENAI_API_KEY, or pass --base-url for a local server", ErrNoAPIKey)
	}
	if err := checkAPIKey("OPENAI_API_KEY", cfg.APIKey); err != nil {
		return nil, err
	}
	httpClient := cfg.HTTPClient
	if httpClient == nil {
		httpClient = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(withFaultTransport(httpClient, cfg.Limiter, cfg.MaxRetries, cfg.IdleTimeout)),
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

// defaultHTTPClient is the SDKs' default: a connection pool of its own. A
// server that sends nothing, before its response or inside it, is given up
// on by the transport's idle limit (faultTransport).
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// NewHTTPClient is the default client with a connection pool that keeps
// conns connections to a server open between requests: one for each
// request a batch has in flight, where the default keeps two.
func NewHTTPClient(conns int) *http.Client {
	c := defaultHTTPClient()
	t := c.Transport.(*http.Transport)
	t.MaxIdleConnsPerHost = max(conns, 2)
	t.MaxIdleConns = max(t.MaxIdleConns, 2*conns)
	return c
}

// Model is the model asked.
func (o *OpenAI) Model() string { return o.cfg.Model }

// BaseURL is the server's address.
func (o *OpenAI) BaseURL() string { return o.cfg.BaseURL }

// Complete sends the conversation and returns the assistant's turn.
func (o *OpenAI) Complete(ctx context.Context, req *Request) (*Turn, error) {
	b := o.body(req)
	// The params carry the model only: the body goes as composed.
	params := openai.ChatCompletionNewParams{Model: o.cfg.Model}
	if req.OnText != nil {
		turn, err := o.stream(ctx, params, bodyOptions(b, true), req.OnText)
		return withBytes(turn, b.Len()), err
	}
	comp, err := o.chat.New(ctx, params, bodyOptions(b, false)...)
	if err != nil {
		return nil, o.providerError(err)
	}
	if len(comp.Choices) == 0 {
		return nil, &ProviderError{Provider: "openai", Message: "the response has no choices"}
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
func (o *OpenAI) body(req *Request) *body {
	var system []Message
	if req.System != "" {
		s, _ := marshalNoEscape(openai.SystemMessage(req.System))
		system = []Message{s}
	}
	b := newBody(2 * (len(req.Messages) + len(req.Tools)))
	if req.OnText != nil {
		b.raw("stream", []byte("true"))
		b.raw("stream_options", []byte(`{"include_usage":true}`))
	}
	b.str("model", o.cfg.Model)
	if len(req.Tools) > 0 {
		b.array("tools", req.Tools, nil)
		// With no tools there is nothing to choose from, and the API
		// refuses a tool_choice.
		if req.ToolChoiceNone {
			b.str("tool_choice", "none")
		}
	}
	if o.cfg.Temperature != nil {
		b.float("temperature", *o.cfg.Temperature)
	}
	if o.cfg.MaxTokens > 0 {
		b.num("max_completion_tokens", o.cfg.MaxTokens)
	}
	b.array("messages", system, req.Messages)
	b.end()
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
func bodyOptions(b *body, streamed bool) []option.RequestOption {
	var given any = b.reader()
	if streamed {
		given = []byte("{}")
	}
	return []option.RequestOption{
		option.WithRequestBody("application/json", given),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			b.sized(r)
			return next(r)
		}),
	}
}

// withBytes notes the size of the request body that got a turn.
func withBytes(t *Turn, n int) *Turn {
	if t != nil {
		t.RequestBytes = n
	}
	return t
}

func (o *OpenAI) stream(ctx context.Context, params openai.ChatCompletionNewParams, send []option.RequestOption, onText func(string)) (*Turn, error) {
	s := o.chat.NewStreaming(withStreamed(ctx), params, send...)
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
		return nil, &ProviderError{Provider: "openai", Message: "the stream ended without a choice"}
	}
	// A stream that stops without a finish reason (the server or a proxy
	// gave up, the connection closed cleanly) holds part of a message:
	// taken as the answer it would be a shorter, wrong one.
	if acc.Choices[0].FinishReason == "" {
		return nil, &ProviderError{Provider: "openai", Message: "the stream ended before the message was complete"}
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
func (o *OpenAI) turn(comp *openai.ChatCompletion, msgExtra map[string]any, callExtra []map[string]any) (*Turn, error) {
	choice := comp.Choices[0]
	msg, err := assistantMessage(choice.Message, msgExtra, callExtra)
	if err != nil {
		return nil, &ProviderError{Provider: "openai", Message: "cannot re-encode the assistant message: " + err.Error(), Err: err}
	}
	turn, err := o.ParseAssistant(msg)
	if err != nil {
		return nil, &ProviderError{Provider: "openai", Message: err.Error(), Err: err}
	}
	turn.FinishReason = choice.FinishReason
	switch {
	case choice.FinishReason == "length":
		turn.Stop = StopMaxTokens
	case choice.Message.Refusal != "" && len(turn.Calls) == 0:
		turn.Stop = StopRefusal
		if turn.Text == "" {
			turn.Text = choice.Message.Refusal
		}
	case len(turn.Calls) > 0:
		// Some servers say "stop" for a turn with tool calls; the calls decide.
		turn.Stop = StopToolUse
	default:
		turn.Stop = StopEnd
	}
	if turn.Stop == StopEnd && isEmpty(turn) {
		return nil, &ProviderError{Provider: "openai", Message: "the response has no content: neither text nor tool calls"}
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
func assistantMessage(m openai.ChatCompletionMessage, msgExtra map[string]any, callExtra []map[string]any) (Message, error) {
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

func (o *OpenAI) providerError(err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return transportError("openai", o.cfg.BaseURL, o.cfg.BaseURLFrom, err)
	}
	return apiError(endpoint{provider: "openai", keyVar: "OPENAI_API_KEY", hasKey: o.cfg.APIKey != "",
		model: o.cfg.Model, modelFrom: o.cfg.ModelFrom, baseURL: o.cfg.BaseURL, urlFrom: o.cfg.BaseURLFrom, retries: o.cfg.MaxRetries},
		apiErr.StatusCode, apiErr.Message, apiErr.Response, err)
}

// OpenAIDialect is the Chat Completions message grammar.
type OpenAIDialect struct{}

var _ Dialect = OpenAIDialect{}

// Name is "openai".
func (OpenAIDialect) Name() string { return "openai" }

// UserMessage is {"role":"user","content":text}.
func (OpenAIDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(openai.UserMessage(text))
	return b
}

// ResultMessages writes one tool message per call, in call order. A failed
// call's content is {"error": "..."} so the model can tell it from output.
//
// A tool message takes text only, so images go in one user message after
// the tool messages (the API accepts a user message there, and only there
// does it take images): each image after a line naming its call, and each
// call's text saying its images follow. That message answers no call.
func (OpenAIDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	out := make([]ResultMessage, 0, len(results)+1)
	var parts []openai.ChatCompletionContentPartUnionParam
	var withImages []int
	for i, r := range results {
		content := r.Result.Content
		shown := 0
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				content = withLine(content, notShown(im, why))
				continue
			}
			if shown++; shown == 1 {
				withImages = append(withImages, i)
			}
			content = withLine(content, fmt.Sprintf("[image: %s; it follows in the user message after the tool results, as a tool message takes text only]", imageLabel(im)))
			parts = append(parts,
				openai.TextContentPart(fmt.Sprintf("Image %d of the result of tool call %s (%s):", shown, r.Call.ID, r.Call.Name)),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(t, im.Data)}))
		}
		if r.Result.IsError {
			b, err := json.Marshal(map[string]string{"error": content})
			if err != nil {
				return nil, err
			}
			content = string(b)
		}
		b, err := toolMessage(content, r.Call.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, ResultMessage{Message: b, Results: []int{i}})
	}
	if len(parts) > 0 {
		b, err := json.Marshal(openai.UserMessage(parts))
		if err != nil {
			return nil, err
		}
		out = append(out, ResultMessage{Message: b, Images: withImages})
	}
	return out, nil
}

// oaiToolMessage has the fields of openai.ToolMessage(content, id) with a
// string content, in the order the SDK writes them.
type oaiToolMessage struct {
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	Role       string `json:"role"`
}

// toolMessage is json.Marshal(openai.ToolMessage(content, id)), byte for
// byte (FuzzToolMessage checks it), at a tenth of the cost: the SDK's
// union type marshals through its own reflection, and encoding/json then
// compacts and checks the output again, which for a run's results of some
// KiB each is a good part of the loop's own CPU.
func toolMessage(content, id string) ([]byte, error) {
	return json.Marshal(oaiToolMessage{Content: content, ToolCallID: id, Role: "tool"})
}

// oaiMessage holds the fields of a Chat Completions message the loop reads.
type oaiMessage struct {
	Role       string     `json:"role"`
	Content    oaiContent `json:"content"`
	ToolCallID string     `json:"tool_call_id"`
	Refusal    *string    `json:"refusal"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// ParseAssistant reads text and calls from an assistant message.
func (OpenAIDialect) ParseAssistant(msg Message) (*Turn, error) {
	var m oaiMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("assistant message is not a JSON object: %w", err)
	}
	if m.Role != "assistant" {
		return nil, fmt.Errorf("message has role %q, want assistant", m.Role)
	}
	t := &Turn{Messages: []Message{msg}, Text: string(m.Content), Stop: StopEnd}
	for _, tc := range m.ToolCalls {
		args := []byte(tc.Function.Arguments)
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = []byte(s)
		}
		t.Calls = append(t.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	if len(t.Calls) > 0 {
		t.Stop = StopToolUse
	}
	return t, nil
}

// ParseResults reads a tool message's result.
func (OpenAIDialect) ParseResults(msg Message) []RecordedResult {
	var m oaiMessage
	if json.Unmarshal(msg, &m) != nil || m.Role != "tool" {
		return nil
	}
	content := string(m.Content)
	var e struct {
		Error *string `json:"error"`
	}
	isErr := strings.HasPrefix(content, `{"error":`) && json.Unmarshal([]byte(content), &e) == nil && e.Error != nil
	text := content
	if isErr {
		text = *e.Error
	}
	return []RecordedResult{{CallID: m.ToolCallID, Content: content, Text: text, IsError: isErr}}
}

// ResultContents locates a tool message's content.
func (OpenAIDialect) ResultContents(msg Message) []ResultContent {
	var out []ResultContent
	var role, id string
	var content span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"role"`:
			role, _ = stringValue(msg, v)
		case `"tool_call_id"`:
			id, _ = unquote(msg[v.start:v.end])
		case `"content"`:
			content = v
		}
		return true
	})
	if err != nil || role != "tool" {
		return nil
	}
	return append(out, ResultContent{CallID: id, Start: content.start, End: content.end})
}

// ItemTurns is false: a turn is one assistant message.
func (OpenAIDialect) ItemTurns() bool { return false }

// Role is the message's role.
func (OpenAIDialect) Role(msg Message) string { return messageRole(msg) }

// oaiContent is a content read as its text as it is decoded, without a
// copy of its JSON: an answer can be hundreds of megabytes.
type oaiContent string

func (c *oaiContent) UnmarshalJSON(b []byte) error {
	*c = oaiContent(oaiText(b))
	return nil
}

// oaiText is a content's text: the string, or the text parts joined.
func oaiText(content json.RawMessage) string {
	if len(content) == 0 || string(content) == "null" {
		return ""
	}
	if s, ok := jsonString(content); ok {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// oaiTool is a function tool definition; its parameters stay raw so the
// properties keep their order.
type oaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      bool            `json:"strict,omitempty"`
	} `json:"function"`
}

// ToolDefs writes {"type":"function","function":{…}} definitions; one the
// API would refuse is a *ToolDefError.
func (OpenAIDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for _, d := range defs {
		if p := checkSpec("openai", d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		var t oaiTool
		t.Type = "function"
		t.Function.Name = d.Name
		t.Function.Description = d.Description
		t.Function.Parameters = anySchemas(withProperties(d.Parameters))
		t.Function.Strict = d.Strict
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
