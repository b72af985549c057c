package fakeapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Responses is a fake OpenAI Responses API server. Besides the grammar of
// the items it receives, it holds the client to what it returned: every
// output item comes back as it was sent, a reasoning item with the
// ciphertext of the completed response, an item that came with a reasoning
// item after it; with store it keeps responses and takes
// previous_response_id.
type Responses struct {
	server

	// Keyed by item id, the state of what this server returned.
	final     map[string]string // reasoning id → the ciphertext the API expects back
	rawFinal  map[string]string // reasoning id → the item's bytes, as returned
	reasoning map[string]string // id of an item → the reasoning item it came with
	stored    map[string][]json.RawMessage
	storedIDs map[string]bool // items held server-side (a response made with store)
	notKept   map[string]bool // responses a NotKept step made
}

// responseCount numbers the responses of every server of the process.
var responseCount atomic.Uint64

// NewResponses starts a server playing steps. A non-empty key must come as
// "Authorization: Bearer <key>". Its URL + "/v1" is the base URL.
func NewResponses(steps []Step, key string) *Responses {
	s := newResponses(key)
	s.conv.steps = steps
	s.start(s.handle)
	return s
}

// NewResponsesConversations starts a Responses server playing c.
func NewResponsesConversations(c *Conversations, key string) *Responses {
	s := newResponses(key)
	s.batch, s.convs = c, map[string]*convState{}
	s.start(s.handle)
	return s
}

func newResponses(key string) *Responses {
	s := &Responses{final: map[string]string{}, rawFinal: map[string]string{}, reasoning: map[string]string{},
		stored: map[string][]json.RawMessage{}, storedIDs: map[string]bool{}, notKept: map[string]bool{}}
	s.key = key
	return s
}

// BaseURL is the address to give the client.
func (s *Responses) BaseURL() string { return s.URL + "/v1" }

// Reasoning is a reasoning item of a Responses turn, placed first.
type Reasoning struct {
	Summary string `json:"summary,omitempty"`
	// NoCiphertext returns the item with encrypted_content null, as a
	// server does that was not asked for it.
	NoCiphertext bool `json:"no_ciphertext,omitempty"`
}

type respRequest struct {
	Model              string            `json:"model"`
	Input              json.RawMessage   `json:"input"`
	Instructions       *string           `json:"instructions"`
	Tools              []json.RawMessage `json:"tools"`
	Stream             bool              `json:"stream"`
	Store              *bool             `json:"store"`
	Include            []string          `json:"include"`
	PreviousResponseID *string           `json:"previous_response_id"`
	ParallelToolCalls  *bool             `json:"parallel_tool_calls"`
	MaxOutputTokens    *int64            `json:"max_output_tokens"`
	ToolChoice         json.RawMessage   `json:"tool_choice"`
	// Text asks for structured output in its format (structured.go).
	Text json.RawMessage `json:"text"`
}

// toolChoice reads a Responses tool_choice: "none", "auto" or "required",
// or the type of a named choice; the real API's error for anything else.
func (r *respRequest) toolChoice() (string, *grammarError) {
	if len(r.ToolChoice) == 0 || string(r.ToolChoice) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(r.ToolChoice, &s) == nil {
		switch s {
		case "none", "auto", "required":
			return s, nil
		}
		return "", &grammarError{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'auto', and 'required'.", s), param: "tool_choice"}
	}
	var named struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.ToolChoice, &named) != nil || named.Type == "" {
		return "", &grammarError{msg: "Invalid type for 'tool_choice': expected one of a string or an object, but got something else instead.", param: "tool_choice"}
	}
	return named.Type, nil
}

// respInItem holds the fields of an input item the rules look at.
type respInItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	ID               string          `json:"id"`
	CallID           *string         `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	EncryptedContent *string         `json:"encrypted_content"`
}

func (it *respInItem) kind() string {
	if it.Type == "" && it.Role != "" {
		return "message"
	}
	return it.Type
}

// respError is a Responses API error; code may be "".
func respError(w http.ResponseWriter, status int, msg, typ, param, code string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if param != "" {
		e["param"] = param
	}
	if code != "" {
		e["code"] = code
	}
	writeJSON(w, status, map[string]any{"error": e})
}

// grammarError is a rule the request broke, with the real API's text.
type grammarError struct {
	msg, param, code string
	// scripted is set when the script made the server answer so: not a
	// mistake of the client's.
	scripted bool
}

func (s *Responses) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if s.serveBatches(w, r, body) {
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/responses") || r.Method != http.MethodPost {
		s.violatef("unexpected %s %s", r.Method, r.URL.Path)
		respError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "", "")
		return
	}
	if !s.authorized(r) {
		respError(w, http.StatusUnauthorized, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
		return
	}
	var req respRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.violatef("body is not JSON: %v", err)
		respError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error", "", "")
		return
	}
	store := req.Store == nil || *req.Store
	gerr := checkMaxOutputTokens(req.MaxOutputTokens)
	var input []json.RawMessage
	if gerr == nil {
		input, gerr = s.conversation(&req)
	}
	if gerr == nil {
		gerr = checkResponsesTools(req.Tools)
	}
	if gerr == nil {
		gerr = checkResponsesItems(input, store, s.snapshot())
	}
	if gerr == nil {
		gerr = checkResponsesImages(input)
	}
	if gerr == nil {
		gerr = checkReasoningModel(req.Model, input)
	}
	var f format
	if gerr == nil {
		f, gerr = responsesFormat(req.Text, input)
	}
	choice, cerr := req.toolChoice()
	if gerr == nil {
		gerr = cerr
	}
	if gerr != nil {
		if !gerr.scripted {
			s.violatef("%s (param %s)", gerr.msg, gerr.param)
		}
		respError(w, http.StatusBadRequest, gerr.msg, "invalid_request_error", gerr.param, gerr.code)
		return
	}
	c, ok := s.server.conversation(w, input, func(w http.ResponseWriter, status int, msg string) {
		respError(w, status, msg, "requests", "", "rate_limit_exceeded")
	})
	if !ok {
		return
	}
	s.checkResponsesContinuity(c, input)
	s.checkReasoningBytes(req.Input, body)

	st, n := s.nextStep(c)
	if st == nil {
		s.violatef("unexpected request: the script has %d steps", n)
		respError(w, http.StatusInternalServerError, "script exhausted", "server_error", "", "")
		return
	}
	if st.Expect != nil {
		var sent []json.RawMessage
		_ = json.Unmarshal(req.Input, &sent)
		s.checkExpect(st.Expect, len(sent), responsesResults(input), body, choice)
	}
	s.checkFormatExpect(st.Expect, f)
	if st.RefuseFormat != "" {
		s.violatef("refuse_format plays a Chat Completions server")
	}
	s.checkToolChoice(choice, st)
	s.requestStarted(c, input)
	if !play(w, r, st) {
		s.unanswered(c, r, st)
		return
	}
	if st.Status != 0 && st.Status != http.StatusOK {
		msg := st.Error
		if msg == "" {
			msg = http.StatusText(st.Status)
		}
		typ := "server_error"
		if st.Status < 500 {
			typ = "invalid_request_error"
		}
		respError(w, st.Status, msg, typ, "", "")
		return
	}
	s.checkAnswer(f, st)

	// Ids are unique across servers, as the API's are: a resumed run
	// talks to a new server about items an earlier one made.
	key := fmt.Sprintf("%016x", responseCount.Add(1)*0x9e3779b97f4a7c15)
	out := s.output(st, key, time.Now().Unix(), slices.Contains(req.Include, "reasoning.encrypted_content"))
	// The input tokens count the conversation a request stands for: with
	// previous_response_id, the items the server held too.
	size := len(body)
	if req.PreviousResponseID != nil {
		for _, it := range input[:len(input)-inputLen(&req)] {
			size += len(it)
		}
	}
	resp := s.response(&req, st, key, out.completed, size)
	s.turnReturned(c, input, nil)
	s.remember(c, out)
	if st.NotKept {
		s.mu.Lock()
		s.notKept[resp["id"].(string)] = true
		s.mu.Unlock()
	} else if store {
		held := append(append([]json.RawMessage(nil), input...), out.completed...)
		s.mu.Lock()
		s.stored[resp["id"].(string)] = held
		for _, it := range held {
			var item respInItem
			if json.Unmarshal(it, &item) == nil && item.ID != "" {
				s.storedIDs[item.ID] = true
			}
		}
		s.mu.Unlock()
	}
	if req.Stream {
		s.stream(w, resp, out, st, newEventBudget(st, r))
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// inputLen is how many items a request's input holds.
func inputLen(req *respRequest) int {
	if len(req.Input) > 0 && req.Input[0] == '"' {
		return 1
	}
	var items []json.RawMessage
	_ = json.Unmarshal(req.Input, &items)
	return len(items)
}

// conversation is the whole item list a request stands for: the items
// held under previous_response_id, then its input.
func (s *Responses) conversation(req *respRequest) ([]json.RawMessage, *grammarError) {
	var input []json.RawMessage
	if len(req.Input) > 0 && req.Input[0] == '"' {
		var text string
		_ = json.Unmarshal(req.Input, &text)
		b, _ := json.Marshal(map[string]string{"role": "user", "content": text})
		input = []json.RawMessage{b}
	} else if err := json.Unmarshal(req.Input, &input); err != nil && len(req.Input) > 0 {
		return nil, &grammarError{msg: "Invalid type for 'input': expected one of a string or an array of input items, but got an object instead.", param: "input"}
	}
	if req.PreviousResponseID == nil {
		return input, nil
	}
	s.mu.Lock()
	held, ok := s.stored[*req.PreviousResponseID]
	forgotten := s.notKept[*req.PreviousResponseID]
	s.mu.Unlock()
	if !ok {
		// The API's answer to a response it does not hold: one made with
		// store false, or kept by no server.
		return nil, &grammarError{msg: fmt.Sprintf("Previous response with id '%s' not found.", *req.PreviousResponseID),
			param: "previous_response_id", code: "previous_response_not_found", scripted: forgotten}
	}
	return append(append([]json.RawMessage(nil), held...), input...), nil
}

// issued is what the server returned so far, for the rules that depend on
// it.
type issued struct {
	final     map[string]string
	reasoning map[string]string
	stored    map[string]bool
	// earlier is set when the server holds items that come before the
	// list and are not in it (a conversation this server does not know).
	earlier bool
}

func (s *Responses) snapshot() issued {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := issued{final: map[string]string{}, reasoning: map[string]string{}, stored: map[string]bool{}}
	for k, v := range s.final {
		is.final[k] = v
	}
	for k, v := range s.reasoning {
		is.reasoning[k] = v
	}
	for k, v := range s.storedIDs {
		is.stored[k] = v
	}
	return is
}

// minOutputTokens is the least max_output_tokens the API takes.
const minOutputTokens = 16

// checkMaxOutputTokens refuses a max_output_tokens below the API's
// minimum, with its text.
func checkMaxOutputTokens(n *int64) *grammarError {
	if n == nil || *n >= minOutputTokens {
		return nil
	}
	return &grammarError{
		msg:   fmt.Sprintf("Invalid 'max_output_tokens': integer below minimum value. Expected a value >= %d, but got %d instead.", minOutputTokens, *n),
		param: "max_output_tokens", code: "integer_below_min_value",
	}
}

// checkResponsesTools requires what the API requires of a function tool.
func checkResponsesTools(tools []json.RawMessage) *grammarError {
	for i, raw := range tools {
		var t struct {
			Type   string          `json:"type"`
			Name   string          `json:"name"`
			Strict json.RawMessage `json:"strict"`
		}
		if err := json.Unmarshal(raw, &t); err != nil || t.Type != "function" {
			continue
		}
		if t.Name == "" {
			return &grammarError{msg: fmt.Sprintf("Missing required parameter: 'tools[%d].name'.", i), param: fmt.Sprintf("tools[%d].name", i)}
		}
		if !toolNamePattern.MatchString(t.Name) {
			return &grammarError{msg: fmt.Sprintf("Invalid 'tools[%d].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i), param: fmt.Sprintf("tools[%d].name", i)}
		}
		if len(t.Strict) == 0 || string(t.Strict) == "null" {
			// Absent, it is true: a schema with optional properties is
			// then refused.
			return &grammarError{msg: fmt.Sprintf("Missing required parameter: 'tools[%d].strict'.", i), param: fmt.Sprintf("tools[%d].strict", i)}
		}
	}
	return nil
}

// CheckResponsesItems applies the Responses rules to an item list sent
// statelessly (store false) and returns the real API's error for the first
// violation.
func CheckResponsesItems(items []json.RawMessage) error {
	if e := checkResponsesItems(items, false, issued{}); e != nil {
		return fmt.Errorf("%s (param %s)", e.msg, e.param)
	}
	if e := checkResponsesImages(items); e != nil {
		return fmt.Errorf("%s (param %s)", e.msg, e.param)
	}
	return nil
}

// checkResponsesItems applies the pairing and reasoning rules to an item
// list and returns the real API's error text for the first violation. is
// holds what this server returned (empty for items it did not make).
func checkResponsesItems(items []json.RawMessage, store bool, is issued) *grammarError {
	input := func(msg string) *grammarError { return &grammarError{msg: msg, param: "input"} }
	seenIDs := map[string]bool{}
	calls := map[string]bool{}
	var pending []string
	// The reasoning items of the current run of output items.
	runReasoning := map[string]bool{}
	for i, raw := range items {
		var it respInItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return &grammarError{msg: fmt.Sprintf("Invalid type for 'input[%d]': expected an input item, but got %s instead.", i, jsonKind(raw)), param: fmt.Sprintf("input[%d]", i)}
		}
		kind := it.kind()
		if it.ID != "" {
			if seenIDs[it.ID] {
				return input(fmt.Sprintf("Duplicate item found with id %s. Remove duplicate items from your input and try again.", it.ID))
			}
			seenIDs[it.ID] = true
		}
		isOutput := (kind != "message" && !strings.HasSuffix(kind, "_output")) || (kind == "message" && it.Role == "assistant")
		if !isOutput {
			clear(runReasoning)
		}
		// An item that came with a reasoning item needs it in front.
		if rs, ok := is.reasoning[it.ID]; ok && !runReasoning[rs] {
			return input(fmt.Sprintf("Item '%s' of type '%s' was provided without its required 'reasoning' item: '%s'.", it.ID, kind, rs))
		}
		switch {
		case kind == "reasoning":
			noCipher := it.EncryptedContent == nil || *it.EncryptedContent == ""
			switch want, ok := is.final[it.ID]; {
			case noCipher && !store && !is.stored[it.ID]:
				// Without its ciphertext the item is looked up by id, and
				// nothing was kept.
				return input(fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", it.ID))
			case !noCipher && ok && *it.EncryptedContent != want:
				return &grammarError{msg: fmt.Sprintf("The encrypted content %s could not be verified.", shortCipher(*it.EncryptedContent)), code: "invalid_encrypted_content"}
			}
			// OpenAI's reasoning items (rs_…) belong to the item after
			// them; other servers' (DeepSeek's) need none.
			if strings.HasPrefix(it.ID, "rs_") && !followedByItsItem(items, i) {
				return input(fmt.Sprintf("Item '%s' of type 'reasoning' was provided without its required following item.", it.ID))
			}
			runReasoning[it.ID] = true
		case kind == "function_call":
			if it.CallID == nil || *it.CallID == "" {
				return &grammarError{msg: fmt.Sprintf("Missing required parameter: 'input[%d].call_id'.", i), param: fmt.Sprintf("input[%d].call_id", i)}
			}
			if len(it.Arguments) == 0 || it.Arguments[0] != '"' {
				return &grammarError{msg: fmt.Sprintf("Invalid type for 'input[%d].arguments': expected a string, but got %s instead.", i, jsonKind(it.Arguments)), param: fmt.Sprintf("input[%d].arguments", i)}
			}
			if len(*it.CallID) > 64 {
				return &grammarError{msg: fmt.Sprintf("Invalid 'input[%d].call_id': string too long. Expected a string with maximum length 64, but got a string with length %d instead.", i, len(*it.CallID)), param: fmt.Sprintf("input[%d].call_id", i)}
			}
			calls[*it.CallID] = true
			pending = append(pending, *it.CallID)
		case kind == "function_call_output":
			if it.CallID == nil || (!calls[*it.CallID] && !is.earlier) {
				id := ""
				if it.CallID != nil {
					id = *it.CallID
				}
				return input(fmt.Sprintf("No tool call found for function call output with call_id %s.", id))
			}
			if len(it.Output) == 0 || string(it.Output) == "null" {
				return &grammarError{msg: fmt.Sprintf("Missing required parameter: 'input[%d].output'.", i), param: fmt.Sprintf("input[%d].output", i)}
			}
			for k, p := range pending {
				if p == *it.CallID {
					pending = append(pending[:k], pending[k+1:]...)
					break
				}
			}
		case kind == "message":
			// The model's own message among its output items leaves its
			// calls open: the official API pairs them with their outputs
			// by call_id (DeepSeek's does not).
			if len(pending) > 0 && (it.Type != "message" || it.Role != "assistant") {
				return input(fmt.Sprintf("No tool output found for function call %s.", pending[0]))
			}
		}
	}
	if len(pending) > 0 {
		return input(fmt.Sprintf("No tool output found for function call %s.", pending[0]))
	}
	return nil
}

// nonReasoningModel matches the names of OpenAI's models that do not
// reason (gpt-4o, gpt-4.1, gpt-3.5-turbo, chatgpt-4o-latest).
var nonReasoningModel = regexp.MustCompile(`^(gpt-4|gpt-3\.5|chatgpt-)`)

// checkReasoningModel refuses reasoning items sent to one of OpenAI's
// models that do not reason, as after a conversation goes on with another
// model, with the real API's text. Other names (DeepSeek's, Bedrock's)
// take them.
func checkReasoningModel(model string, items []json.RawMessage) *grammarError {
	if !nonReasoningModel.MatchString(model) {
		return nil
	}
	for _, raw := range items {
		var it respInItem
		if json.Unmarshal(raw, &it) == nil && it.Type == "reasoning" {
			return &grammarError{msg: "Reasoning input items can only be provided to a reasoning or computer use model. Remove reasoning items from your input and try again."}
		}
	}
	return nil
}

// followedByItsItem reports whether the reasoning item at i is followed by
// an output item (or another reasoning item of the same run) rather than
// by the end of the input or an item the client writes.
func followedByItsItem(items []json.RawMessage, i int) bool {
	for _, raw := range items[i+1:] {
		var it respInItem
		if json.Unmarshal(raw, &it) != nil {
			return false
		}
		switch k := it.kind(); {
		case k == "reasoning":
			continue
		case k == "message":
			// Output messages carry their type; a hand-written
			// {"role": …} message is not the item that came with it.
			return it.Type == "message" && it.Role == "assistant"
		case strings.HasSuffix(k, "_output"):
			return false
		}
		return true
	}
	return false
}

func jsonKind(raw json.RawMessage) string {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "":
		return "nothing"
	case s[0] == '{':
		return "an object"
	case s[0] == '[':
		return "an array"
	case s[0] == '"':
		return "a string"
	case s == "null":
		return "null"
	case s == "true" || s == "false":
		return "a boolean"
	}
	return "a number"
}

// shortCipher is a ciphertext as the API quotes it: its first and last four
// characters.
func shortCipher(c string) string {
	if len(c) <= 8 {
		return c
	}
	return c[:4] + "..." + c[len(c)-4:]
}

// checkResponsesContinuity holds the client to the loop's contract: each
// request repeats the previous conversation and the items it was given,
// as given; a retry repeats the request.
func (s *Responses) checkResponsesContinuity(c *convState, items []json.RawMessage) {
	s.mu.Lock()
	lastOK, lastTurn, lastReq, retrying := c.lastOK, c.lastItems, c.lastReq, c.retrying
	s.mu.Unlock()
	if retrying {
		if !sameMessages(items, lastReq) {
			s.violatef("a retry changed the conversation: %d items, then %d", len(lastReq), len(items))
		}
		return
	}
	if lastOK == nil {
		return
	}
	if s.batch != nil && sameMessages(items, lastOK) {
		// Sent again by a client killed before it wrote the answer down:
		// the step that gave it answers again.
		s.mu.Lock()
		c.next--
		s.mu.Unlock()
		return
	}
	want := append(append([]json.RawMessage(nil), lastOK...), lastTurn...)
	if len(items) <= len(want) {
		s.violatef("the conversation did not grow: %d items after %d", len(items), len(want))
		return
	}
	for i := range want {
		if !jsonEqual(items[i], want[i]) && !clearedOnly(want[i], items[i]) {
			s.violatef("item %d changed between requests: was %s, now %s", i, want[i], items[i])
			return
		}
	}
}

// checkReasoningBytes holds the client to sending each reasoning item this
// server returned byte for byte, as it was returned, whenever it sends it.
func (s *Responses) checkReasoningBytes(input json.RawMessage, body []byte) {
	var sent []respInItem
	_ = json.Unmarshal(input, &sent)
	var changed []string
	s.mu.Lock()
	for _, it := range sent {
		if raw, ok := s.rawFinal[it.ID]; ok && it.Type == "reasoning" && !strings.Contains(string(body), raw) {
			changed = append(changed, raw)
		}
	}
	s.mu.Unlock()
	for _, raw := range changed {
		s.violatef("reasoning item not sent back byte-identical: %s", raw)
	}
}

// respOutput is a turn's output items in the forms a stream shows them.
type respOutput struct {
	added     []json.RawMessage // as output_item.added announces them
	done      []json.RawMessage // as output_item.done gives them
	completed []json.RawMessage // as the completed response holds them
}

// remember notes what the client must send back: each reasoning item's
// final ciphertext, and the reasoning item each other item came with; and
// the items of the conversation's last turn.
func (s *Responses) remember(c *convState, out respOutput) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.lastItems = out.completed
	rs := ""
	for _, raw := range out.completed {
		var it respInItem
		_ = json.Unmarshal(raw, &it)
		switch {
		case it.Type == "reasoning":
			rs = it.ID
			s.rawFinal[it.ID] = string(raw)
			if it.EncryptedContent != nil {
				s.final[it.ID] = *it.EncryptedContent
			}
		case rs != "" && it.ID != "":
			s.reasoning[it.ID] = rs
		}
	}
}

// output builds a step's output items: reasoning, any extra items, the
// message, the function calls. A reasoning item carries its ciphertext
// when the request asked for it.
func (s *Responses) output(st *Step, key string, now int64, withCipher bool) respOutput {
	var out respOutput
	n := 0
	id := func(prefix string) string {
		n++
		return fmt.Sprintf("%s_%s00%08x%024x", prefix, key, now, uint64(n)*0x2545f4914f6cdd1d)
	}
	add := func(added, done, completed any) {
		for _, p := range []struct {
			v   any
			dst *[]json.RawMessage
		}{{added, &out.added}, {done, &out.done}, {completed, &out.completed}} {
			b, _ := json.Marshal(p.v)
			*p.dst = append(*p.dst, b)
		}
	}
	for _, r := range st.Reasoning {
		rid := id("rs")
		summary := []any{}
		if r.Summary != "" {
			summary = []any{map[string]any{"type": "summary_text", "text": r.Summary}}
		}
		item := func(cipher any, summary []any) map[string]any {
			return map[string]any{"id": rid, "type": "reasoning", "encrypted_content": cipher, "summary": summary}
		}
		if r.NoCiphertext || !withCipher {
			add(item(nil, []any{}), item(nil, summary), item(nil, summary))
			continue
		}
		// The stream's three forms differ: the first is cut short; the
		// other two are whole, of one length, with different bytes (a
		// fresh IV each time).
		add(item(cipher(rid, "added", 24), []any{}), item(cipher(rid, "done", 48), summary), item(cipher(rid, "completed", 48), summary))
	}
	for _, raw := range st.Items {
		add(raw, raw, raw)
	}
	if st.Text != nil || st.Refusal != "" {
		var content []any
		if st.Text != nil {
			content = append(content, map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": *st.Text})
		}
		if st.Refusal != "" {
			content = append(content, map[string]any{"type": "refusal", "refusal": st.Refusal})
		}
		mid := id("msg")
		status := "completed"
		if st.Finish != "" {
			status = "incomplete"
		}
		m := map[string]any{"id": mid, "type": "message", "status": status, "content": content, "role": "assistant"}
		for k, v := range st.Extra {
			m[k] = v
		}
		add(map[string]any{"id": mid, "type": "message", "status": "in_progress", "content": []any{}, "role": "assistant"}, m, m)
	}
	for _, tc := range st.ToolCalls {
		fid := id("fc")
		call := map[string]any{"id": fid, "type": "function_call", "status": "completed", "arguments": tc.Arguments, "call_id": tc.ID, "name": tc.Name}
		for k, v := range tc.Extra {
			call[k] = v
		}
		add(map[string]any{"id": fid, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": tc.ID, "name": tc.Name}, call, call)
	}
	if st.OmitCompletedOutput {
		// The completed response names no output: the client has only
		// what each output_item.done gave, which is then what counts.
		out.completed = out.done
	}
	return out
}

// cipher makes a ciphertext that looks like the API's (a Fernet token) and
// depends on the item and on which form of it this is.
func cipher(id, form string, n int) string {
	var b []byte
	for i := 0; len(b) < n; i++ {
		sum := sha256.Sum256(fmt.Appendf(nil, "%s/%s/%d", id, form, i))
		b = append(b, sum[:]...)
	}
	return "gAAAAAB" + base64.URLEncoding.EncodeToString(b[:n])
}

// response is the Response object of a step.
func (s *Responses) response(req *respRequest, st *Step, key string, output []json.RawMessage, bodyLen int) map[string]any {
	status := "completed"
	var incomplete any
	if st.Finish != "" {
		status = "incomplete"
		incomplete = map[string]any{"reason": st.Finish}
	}
	var outLen int
	for _, o := range output {
		outLen += len(o)
	}
	usage := map[string]any{
		"input_tokens":          int64(bodyLen / 4),
		"input_tokens_details":  map[string]any{"cached_tokens": st.Usage["cached_tokens"]},
		"output_tokens":         int64(10 + outLen/4),
		"output_tokens_details": map[string]any{"reasoning_tokens": st.Usage["reasoning_tokens"]},
	}
	if v, ok := st.Usage["input_tokens"]; ok {
		usage["input_tokens"] = v
	}
	if v, ok := st.Usage["output_tokens"]; ok {
		usage["output_tokens"] = v
	}
	usage["total_tokens"] = usage["input_tokens"].(int64) + usage["output_tokens"].(int64)
	store := req.Store == nil || *req.Store
	parallel := req.ParallelToolCalls == nil || *req.ParallelToolCalls
	tools := req.Tools
	if tools == nil {
		tools = []json.RawMessage{}
	}
	return map[string]any{
		"id": "resp_" + key, "object": "response", "created_at": time.Now().Unix(), "status": status,
		"background": false, "error": nil, "incomplete_details": incomplete, "instructions": req.Instructions,
		"max_output_tokens": req.MaxOutputTokens, "model": req.Model, "output": output,
		"parallel_tool_calls": parallel, "previous_response_id": req.PreviousResponseID,
		"reasoning": map[string]any{"effort": "medium", "summary": nil}, "store": store, "temperature": 1,
		"text": map[string]any{"format": map[string]any{"type": "text"}}, "tool_choice": "auto", "tools": tools,
		"top_p": 1, "truncation": "disabled", "usage": usage, "user": nil, "metadata": map[string]any{},
	}
}

// stream answers with the Responses API's server-sent events, in the order
// the API sends them.
func (s *Responses) stream(w http.ResponseWriter, resp map[string]any, out respOutput, st *Step, budget *eventBudget) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	seq := 0
	send := func(typ string, fields map[string]any) {
		if !budget.take() {
			return
		}
		ev := map[string]any{"type": typ, "sequence_number": seq}
		for k, v := range fields {
			ev[k] = v
		}
		seq++
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
		if fl != nil {
			fl.Flush()
		}
	}
	start := map[string]any{}
	for k, v := range resp {
		start[k] = v
	}
	start["status"], start["output"], start["usage"], start["incomplete_details"] = "in_progress", []any{}, nil, nil
	send("response.created", map[string]any{"response": start})
	send("response.in_progress", map[string]any{"response": start})
	for i := range out.done {
		var item map[string]any
		_ = json.Unmarshal(out.done[i], &item)
		id, _ := item["id"].(string)
		at := map[string]any{"item_id": id, "output_index": i}
		with := func(extra map[string]any) map[string]any {
			m := map[string]any{}
			for k, v := range at {
				m[k] = v
			}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
		send("response.output_item.added", map[string]any{"output_index": i, "item": json.RawMessage(out.added[i])})
		switch item["type"] {
		case "reasoning":
			summary, _ := item["summary"].([]any)
			for j, p := range summary {
				text, _ := p.(map[string]any)["text"].(string)
				send("response.reasoning_summary_part.added", with(map[string]any{"summary_index": j, "part": map[string]any{"type": "summary_text", "text": ""}}))
				for _, d := range chunks(text, 8) {
					send("response.reasoning_summary_text.delta", with(map[string]any{"summary_index": j, "delta": d}))
				}
				send("response.reasoning_summary_text.done", with(map[string]any{"summary_index": j, "text": text}))
				send("response.reasoning_summary_part.done", with(map[string]any{"summary_index": j, "part": map[string]any{"type": "summary_text", "text": text}}))
			}
		case "message":
			content, _ := item["content"].([]any)
			for j, c := range content {
				part := c.(map[string]any)
				if part["type"] == "refusal" {
					text, _ := part["refusal"].(string)
					send("response.content_part.added", with(map[string]any{"content_index": j, "part": map[string]any{"type": "refusal", "refusal": ""}}))
					for _, d := range chunks(text, 7) {
						send("response.refusal.delta", with(map[string]any{"content_index": j, "delta": d}))
					}
					send("response.refusal.done", with(map[string]any{"content_index": j, "refusal": text}))
				} else {
					text, _ := part["text"].(string)
					send("response.content_part.added", with(map[string]any{"content_index": j, "part": map[string]any{"type": "output_text", "annotations": []any{}, "logprobs": []any{}, "text": ""}}))
					for d := range budget.text(text, 7) {
						send("response.output_text.delta", with(map[string]any{"content_index": j, "delta": d, "logprobs": []any{}}))
					}
					send("response.output_text.done", with(map[string]any{"content_index": j, "text": text, "logprobs": []any{}}))
				}
				send("response.content_part.done", with(map[string]any{"content_index": j, "part": part}))
			}
		case "function_call":
			args, _ := item["arguments"].(string)
			for _, d := range chunks(args, 5) {
				send("response.function_call_arguments.delta", with(map[string]any{"delta": d}))
			}
			send("response.function_call_arguments.done", with(map[string]any{"arguments": args}))
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": json.RawMessage(out.done[i])})
	}
	final := resp
	if st.OmitCompletedOutput {
		final = map[string]any{}
		for k, v := range resp {
			final[k] = v
		}
		final["output"] = nil
	}
	terminal := "response.completed"
	if resp["status"] == "incomplete" {
		terminal = "response.incomplete"
	}
	send(terminal, map[string]any{"response": final})
}

// pieceLen is the length of the next piece of s a stream sends: about n
// bytes, cut where a character ends, as a real API cuts its deltas (a
// JSON string cannot hold half a character: json.Marshal made each half
// a U+FFFD).
func pieceLen(s string, n int) int {
	if len(s) <= n {
		return len(s)
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	if k == 0 { // a character longer than n bytes: send it whole
		_, size := utf8.DecodeRuneInString(s)
		return size
	}
	return k
}

func chunks(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := pieceLen(s, n)
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

// responsesResults reads the function_call_output items of a conversation;
// a result is an error when its output is {"error": ...}.
func responsesResults(items []json.RawMessage) map[string]result {
	results := map[string]result{}
	for _, raw := range items {
		var it respInItem
		if json.Unmarshal(raw, &it) != nil || it.Type != "function_call_output" || it.CallID == nil {
			continue
		}
		var text string
		if json.Unmarshal(it.Output, &text) != nil {
			// A list output: its text parts.
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(it.Output, &parts) != nil {
				text = string(it.Output)
			}
			for _, p := range parts {
				if p.Type == "input_text" {
					text += p.Text
				}
			}
		}
		results[*it.CallID] = result{text: text, isError: strings.HasPrefix(text, `{"error":`)}
	}
	return results
}
