package openai

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

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider"
)

// ResponsesConfig configures the Responses provider: an OpenAI
// configuration (the same key, address and limits) and whether responses
// are kept on the server.
type ResponsesConfig struct {
	Config
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
	agent.ResponsesDialect
	svc responses.ResponseService
	cfg ResponsesConfig

	// With Store: the last response's id and the conversation the server
	// holds under it (its input and its output), to send only what is new.
	mu       sync.Mutex
	lastID   string
	lastHeld []agent.Message
}

var _ agent.Provider = (*Responses)(nil)

// NewResponses builds the provider. Like NewChat it fails without an API
// key unless BaseURL points at another server.
func NewResponses(cfg ResponsesConfig) (*Responses, error) {
	opts, err := openAIOptions("responses", &cfg.Config)
	if err != nil {
		return nil, err
	}
	// Only the Responses service, for the reasons given in NewChat.
	return &Responses{svc: responses.NewResponseService(opts...), cfg: cfg}, nil
}

// Model is the model asked.
func (r *Responses) Model() string { return r.cfg.Model }

// BaseURL is the server's address.
func (r *Responses) BaseURL() string { return r.cfg.BaseURL }

// Complete sends the conversation and returns the model's turn: its output
// items, each a message of its own.
func (r *Responses) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
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
		return nil, provider.AnswerFormatHint(err, req.Answer, "text.format")
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
// as (see Chat.body). chained is set when it goes on from a response
// the server holds (previous_response_id).
func (r *Responses) body(req *agent.Request) (_ *provider.Body, chained bool) {
	items := req.Messages
	id, n := r.held(req.Messages)
	if id != "" {
		items = items[n:]
	}
	b := provider.NewBody(2 * (len(items) + len(req.Tools)))
	if req.OnText != nil {
		b.Raw("stream", []byte("true"))
	}
	b.Str("model", r.cfg.Model)
	b.Raw("store", []byte(strconv.FormatBool(r.cfg.Store)))
	// Asked for with Store too: the transcript then holds every reasoning
	// item whole, and a resumed run can go on statelessly.
	b.Raw("include", []byte(`["`+string(responses.ResponseIncludableReasoningEncryptedContent)+`"]`))
	if req.System != "" {
		// Instructions do not carry over with previous_response_id: they
		// are sent on every request.
		b.Str("instructions", req.System)
	}
	if id != "" {
		b.Str("previous_response_id", id)
	}
	if len(req.Tools) > 0 {
		b.Array("tools", req.Tools, nil)
		// The loop answers every call of a turn, concurrently.
		b.Raw("parallel_tool_calls", []byte("true"))
		if req.ToolChoiceNone {
			b.Str("tool_choice", "none")
		}
	}
	if r.cfg.Temperature != nil {
		b.Float("temperature", *r.cfg.Temperature)
	}
	if r.cfg.MaxTokens > 0 {
		b.Num("max_output_tokens", r.cfg.MaxTokens)
	}
	if req.Answer != nil {
		b.Raw("text", responsesTextFormat(req.Answer))
	}
	b.Array("input", items, nil)
	b.End()
	return b, id != ""
}

// held returns the last response's id and how many of msgs the server
// holds under it, when msgs go on from that conversation unchanged; else
// "" (the whole list is sent).
func (r *Responses) held(msgs []agent.Message) (string, int) {
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
	s := r.svc.NewStreaming(httpretry.WithStreamed(ctx), params, send...)
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
			return nil, &agent.ProviderError{Provider: "responses", Message: msg}
		}
	}
	if err := s.Err(); err != nil {
		return nil, r.providerError(err)
	}
	if final == nil {
		// A stream that stops before its last event holds part of a
		// response: taken as the answer it would be a shorter, wrong one.
		return nil, &agent.ProviderError{Provider: "responses", Message: "the stream ended before the response was complete"}
	}
	if len(final.Output) == 0 && len(done) > 0 {
		for _, i := range slices.Sorted(maps.Keys(done)) {
			final.Output = append(final.Output, done[i])
		}
	}
	return final, nil
}

// turn makes a Turn of a response's output items.
func (r *Responses) turn(resp *responses.Response, output []responses.ResponseOutputItemUnion) (*agent.Turn, error) {
	switch resp.Status {
	case responses.ResponseStatusFailed:
		msg := resp.Error.Message
		if resp.Error.Code != "" {
			msg = string(resp.Error.Code) + ": " + msg
		}
		if msg == "" {
			msg = "the response failed"
		}
		return nil, &agent.ProviderError{Provider: "responses", Message: msg}
	case "", responses.ResponseStatusCompleted, responses.ResponseStatusIncomplete:
	default:
		return nil, &agent.ProviderError{Provider: "responses", Message: fmt.Sprintf("the response is %s, not complete", resp.Status)}
	}
	msgs := make([]agent.Message, 0, len(output))
	for _, it := range output {
		m, err := outputItem(it)
		if err != nil {
			return nil, &agent.ProviderError{Provider: "responses", Message: "cannot re-encode an output item: " + err.Error(), Err: err}
		}
		msgs = append(msgs, m)
	}
	turn, err := agent.ParseTurn(r.ResponsesDialect, msgs)
	if err != nil {
		return nil, &agent.ProviderError{Provider: "responses", Message: err.Error(), Err: err}
	}
	// The API has no finish reason, only the response's status, the same
	// ("completed") for a turn that calls tools and one that answers: the
	// reason recorded is the one Chat Completions gives such a turn.
	turn.ResponseID, turn.ResponseModel = resp.ID, string(resp.Model)
	turn.FinishReason = "stop"
	if len(turn.Calls) > 0 {
		turn.FinishReason = "tool_calls"
	}
	if resp.Status == responses.ResponseStatusIncomplete {
		turn.FinishReason = resp.IncompleteDetails.Reason
		turn.Stop = agent.StopMaxTokens
		if turn.FinishReason == "content_filter" {
			turn.Stop = agent.StopRefusal
		}
	}
	if turn.Stop == agent.StopEnd && turn.Empty() {
		return nil, &agent.ProviderError{Provider: "responses", Message: "the response has no content: neither text nor tool calls"}
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
func outputItem(it responses.ResponseOutputItemUnion) (agent.Message, error) {
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
		return agent.Message(it.RawJSON()), nil
	}
	return json.Marshal(p)
}

func (r *Responses) providerError(err error) error {
	pe := apiError(endpointOf(r.Name(), &r.cfg.Config), err)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		return pe
	}
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
	var pe *agent.ProviderError
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
