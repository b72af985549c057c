// Package fakeapi serves scripted model APIs for tests: an OpenAI Chat
// Completions server, an OpenAI Responses server and an Anthropic Messages
// server that play a conversation step by step and check every request they
// receive the way the real API does, answering a violation with the real
// API's 400 and its error text. Tests read the violations back and fail on
// any.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Duration is a time.Duration written as "250ms" in scripts.
type Duration time.Duration

// UnmarshalJSON reads "250ms" or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := time.ParseDuration(s)
		*d = Duration(v)
		return err
	}
	var n int64
	err := json.Unmarshal(b, &n)
	*d = Duration(n)
	return err
}

// Step is one response of a scripted conversation.
type Step struct {
	// Status, when not 200, makes this step an error response with an API
	// error body carrying Error (the server does not advance past a step
	// until it answers 200... unless the step is an error: error steps are
	// consumed like any other).
	Status  int               `json:"status,omitempty"`
	Error   string            `json:"error,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Body is sent verbatim as a JSON response body; RawBody as any bytes.
	Body    json.RawMessage `json:"body,omitempty"`
	RawBody *string         `json:"raw_body,omitempty"`
	// Delay holds the response back.
	Delay Duration `json:"delay,omitempty"`
	// Hang keeps the connection open without answering until the client
	// gives up.
	Hang bool `json:"hang,omitempty"`
	// Cut sends the headers and part of the body, then drops the connection.
	Cut bool `json:"cut,omitempty"`
	// StreamStop ends a streamed answer after this many events, without
	// the events that finish the message: a proxy or server that gave up
	// mid-stream.
	StreamStop int `json:"stream_stop,omitempty"`
	// Stall stops sending without closing, until the client gives up:
	// with StreamStop, after that many events; without it, after the
	// headers and part of a JSON body.
	Stall bool `json:"stall,omitempty"`
	// EventDelay holds each event of a stream back: a slow one.
	EventDelay Duration `json:"event_delay,omitempty"`
	// Endless streams the text and then the text again, over and over,
	// and never finishes the answer, until the client goes away: a model
	// that repeats itself without end, or a server that does not stop.
	// EndlessDelta is about the size of each delta after the first text
	// (the text repeated to it); 0 sends the text once a delta.
	Endless      bool `json:"endless,omitempty"`
	EndlessDelta int  `json:"endless_delta,omitempty"`

	// The assistant turn to return, when Body is empty.
	Text      *string          `json:"text,omitempty"`
	ToolCalls []ToolCall       `json:"tool_calls,omitempty"`
	Extra     map[string]any   `json:"extra,omitempty"` // extra fields on the message
	Thinking  []ThinkingBlock  `json:"thinking,omitempty"`
	Finish    string           `json:"finish,omitempty"` // finish_reason / stop_reason override
	Refusal   string           `json:"refusal,omitempty"`
	Usage     map[string]int64 `json:"usage,omitempty"`

	// Responses only: reasoning items first, then Items (output items of
	// any type, sent as they are), then the message, then the calls.
	// OmitCompletedOutput streams a completed response with output null.
	Reasoning           []Reasoning       `json:"reasoning,omitempty"`
	Items               []json.RawMessage `json:"items,omitempty"`
	OmitCompletedOutput bool              `json:"omit_completed_output,omitempty"`
	// NotKept keeps nothing of the response, whatever store says, as a
	// compatible server without storage does: a request that names it as
	// previous_response_id gets the API's 400 for an unknown response,
	// and no violation is counted for it.
	NotKept bool `json:"not_kept,omitempty"`

	// BatchExpired leaves the request of a batch that reaches this step
	// unrun when the batch's window closes (OpenAI: batch_expired in the
	// error file; Anthropic: an expired result); the request submitted
	// again plays the next step.
	BatchExpired bool `json:"batch_expired,omitempty"`
	// JSON is the answer's text as a JSON value, in place of Text.
	JSON json.RawMessage `json:"json,omitempty"`
	// IgnoreFormat plays a server that takes a structured output request
	// but does not hold the answer to it, as some compatible servers do;
	// without it, an answer the requested schema (strict) or JSON mode
	// does not allow is a mistake of the script.
	IgnoreFormat bool `json:"ignore_format,omitempty"`
	// RefuseFormat plays an OpenAI-compatible server ("llama.cpp",
	// "vllm", "ollama") that answers a request asking for a JSON schema
	// with its error; other requests play the step.
	RefuseFormat string `json:"refuse_format,omitempty"`

	// Expect asserts on the request that this step answers.
	Expect *Expect `json:"expect,omitempty"`
	// IgnoreToolChoice plays the step's tool calls even when the request
	// says none may be made, as some compatible servers do; without it
	// such a step is a mistake of the script.
	IgnoreToolChoice bool `json:"ignore_tool_choice,omitempty"`
}

// ToolCall is one call in a scripted turn.
type ToolCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Arguments string         `json:"arguments"` // JSON text (OpenAI: sent as a string; Anthropic: as the input object)
	Extra     map[string]any `json:"extra,omitempty"`
	OmitType  bool           `json:"omit_type,omitempty"`
}

// ThinkingBlock is an Anthropic thinking block placed before the text.
type ThinkingBlock struct {
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"` // data of a redacted_thinking block
}

// Expect asserts on a request.
type Expect struct {
	// Results maps a call id to a substring its result's content must hold.
	Results map[string]string `json:"results,omitempty"`
	// Errors lists call ids whose result must be an error.
	Errors []string `json:"errors,omitempty"`
	// Messages is the exact number of messages.
	Messages int `json:"messages,omitempty"`
	// Contains are substrings of the raw request body.
	Contains []string `json:"contains,omitempty"`
	// Absent are substrings the raw body must not hold.
	Absent []string `json:"absent,omitempty"`
	// ToolChoice is the tool choice the request must make: "" none at all,
	// else the OpenAI value or the Anthropic type ("none", "auto", …).
	// Nil does not check.
	ToolChoice *string `json:"tool_choice,omitempty"`
	// Cleared are call ids whose results the request must carry cleared:
	// a placeholder starting with "[cleared".
	Cleared []string `json:"cleared,omitempty"`
	// Format is the structured output the request must ask for: "" none,
	// "text", "json_object" or "json_schema". Nil does not check.
	Format *string `json:"format,omitempty"`
}

// LoadScript reads a JSON array of steps.
func LoadScript(b []byte) ([]Step, error) {
	var steps []Step
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&steps); err != nil {
		return nil, fmt.Errorf("fake API script: %w", err)
	}
	return steps, nil
}

// Request is a request the server received.
type Request struct {
	Header http.Header
	Body   []byte
	// Time is when it arrived, for tests of the waits between retries.
	Time time.Time
}

// server is what both fakes share: the script, the log, the violations.
type server struct {
	*httptest.Server
	key string

	mu         sync.Mutex
	requests   []Request
	violations []string
	handler    func(w http.ResponseWriter, r *http.Request, body []byte)

	// conv is the conversation a server of one script plays; convs are
	// those a server of a Conversations script plays, by their prompt.
	conv  convState
	batch *Conversations
	convs map[string]*convState
	// accepted are the times of the requests the rate limit let through
	// in its window; pausedUntil is the end of the last Retry-After sent.
	accepted     []time.Time
	refused      int
	firstRefused time.Time
	pausedUntil  time.Time

	// batches holds the files and batches of the Batch APIs (batch.go).
	batches *batchStore
}

// convState is where one conversation stands.
type convState struct {
	steps []Step
	next  int
	// prompt is the text of the conversation's first user message.
	prompt string

	// lastOK is the request answered last with an assistant turn, and
	// lastTurn that turn: the next request must repeat the one and carry
	// the other back. lastReq is the previous request; retrying marks that
	// it got no turn, so the next request must repeat it.
	lastOK   []json.RawMessage
	lastTurn json.RawMessage
	lastReq  []json.RawMessage
	retrying bool
	// lastItems are the output items of the last Responses turn returned.
	lastItems []json.RawMessage
}

func (s *server) start(h func(w http.ResponseWriter, r *http.Request, body []byte)) {
	s.handler = h
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
}

// startAt serves on a given address (a documented example's fixed port).
func (s *server) startAt(addr string, h func(w http.ResponseWriter, r *http.Request, body []byte)) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.handler = h
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Server.Listener.Close()
	s.Server.Listener = l
	s.Server.Start()
	return nil
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Header: r.Header.Clone(), Body: buf.Bytes(), Time: time.Now()})
	s.mu.Unlock()
	if s.batch != nil {
		w = &pauseWriter{ResponseWriter: w, s: s}
	}
	s.handler(w, r, buf.Bytes())
}

func (s *server) violatef(format string, args ...any) string {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.violations = append(s.violations, fmt.Sprintf("request %d: %s", len(s.requests), msg))
	s.mu.Unlock()
	return msg
}

// nextStep takes the conversation's next step, or nil when its script is
// done.
func (s *server) nextStep(c *convState) (*Step, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.next >= len(c.steps) {
		return nil, c.next
	}
	c.next++
	return &c.steps[c.next-1], c.next - 1
}

// unanswered puts back, of a Conversations script, the step of a request
// whose client went away while the step was held back (it was killed, and
// its rerun sends the request again): the API never answered it. A step
// that hangs, stalls or cuts the answer on purpose stays played.
func (s *server) unanswered(c *convState, r *http.Request, st *Step) {
	if s.batch == nil || st.Hang || st.Cut || st.Stall || r.Context().Err() == nil {
		return
	}
	s.mu.Lock()
	c.next--
	s.mu.Unlock()
}

// Requests returns the bodies received, in order.
func (s *server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Violations returns every grammar or script violation seen.
func (s *server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// Remaining is the number of steps not yet played: of the script, or of
// the conversations a Conversations script has begun.
func (s *server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batch == nil {
		return len(s.conv.steps) - s.conv.next
	}
	n := 0
	for _, c := range s.convs {
		n += len(c.steps) - c.next
	}
	return n
}

// Check returns an error listing the violations, or nil.
func (s *server) Check() error {
	v := s.Violations()
	if len(v) == 0 {
		return nil
	}
	return fmt.Errorf("fake API saw %d violation(s):\n  %s", len(v), strings.Join(v, "\n  "))
}

// authorized checks the key; header is the header carrying it.
func (s *server) authorized(r *http.Request) bool {
	if s.key == "" {
		return true
	}
	return r.Header.Get("Authorization") == "Bearer "+s.key || r.Header.Get("X-Api-Key") == s.key
}

// play handles the transport-level parts of a step: delay, hang, cut, raw
// bodies, headers. It returns false when the step has been answered.
func play(w http.ResponseWriter, r *http.Request, st *Step) bool {
	if done, answered := playInBatch(w, r, st); done {
		return answered
	}
	if st.Delay > 0 {
		select {
		case <-time.After(time.Duration(st.Delay)):
		case <-r.Context().Done():
			return false
		}
	}
	if st.Hang {
		<-r.Context().Done()
		return false
	}
	for k, v := range st.Headers {
		w.Header().Set(k, v)
	}
	if st.Stall && st.StreamStop == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id":"x","choices":[{"index":0,"mess`))
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		<-r.Context().Done()
		return false
	}
	if st.Cut {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id":"x","choices":[{"index":0,"mess`))
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
		return false
	}
	if st.RawBody != nil {
		// A Content-Type among the step's headers wins: a page from a
		// proxy, an event stream written by hand.
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(statusOr(st.Status))
		_, _ = w.Write([]byte(*st.RawBody))
		return false
	}
	if len(st.Body) > 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(statusOr(st.Status))
		_, _ = w.Write(st.Body)
		return false
	}
	return true
}

// eventBudget counts the events of a stream a step lets out: all of them
// unless StreamStop is set. With Stall, the first event past them waits
// until the client has gone. With Endless, the text never ends.
type eventBudget struct {
	left  int
	stall <-chan struct{}
	delay time.Duration

	endless      bool
	endlessDelta int
	gone         <-chan struct{}
}

func newEventBudget(st *Step, r *http.Request) *eventBudget {
	b := &eventBudget{left: -1, delay: time.Duration(st.EventDelay),
		endless: st.Endless, endlessDelta: st.EndlessDelta, gone: r.Context().Done()}
	if st.StreamStop > 0 {
		b.left = st.StreamStop
		if st.Stall {
			b.stall = r.Context().Done()
		}
	}
	return b
}

// take reports whether one more event may be sent.
func (b *eventBudget) take() bool {
	if b.delay > 0 {
		time.Sleep(b.delay)
	}
	if b.left == 0 {
		if b.stall != nil {
			<-b.stall
			b.stall = nil
		}
		return false
	}
	if b.left > 0 {
		b.left--
	}
	return true
}

// text is the deltas a stream sends text in: pieces of about n bytes, and
// with Endless, after them, the text again (repeated to about
// EndlessDelta bytes) until the client has gone.
func (b *eventBudget) text(s string, n int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, piece := range chunks(s, n) {
			if !yield(piece) {
				return
			}
		}
		if !b.endless || s == "" {
			return
		}
		piece := strings.Repeat(s, max(1, b.endlessDelta/len(s)))
		for {
			select {
			case <-b.gone:
				return
			default:
			}
			if !yield(piece) {
				return
			}
		}
	}
}

// CheckOpenAIMessages applies the Chat Completions pairing rules and image
// rules to a conversation and returns the real API's error for the first
// violation.
func CheckOpenAIMessages(msgs []json.RawMessage) error {
	if msg, param := checkOpenAIGrammar(msgs); msg != "" {
		return fmt.Errorf("%s (param %s)", msg, param)
	}
	if msg, param := checkOpenAIImages(msgs); msg != "" {
		return fmt.Errorf("%s (param %s)", msg, param)
	}
	return nil
}

// CheckAnthropicMessages applies the Messages pairing rules and image rules
// to a conversation and returns the real API's error for the first
// violation.
func CheckAnthropicMessages(msgs []json.RawMessage) error {
	if msg := checkAnthropicGrammar(msgs); msg != "" {
		return errors.New(msg)
	}
	if msg := checkAnthropicImages(msgs); msg != "" {
		return errors.New(msg)
	}
	return nil
}

func statusOr(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// As the real APIs write JSON: "<" and "&" as they are, not \u003c.
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// covers reports whether got holds every non-null field of want with the
// same value (recursively for objects; arrays element by element).
func covers(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			if wv == nil {
				continue
			}
			if !covers(g[k], wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !covers(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(got, want)
	}
}

// checkContinuity holds the client to the loop's contract: each request
// repeats the previous conversation and appends the turn it was given, with
// every field of that turn sent back (but the response-only ones named);
// a retry repeats the request as it was.
func (s *server) checkContinuity(c *convState, msgs []json.RawMessage, responseOnly ...string) {
	s.mu.Lock()
	lastOK, lastTurn, lastReq, retrying := c.lastOK, c.lastTurn, c.lastReq, c.retrying
	s.mu.Unlock()
	if retrying {
		if !sameMessages(msgs, lastReq) {
			s.violatef("a retry changed the conversation: %d messages, then %d", len(lastReq), len(msgs))
		}
		return
	}
	if lastOK == nil {
		return
	}
	if s.batch != nil && sameMessages(msgs, lastOK) {
		// The request again, as a client that was killed before it wrote
		// the answer down sends it when it goes on: the answer was lost,
		// and the step that gave it answers again.
		s.mu.Lock()
		c.next--
		s.mu.Unlock()
		return
	}
	if len(msgs) <= len(lastOK) {
		s.violatef("the conversation did not grow: %d messages after %d", len(msgs), len(lastOK))
		return
	}
	for i := range lastOK {
		if !jsonEqual(msgs[i], lastOK[i]) && !clearedOnly(lastOK[i], msgs[i]) {
			s.violatef("message %d changed between requests: was %s, now %s", i, lastOK[i], msgs[i])
			return
		}
	}
	var got, want any
	_ = json.Unmarshal(msgs[len(lastOK)], &got)
	_ = json.Unmarshal(lastTurn, &want)
	if wm, ok := want.(map[string]any); ok {
		for _, k := range responseOnly {
			delete(wm, k)
		}
	}
	if !covers(got, want) {
		s.violatef("the assistant turn did not come back as returned: sent %s, got back %s", lastTurn, msgs[len(lastOK)])
	}
}

// ClearedPrefix starts the placeholder that stands in for a cleared tool
// result.
const ClearedPrefix = "[cleared"

// clearedOnly reports whether now is was with the content of some of its
// tool results replaced by a placeholder: a message that answers calls may
// change between requests so, and only so (an OpenAI tool message's
// content; an Anthropic tool_result block's; a Responses
// function_call_output's output).
func clearedOnly(was, now json.RawMessage) bool {
	var w, n map[string]any
	if json.Unmarshal(was, &w) != nil || json.Unmarshal(now, &n) != nil {
		return false
	}
	placeholder := func(v any) bool {
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, ClearedPrefix)
	}
	if w["type"] == "function_call_output" {
		if !placeholder(n["output"]) {
			return false
		}
		delete(w, "output")
		delete(n, "output")
		return reflect.DeepEqual(w, n)
	}
	switch w["role"] {
	case "tool":
		if !placeholder(n["content"]) {
			return false
		}
		delete(w, "content")
		delete(n, "content")
		return reflect.DeepEqual(w, n)
	case "user":
		wb, ok1 := w["content"].([]any)
		nb, ok2 := n["content"].([]any)
		if !ok1 || !ok2 || len(wb) != len(nb) {
			return false
		}
		for i := range wb {
			x, _ := wb[i].(map[string]any)
			y, _ := nb[i].(map[string]any)
			if x != nil && y != nil && x["type"] == "tool_result" && y["type"] == "tool_result" && placeholder(y["content"]) {
				delete(x, "content")
				delete(y, "content")
			}
		}
		delete(w, "content")
		delete(n, "content")
		return reflect.DeepEqual(w, n) && reflect.DeepEqual(wb, nb)
	}
	return false
}

// checkToolChoice holds a step's turn to the tool choice of its request:
// a request that says no tool may be called gets no call, unless the step
// plays a server that ignores it.
func (s *server) checkToolChoice(choice string, st *Step) {
	if choice == "none" && len(st.ToolCalls) > 0 && !st.IgnoreToolChoice {
		s.violatef("the request's tool choice is none, but the script answers it with tool calls (set ignore_tool_choice to play a server that ignores it)")
	}
}

// requestStarted records the request's messages before a step plays.
func (s *server) requestStarted(c *convState, msgs []json.RawMessage) {
	s.mu.Lock()
	c.lastReq, c.retrying = msgs, true
	s.mu.Unlock()
}

// turnReturned records the turn a request was answered with.
func (s *server) turnReturned(c *convState, msgs []json.RawMessage, turn json.RawMessage) {
	s.mu.Lock()
	c.lastOK, c.lastTurn, c.retrying = msgs, turn, false
	s.mu.Unlock()
}

func sameMessages(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !jsonEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// result is a tool result found in a request.
type result struct {
	text    string
	isError bool
}

// checkExpect holds a request to a step's expectations; choice is the
// request's tool choice ("" for none given).
func (s *server) checkExpect(e *Expect, messages int, results map[string]result, body []byte, choice string) {
	if e.ToolChoice != nil && *e.ToolChoice != choice {
		s.violatef("tool choice %q, want %q", choice, *e.ToolChoice)
	}
	for _, id := range e.Cleared {
		if r, ok := results[id]; !ok || !strings.HasPrefix(r.text, ClearedPrefix) {
			s.violatef("the result of %s should be cleared, got %q", id, r.text)
		}
	}
	if e.Messages != 0 && e.Messages != messages {
		s.violatef("expected %d messages, got %d", e.Messages, messages)
	}
	for id, sub := range e.Results {
		r, ok := results[id]
		if !ok {
			s.violatef("expected a result for %s", id)
		} else if !strings.Contains(r.text, sub) {
			s.violatef("result for %s: %q does not contain %q", id, r.text, sub)
		}
	}
	for _, id := range e.Errors {
		if r, ok := results[id]; !ok || !r.isError {
			s.violatef("result for %s should be an error, got %+v", id, r)
		}
	}
	for _, sub := range e.Contains {
		if !strings.Contains(string(body), sub) {
			s.violatef("request body does not contain %q", sub)
		}
	}
	for _, sub := range e.Absent {
		if strings.Contains(string(body), sub) {
			s.violatef("request body contains %q", sub)
		}
	}
}
