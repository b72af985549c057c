package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// ResponsesConfig configures the Responses provider: an OpenAI
// configuration (the same key, address and limits) and whether responses
// are kept on the server.
type ResponsesConfig struct {
	OpenAIConfig
	// Store keeps each response on the server (store: true) and sends the
	// next request as previous_response_id and the items that are new
	// since. Unset, every request is stateless: store: false and the whole
	// item list, reasoning items included in their encrypted form.
	Store bool
}

// Responses talks to the OpenAI Responses API, the API OpenAI recommends
// for reasoning models: a turn is a list of output items (reasoning,
// message, function_call, …), each kept and sent back exactly as returned,
// so the model's reasoning carries over from one step to the next.
type Responses struct {
	ResponsesDialect
	svc responses.ResponseService
	cfg ResponsesConfig

	// With Store: the last response's id and the conversation the server
	// holds under it (its input and its output), to send only what is new.
	mu       sync.Mutex
	lastID   string
	lastHeld []Message
}

var _ Provider = (*Responses)(nil)

// NewResponses builds the provider. Like NewOpenAI it fails without an API
// key unless BaseURL points at another server.
func NewResponses(cfg ResponsesConfig) (*Responses, error) {
	opts, err := openAIOptions("responses", &cfg.OpenAIConfig)
	if err != nil {
		return nil, err
	}
	// Only the Responses service, for the reasons given in NewOpenAI.
	return &Responses{svc: responses.NewResponseService(opts...), cfg: cfg}, nil
}

// Model is the model asked.
func (r *Responses) Model() string { return r.cfg.Model }

// BaseURL is the server's address.
func (r *Responses) BaseURL() string { return r.cfg.BaseURL }

// Complete sends the conversation and returns the model's turn: its output
// items, each a message of its own.
func (r *Responses) Complete(ctx context.Context, req *Request) (*Turn, error) {
	b, chained := r.body(req)
	// The params carry the model only: the body goes as composed.
	params := responses.ResponseNewParams{Model: r.cfg.Model}
	var (
		resp *responses.Response
		err  error
	)
	if req.OnText != nil {
		resp, err = r.stream(ctx, params, bodyOptions(b, true), req.OnText)
	} else {
		resp, err = r.svc.New(ctx, params, bodyOptions(b, false)...)
		if err != nil {
			err = r.providerError(err)
		}
	}
	if err != nil {
		if chained {
			notHeld(err)
		}
		return nil, err
	}
	turn, err := r.turn(resp, resp.Output)
	if err != nil {
		return nil, err
	}
	turn.RequestBytes = b.Len()
	if r.cfg.Store {
		r.mu.Lock()
		r.lastID = resp.ID
		r.lastHeld = append(slices.Clip(req.Messages), turn.Messages...)
		r.mu.Unlock()
	}
	return turn, nil
}

// body composes a request from the conversation's wire items. It is the
// one place a request is made: each item goes out as the bytes it is kept
// as (see OpenAI.body). chained is set when it goes on from a response
// the server holds (previous_response_id).
func (r *Responses) body(req *Request) (_ *body, chained bool) {
	items := req.Messages
	id, n := r.held(req.Messages)
	if id != "" {
		items = items[n:]
	}
	b := newBody(2 * (len(items) + len(req.Tools)))
	if req.OnText != nil {
		b.raw("stream", []byte("true"))
	}
	b.str("model", r.cfg.Model)
	b.raw("store", []byte(strconv.FormatBool(r.cfg.Store)))
	// Asked for with Store too: the transcript then holds every reasoning
	// item whole, and a resumed run can go on statelessly.
	b.raw("include", []byte(`["`+string(responses.ResponseIncludableReasoningEncryptedContent)+`"]`))
	if req.System != "" {
		// Instructions do not carry over with previous_response_id: they
		// are sent on every request.
		b.str("instructions", req.System)
	}
	if id != "" {
		b.str("previous_response_id", id)
	}
	if len(req.Tools) > 0 {
		b.array("tools", req.Tools, nil)
		// The loop answers every call of a turn, concurrently.
		b.raw("parallel_tool_calls", []byte("true"))
		if req.ToolChoiceNone {
			b.str("tool_choice", "none")
		}
	}
	if r.cfg.Temperature != nil {
		b.float("temperature", *r.cfg.Temperature)
	}
	if r.cfg.MaxTokens > 0 {
		b.num("max_output_tokens", r.cfg.MaxTokens)
	}
	b.array("input", items, nil)
	b.end()
	return b, id != ""
}

// held returns the last response's id and how many of msgs the server
// holds under it, when msgs go on from that conversation unchanged; else
// "" (the whole list is sent).
func (r *Responses) held(msgs []Message) (string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastID == "" || len(r.lastHeld) > len(msgs) {
		return "", 0
	}
	for i, m := range r.lastHeld {
		if !bytes.Equal(m, msgs[i]) {
			return "", 0
		}
	}
	return r.lastID, len(r.lastHeld)
}

// stream reads a streamed response. Items are gathered as each is done; the
// completed response's output, when it has one, replaces them: it is the
// form the API expects back (a reasoning item's ciphertext differs between
// the two), and each item is kept once.
func (r *Responses) stream(ctx context.Context, params responses.ResponseNewParams, send []option.RequestOption, onText func(string)) (*responses.Response, error) {
	s := r.svc.NewStreaming(withStreamed(ctx), params, send...)
	defer s.Close()
	done := map[int64]responses.ResponseOutputItemUnion{}
	var final *responses.Response
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			onText(ev.Delta)
		case "response.output_item.done":
			done[ev.OutputIndex] = ev.Item
		case "response.completed", "response.incomplete", "response.failed":
			resp := ev.Response
			final = &resp
		case "error":
			msg := ev.Message
			if ev.Code != "" {
				msg = ev.Code + ": " + msg
			}
			return nil, &ProviderError{Provider: "responses", Message: msg}
		}
	}
	if err := s.Err(); err != nil {
		return nil, r.providerError(err)
	}
	if final == nil {
		// A stream that stops before its last event holds part of a
		// response: taken as the answer it would be a shorter, wrong one.
		return nil, &ProviderError{Provider: "responses", Message: "the stream ended before the response was complete"}
	}
	if len(final.Output) == 0 && len(done) > 0 {
		for _, i := range slices.Sorted(maps.Keys(done)) {
			final.Output = append(final.Output, done[i])
		}
	}
	return final, nil
}

// turn makes a Turn of a response's output items.
func (r *Responses) turn(resp *responses.Response, output []responses.ResponseOutputItemUnion) (*Turn, error) {
	switch resp.Status {
	case responses.ResponseStatusFailed:
		msg := resp.Error.Message
		if resp.Error.Code != "" {
			msg = string(resp.Error.Code) + ": " + msg
		}
		if msg == "" {
			msg = "the response failed"
		}
		return nil, &ProviderError{Provider: "responses", Message: msg}
	case "", responses.ResponseStatusCompleted, responses.ResponseStatusIncomplete:
	default:
		return nil, &ProviderError{Provider: "responses", Message: fmt.Sprintf("the response is %s, not complete", resp.Status)}
	}
	msgs := make([]Message, 0, len(output))
	for _, it := range output {
		m, err := outputItem(it)
		if err != nil {
			return nil, &ProviderError{Provider: "responses", Message: "cannot re-encode an output item: " + err.Error(), Err: err}
		}
		msgs = append(msgs, m)
	}
	turn, err := ParseTurn(r.ResponsesDialect, msgs)
	if err != nil {
		return nil, &ProviderError{Provider: "responses", Message: err.Error(), Err: err}
	}
	// The API has no finish reason, only the response's status, the same
	// ("completed") for a turn that calls tools and one that answers: the
	// reason recorded is the one Chat Completions gives such a turn.
	turn.FinishReason = "stop"
	if len(turn.Calls) > 0 {
		turn.FinishReason = "tool_calls"
	}
	if resp.Status == responses.ResponseStatusIncomplete {
		turn.FinishReason = resp.IncompleteDetails.Reason
		turn.Stop = StopMaxTokens
		if turn.FinishReason == "content_filter" {
			turn.Stop = StopRefusal
		}
	}
	if turn.Stop == StopEnd && isEmpty(turn) {
		return nil, &ProviderError{Provider: "responses", Message: "the response has no content: neither text nor tool calls"}
	}
	u := resp.Usage
	turn.Usage.InputTokens = u.InputTokens
	turn.Usage.OutputTokens = u.OutputTokens
	turn.Usage.CacheReadInputTokens = u.InputTokensDetails.CachedTokens
	turn.Usage.CacheCreationInputTokens = u.InputTokensDetails.CacheWriteTokens
	turn.Usage.ReasoningTokens = u.OutputTokensDetails.ReasoningTokens
	return turn, nil
}

// outputItem is an output item as it goes back as an input item: through
// the SDK's ToParam for the items it models (which keeps the bytes
// received), and byte for byte for any other.
func outputItem(it responses.ResponseOutputItemUnion) (Message, error) {
	var p any
	switch it.Type {
	case "reasoning":
		p = it.AsReasoning().ToParam()
	case "message":
		p = it.AsMessage().ToParam()
	case "function_call":
		p = it.AsFunctionCall().ToParam()
	default:
		if it.RawJSON() == "" {
			return nil, errors.New("an output item without its JSON")
		}
		return Message(it.RawJSON()), nil
	}
	return json.Marshal(p)
}

func (r *Responses) providerError(err error) error {
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return transportError("responses", r.cfg.BaseURL, r.cfg.BaseURLFrom, err)
	}
	pe := apiError(endpoint{provider: "responses", keyVar: "OPENAI_API_KEY", hasKey: r.cfg.APIKey != "",
		model: r.cfg.Model, modelFrom: r.cfg.ModelFrom, baseURL: r.cfg.BaseURL, urlFrom: r.cfg.BaseURLFrom, retries: r.cfg.MaxRetries},
		apiErr.StatusCode, apiErr.Message, apiErr.Response, err)
	if apiErr.StatusCode == http.StatusBadRequest && strings.HasPrefix(apiErr.Message, "Reasoning input items can only be provided to a reasoning") {
		// A conversation of a reasoning model going on with one that does
		// not reason: its reasoning items cannot be left out without
		// changing it, so the way on is a reasoning model.
		pe.Hint = fmt.Sprintf("%s does not take the reasoning items the conversation holds: go on with a reasoning model (--model)", r.cfg.Model)
	}
	return pe
}

// ErrPreviousResponseNotFound is a --store request refused because the
// server does not hold the response it names: the same conversation sent
// whole, without --store, goes on.
var ErrPreviousResponseNotFound = errors.New("the server does not hold the previous response")

// notHeld tells an error of a request that named a previous response, if
// it says the server does not hold it, what to do: a server that keeps no
// responses (or no longer keeps this one) goes on without --store, every
// request carrying the whole conversation.
func notHeld(err error) {
	var pe *ProviderError
	var apiErr *openai.Error
	if errors.As(err, &pe) && errors.As(err, &apiErr) && unknownPrevious(apiErr) {
		pe.Hint = "the server does not hold the response this request goes on from (previous_response_id): run without --store, which sends the whole conversation each time"
		pe.Err = errors.Join(pe.Err, ErrPreviousResponseNotFound)
	}
}

// unknownPrevious reports whether the API error of a request that named a
// previous response says that response is not there: OpenAI's 400
// "Previous response with id '…' not found." (code
// previous_response_not_found, param previous_response_id), or a
// compatible server's 400 or 404 saying "not found" in other words.
func unknownPrevious(e *openai.Error) bool {
	if e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusNotFound {
		return false
	}
	return e.Code == "previous_response_not_found" || e.Param == "previous_response_id" ||
		strings.Contains(strings.ToLower(e.Message), "not found")
}

// ResponsesDialect is the Responses item grammar: a conversation is a list
// of input items, a turn the output items of one response.
type ResponsesDialect struct{}

var _ Dialect = ResponsesDialect{}

// Name is "responses".
func (ResponsesDialect) Name() string { return "responses" }

// UserMessage is {"role":"user","content":text}.
func (ResponsesDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser))
	return b
}

// ResultMessages writes one function_call_output item per call, in call
// order. A failed call's output is {"error": "..."}, as for Chat
// Completions. A result with images has a list for its output: the text as
// an input_text part, then each image as an input_image part (a data URL);
// an image the API would refuse is described in the text instead.
func (ResponsesDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	out := make([]ResultMessage, len(results))
	for i, r := range results {
		output := r.Result.Content
		var images []responses.ResponseFunctionCallOutputItemUnionParam
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				output = withLine(output, notShown(im, why))
				continue
			}
			images = append(images, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: openai.String(dataURL(t, im.Data)),
			}})
		}
		if r.Result.IsError {
			b, err := json.Marshal(map[string]string{"error": output})
			if err != nil {
				return nil, err
			}
			output = string(b)
		}
		item := responses.ResponseInputItemParamOfFunctionCallOutput(output)
		if len(images) > 0 {
			var list responses.ResponseFunctionCallOutputItemListParam
			if output != "" {
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: output}})
			}
			item.OfFunctionCallOutput.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: append(list, images...)}
		}
		item.OfFunctionCallOutput.CallID = openai.String(r.Call.ID)
		b, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		out[i] = ResultMessage{Message: b, Results: []int{i}}
	}
	return out, nil
}

// respItem holds the fields of an item the loop reads.
type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Content   json.RawMessage `json:"content"`
}

// respPart is an element of a message's content or of an output list.
type respPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL string `json:"image_url"`
}

// ParseAssistant reads one output item: the text and refusal of a message,
// the call of a function_call; other items (reasoning, hosted tools) carry
// neither.
func (d ResponsesDialect) ParseAssistant(msg Message) (*Turn, error) {
	var it respItem
	if err := json.Unmarshal(msg, &it); err != nil {
		return nil, fmt.Errorf("item is not a JSON object: %w", err)
	}
	if role := d.Role(msg); role != "assistant" {
		return nil, fmt.Errorf("item of type %q and role %q is not an output item", it.Type, it.Role)
	}
	t := &Turn{Messages: []Message{msg}, Stop: StopEnd}
	switch it.Type {
	case "function_call":
		args := []byte(it.Arguments)
		var s string
		if json.Unmarshal(it.Arguments, &s) == nil {
			args = []byte(s)
		}
		t.Calls = []Call{{ID: it.CallID, Name: it.Name, Arguments: args}}
		t.Stop = StopToolUse
	case "message", "":
		text, refusal := respText(it.Content)
		t.Text = text
		if refusal != "" {
			t.Stop = StopRefusal
			if t.Text == "" {
				t.Text = refusal
			}
		}
	}
	return t, nil
}

// respText is a message content's text (a string, or its text parts
// joined) and refusal.
func respText(content json.RawMessage) (text, refusal string) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, ""
	}
	var parts []respPart
	_ = json.Unmarshal(content, &parts)
	var b, r strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "output_text", "input_text", "text":
			b.WriteString(p.Text)
		case "refusal":
			r.WriteString(p.Refusal)
		}
	}
	return b.String(), r.String()
}

// ParseResults reads a function_call_output item's result.
func (ResponsesDialect) ParseResults(msg Message) []RecordedResult {
	var it respItem
	if json.Unmarshal(msg, &it) != nil || it.Type != "function_call_output" {
		return nil
	}
	content, _ := respText(it.Output)
	var e struct {
		Error *string `json:"error"`
	}
	isErr := strings.HasPrefix(content, `{"error":`) && json.Unmarshal([]byte(content), &e) == nil && e.Error != nil
	// An image reads as its label, so that a replay that gets another
	// image, or none, sees a difference.
	var parts []respPart
	_ = json.Unmarshal(it.Output, &parts)
	for _, p := range parts {
		if p.Type == "input_image" {
			content = withLine(content, "[image: "+imageLabel(imageFromDataURL(p.ImageURL))+"]")
		}
	}
	text := content
	if isErr {
		text = *e.Error
	}
	return []RecordedResult{{CallID: it.CallID, Content: content, Text: text, IsError: isErr}}
}

// Role is an item's role: its own for a message; "tool" for the outputs
// the client sends (function_call_output and the other *_output items);
// "assistant" for every other item, which only the model makes.
func (ResponsesDialect) Role(msg Message) string {
	var it struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	if json.Unmarshal(msg, &it) != nil {
		return ""
	}
	switch {
	case it.Role != "":
		return it.Role
	case strings.HasSuffix(it.Type, "_output"):
		return "tool"
	case it.Type == "" || it.Type == "item_reference":
		return ""
	}
	return "assistant"
}

// ResultContents locates a function_call_output item's output.
func (ResponsesDialect) ResultContents(msg Message) []ResultContent {
	var typ, id string
	var output span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"type"`:
			typ, _ = stringValue(msg, v)
		case `"call_id"`:
			id, _ = unquote(msg[v.start:v.end])
		case `"output"`:
			output = v
		}
		return true
	})
	if err != nil || typ != "function_call_output" {
		return nil
	}
	return []ResultContent{{CallID: id, Start: output.start, End: output.end}}
}

// ItemTurns is true: a turn is the run of output items of one response.
func (ResponsesDialect) ItemTurns() bool { return true }

// respTool is a function tool definition; its parameters stay raw so the
// properties keep their order.
type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is always sent: the Responses API makes function tools
	// strict unless told otherwise, and strict mode refuses optional
	// parameters.
	Strict bool `json:"strict"`
}

// ToolDefs writes {"type":"function","name",…,"strict"} definitions; one
// the API would refuse is a *ToolDefError. A schema is made the one Chat
// Completions takes (properties present, no empty additionalProperties
// schema): the two APIs check schemas alike.
func (ResponsesDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for _, d := range defs {
		if p := checkSpec("responses", d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		t := respTool{Type: "function", Name: d.Name, Description: d.Description, Parameters: anySchemas(withProperties(d.Parameters)), Strict: d.Strict}
		if len(t.Parameters) == 0 {
			t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
