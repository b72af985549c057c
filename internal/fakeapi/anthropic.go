package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Anthropic is a fake Messages server.
type Anthropic struct {
	server
	// thinking holds the raw bytes of every thinking block returned; each
	// must come back byte for byte.
	thinking []string
}

// NewAnthropic starts a server playing steps. A non-empty key must come as
// x-api-key or a bearer token. Its URL is the base URL.
func NewAnthropic(steps []Step, key string) *Anthropic {
	s := &Anthropic{}
	s.conv.steps, s.key = steps, key
	s.start(s.handle)
	return s
}

// BaseURL is the address to give the client.
func (s *Anthropic) BaseURL() string { return s.URL }

type antRequest struct {
	Model             string            `json:"model"`
	MaxTokens         *int64            `json:"max_tokens"`
	Messages          []json.RawMessage `json:"messages"`
	System            json.RawMessage   `json:"system"`
	Tools             []json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage   `json:"tool_choice"`
	ContextManagement json.RawMessage   `json:"context_management"`
	Stream            bool              `json:"stream"`
	// OutputConfig and OutputFormat ask for structured output
	// (structured.go).
	OutputConfig json.RawMessage `json:"output_config"`
	OutputFormat json.RawMessage `json:"output_format"`
}

// toolChoice reads a Messages tool_choice, {"type": …}; the real API's
// error for anything else, or for a choice with no tools to choose from.
func (r *antRequest) toolChoice() (string, string) {
	if len(r.ToolChoice) == 0 || string(r.ToolChoice) == "null" {
		return "", ""
	}
	var c struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.ToolChoice, &c) != nil {
		return "", "tool_choice: Input should be a valid dictionary or object to extract fields from"
	}
	switch c.Type {
	case "auto", "any", "tool", "none":
	default:
		return "", fmt.Sprintf("tool_choice: Input tag '%s' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'", c.Type)
	}
	if len(r.Tools) == 0 {
		return "", "tool_choice may only be specified while providing tools"
	}
	return c.Type, ""
}

// hasToolBlocks reports whether a conversation holds tool_use or
// tool_result blocks: the API then wants the tools defined.
func hasToolBlocks(msgs []json.RawMessage) bool {
	for _, raw := range msgs {
		var m antMsg
		var blocks []antBlock
		if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_use" || b.Type == "tool_result" {
				return true
			}
		}
	}
	return false
}

type antMsg struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func antError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": typ, "message": msg},
		"request_id": "req_fake",
	})
}

func (s *Anthropic) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if s.serveBatches(w, r, body) {
		return
	}
	// The Messages API is at the server's root: /v1/v1/messages is a 404.
	if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
		s.violatef("unexpected %s %s", r.Method, r.URL.Path)
		antError(w, http.StatusNotFound, "not_found_error", "Not Found")
		return
	}
	if !s.authorized(r) {
		antError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return
	}
	if r.Header.Get("Anthropic-Version") == "" {
		s.violatef("no anthropic-version header")
		antError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	var req antRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.violatef("body is not JSON: %v", err)
		antError(w, http.StatusBadRequest, "invalid_request_error", "There was an error parsing the body of your request.")
		return
	}
	if req.MaxTokens == nil {
		s.violatef("no max_tokens")
		antError(w, http.StatusBadRequest, "invalid_request_error", "max_tokens: Field required")
		return
	}
	for _, msg := range []string{checkAnthropicGrammar(req.Messages), checkAnthropicTools(req.Tools), checkAnthropicImages(req.Messages)} {
		if msg != "" {
			s.violatef("%s", msg)
			antError(w, http.StatusBadRequest, "invalid_request_error", msg)
			return
		}
	}
	if len(req.Tools) == 0 && hasToolBlocks(req.Messages) {
		msg := "Requests which include `tool_use` or `tool_result` blocks must define tools."
		s.violatef("%s", msg)
		antError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	choice, problem := req.toolChoice()
	if problem != "" {
		s.violatef("%s", problem)
		antError(w, http.StatusBadRequest, "invalid_request_error", problem)
		return
	}
	edits, problem := s.contextManagement(r, &req, body)
	if problem != "" {
		s.violatef("%s", problem)
		antError(w, http.StatusBadRequest, "invalid_request_error", problem)
		return
	}
	f, problem := anthropicFormat(r, req.OutputConfig, req.OutputFormat)
	if problem != "" {
		s.violatef("%s", problem)
		antError(w, http.StatusBadRequest, "invalid_request_error", problem)
		return
	}
	s.checkThinking(body)
	c, ok := s.conversation(w, req.Messages, func(w http.ResponseWriter, status int, msg string) {
		antError(w, status, "rate_limit_error", msg)
	})
	if !ok {
		return
	}
	s.checkContinuity(c, req.Messages)

	st, n := s.nextStep(c)
	if st == nil {
		s.violatef("unexpected request: the script has %d steps", n)
		antError(w, http.StatusInternalServerError, "api_error", "script exhausted")
		return
	}
	if st.Expect != nil {
		s.checkExpect(st.Expect, len(req.Messages), s.results(req.Messages), body, choice)
	}
	s.checkFormatExpect(st.Expect, f)
	if st.RefuseFormat != "" {
		s.violatef("refuse_format plays a Chat Completions server")
	}
	s.checkToolChoice(choice, st)
	s.requestStarted(c, req.Messages)
	if !play(w, r, st) {
		s.unanswered(c, r, st)
		return
	}
	if st.Status != 0 && st.Status != http.StatusOK {
		msg := st.Error
		if msg == "" {
			msg = http.StatusText(st.Status)
		}
		typ := "api_error"
		switch st.Status {
		case 429:
			typ = "rate_limit_error"
		case 529:
			typ = "overloaded_error"
		case 400:
			typ = "invalid_request_error"
		}
		antError(w, st.Status, typ, msg)
		return
	}
	s.checkAnswer(f, st)
	content := s.turnContent(st)
	turn, _ := json.Marshal(map[string]any{"role": "assistant", "content": content})
	s.turnReturned(c, req.Messages, turn)
	stop := st.Finish
	if stop == "" {
		stop = "end_turn"
		if len(st.ToolCalls) > 0 {
			stop = "tool_use"
		}
	}
	usage := map[string]int64{"input_tokens": int64(len(body)/4) - edits.tokens, "output_tokens": int64(10 + len(turn)/4),
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	for k, v := range st.Usage {
		usage[k] = v
	}
	if req.Stream {
		var cm any
		if edits.on {
			cm = map[string]any{"applied_edits": edits.applied}
		}
		s.stream(w, req.Model, content, stop, usage, cm, newEventBudget(st, r), cutInputs(st))
		return
	}
	res := map[string]any{
		"id": fmt.Sprintf("msg_fake%d", n+1), "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
	}
	if edits.on {
		res["context_management"] = map[string]any{"applied_edits": edits.applied}
	}
	writeJSON(w, http.StatusOK, res)
}

// turnContent builds a step's content array: thinking, text, tool_use.
func (s *Anthropic) turnContent(st *Step) []json.RawMessage {
	var content []json.RawMessage
	add := func(v any) {
		b, _ := json.Marshal(v)
		content = append(content, b)
	}
	for _, t := range st.Thinking {
		b := thinkingBlock(t)
		s.mu.Lock()
		s.thinking = append(s.thinking, string(b))
		s.mu.Unlock()
		content = append(content, b)
	}
	if st.Text != nil {
		add(map[string]any{"type": "text", "text": *st.Text})
	}
	for _, tc := range st.ToolCalls {
		input := json.RawMessage(tc.Arguments)
		if !json.Valid(input) {
			input = json.RawMessage(`{}`)
		}
		add(map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": input})
	}
	if content == nil {
		content = []json.RawMessage{}
	}
	return content
}

// cutInputs are the inputs of a step's calls that are not JSON, by call
// id: a streamed step sends them as they are, as the API does for a call
// the output token limit cut off (max_tokens); unstreamed, the input is {}.
func cutInputs(st *Step) map[string]string {
	cut := map[string]string{}
	for _, tc := range st.ToolCalls {
		if !json.Valid([]byte(tc.Arguments)) {
			cut[tc.ID] = tc.Arguments
		}
	}
	return cut
}

// thinkingBlock writes a thinking block as the API does: its keys in the
// API's order and its text as it is (no \u003c for "<"), so that a client
// that re-encodes the block instead of sending back the bytes it got is
// caught by checkThinking.
func thinkingBlock(t ThinkingBlock) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if t.Redacted != "" {
		_ = enc.Encode(struct {
			Type string `json:"type"`
			Data string `json:"data"`
		}{"redacted_thinking", t.Redacted})
	} else {
		_ = enc.Encode(struct {
			Type      string `json:"type"`
			Thinking  string `json:"thinking"`
			Signature string `json:"signature"`
		}{"thinking", t.Thinking, t.Signature})
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// stream answers as the Messages API's server-sent events.
func (s *Anthropic) stream(w http.ResponseWriter, model string, content []json.RawMessage, stop string, usage map[string]int64, contextManagement any, budget *eventBudget, cut map[string]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(event string, v any) {
		if !budget.take() {
			return
		}
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
	send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake_stream", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int64{"input_tokens": usage["input_tokens"], "output_tokens": 1,
			"cache_creation_input_tokens": usage["cache_creation_input_tokens"], "cache_read_input_tokens": usage["cache_read_input_tokens"]},
	}})
	for i, raw := range content {
		var b map[string]any
		_ = json.Unmarshal(raw, &b)
		switch b["type"] {
		case "text":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			text, _ := b["text"].(string)
			for piece := range budget.text(text, 6) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		case "tool_use":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			args := string(in)
			if partial, ok := cut[fmt.Sprint(b["id"])]; ok {
				// The output token limit stopped the model mid-call: the
				// input's JSON ends where it was cut.
				args = partial
			}
			for _, piece := range chunks(args, 5) {
				send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		case "thinking":
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": json.RawMessage(`{"type":"thinking","thinking":"","signature":""}`)})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "thinking_delta", "thinking": b["thinking"]}})
			send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "signature_delta", "signature": b["signature"]}})
		default:
			send("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b})
		}
		send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	delta := map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int64{"output_tokens": usage["output_tokens"]}}
	if contextManagement != nil {
		delta["context_management"] = contextManagement
	}
	send("message_delta", delta)
	send("message_stop", map[string]any{"type": "message_stop"})
}

var antIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkAnthropicGrammar applies rules 14–22 and 24 of the Messages grammar
// to the turns as the API sees them (consecutive same-role messages merged)
// and returns the real API's error text for the first violation.
func checkAnthropicGrammar(msgs []json.RawMessage) string {
	type turn struct {
		role   string
		index  int // index of the first message of the turn
		blocks []antBlock
		raw    []json.RawMessage
	}
	var turns []turn
	for i, raw := range msgs {
		var m antMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Sprintf("messages.%d: Input should be a valid dictionary", i)
		}
		if m.Role == "system" {
			// Accepted on the beta endpoint between turns; it does not
			// break the pairing around it.
			continue
		}
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages.%d.role: Input should be 'user' or 'assistant'", i)
		}
		var blocks []antBlock
		var raws []json.RawMessage
		var str string
		if json.Unmarshal(m.Content, &str) == nil {
			if strings.TrimSpace(str) == "" && !(i == len(msgs)-1 && m.Role == "assistant") {
				return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
			}
			if str != "" {
				// (An empty final assistant message holds no block.)
				t := str
				blocks, raws = []antBlock{{Type: "text", Text: &t}}, []json.RawMessage{m.Content}
			}
		} else {
			if err := json.Unmarshal(m.Content, &raws); err != nil {
				return fmt.Sprintf("messages.%d.content: Input should be a valid list", i)
			}
			if len(raws) == 0 && !(i == len(msgs)-1 && m.Role == "assistant") {
				return fmt.Sprintf("messages.%d: all messages must have non-empty content except for the optional final assistant message", i)
			}
			for _, rb := range raws {
				var b antBlock
				_ = json.Unmarshal(rb, &b)
				blocks = append(blocks, b)
			}
		}
		if len(turns) > 0 && turns[len(turns)-1].role == m.Role {
			last := &turns[len(turns)-1]
			last.blocks = append(last.blocks, blocks...)
			last.raw = append(last.raw, raws...)
			continue
		}
		turns = append(turns, turn{role: m.Role, index: i, blocks: blocks, raw: raws})
	}

	seenUse := map[string]bool{}
	for ti, t := range turns {
		for k, b := range t.blocks {
			if b.Type == "text" && (b.Text == nil || *b.Text == "") {
				return "messages: text content blocks must be non-empty"
			}
			switch b.Type {
			case "tool_use":
				if t.role != "assistant" {
					return fmt.Sprintf("messages.%d.content.%d: `tool_use` blocks can only be in `assistant` messages", t.index, k)
				}
				if !antIDPattern.MatchString(b.ID) {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", t.index, k)
				}
				if seenUse[b.ID] {
					return fmt.Sprintf("messages.%d.content.%d: tool_use ids must be unique", t.index, k)
				}
				seenUse[b.ID] = true
				var obj map[string]any
				if json.Unmarshal(b.Input, &obj) != nil || obj == nil {
					return fmt.Sprintf("messages.%d.content.%d.tool_use.input: Input should be a valid dictionary", t.index, k)
				}
			case "tool_result":
				if t.role != "user" {
					return fmt.Sprintf("messages.%d.content.%d: `tool_result` blocks can only be in `user` messages", t.index, k)
				}
				if b.IsError && emptyResultContent(b.Content) {
					return fmt.Sprintf("messages.%d.content.%d.tool_result: content cannot be empty if `is_error` is true", t.index, k)
				}
			}
		}
		// Rule 15: a result answers a tool_use of the turn just before.
		if t.role == "user" {
			prev := map[string]bool{}
			if ti > 0 {
				for _, b := range turns[ti-1].blocks {
					if b.Type == "tool_use" {
						prev[b.ID] = true
					}
				}
			}
			for k, b := range t.blocks {
				if b.Type == "tool_result" && !prev[b.ToolUseID] {
					return fmt.Sprintf("messages.%d.content.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", t.index, k, b.ToolUseID)
				}
			}
			continue
		}
		// Rules 14, 16, 18: the turn after one with tool_use blocks begins
		// with exactly one result for each.
		var uses []string
		for _, b := range t.blocks {
			if b.Type == "tool_use" {
				uses = append(uses, b.ID)
			}
		}
		if len(uses) == 0 {
			continue
		}
		unanswered := func(ids []string) string {
			return fmt.Sprintf("messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message.", t.index, strings.Join(ids, ", "))
		}
		if ti+1 >= len(turns) {
			return unanswered(uses)
		}
		next := turns[ti+1]
		// Only the results at the start of the next turn count; a turn
		// with none at all gets its own message (rule 16), one with some
		// missing or placed after other content names the ids (rule 14,
		// as the live API answers for [text, tool_result]).
		lead, found, leading := map[string]bool{}, false, true
		for k, b := range next.blocks {
			if b.Type != "tool_result" {
				leading = false
				continue
			}
			found = true
			if lead[b.ToolUseID] {
				return fmt.Sprintf("messages.%d.content.%d: each tool_use must have a single result. Found multiple `tool_result` blocks with id: %s", next.index, k, b.ToolUseID)
			}
			if leading {
				lead[b.ToolUseID] = true
			}
		}
		if !found {
			return fmt.Sprintf("messages.%d: Did not find %d `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.", next.index, len(uses))
		}
		var missing []string
		for _, id := range uses {
			if !lead[id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return unanswered(missing)
		}
	}
	return ""
}

func emptyResultContent(c json.RawMessage) bool {
	if len(c) == 0 || string(c) == "null" || string(c) == `""` || string(c) == "[]" {
		return true
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return strings.TrimSpace(s) == ""
	}
	return false
}

// checkThinking checks that every thinking block returned so far comes back
// byte for byte.
func (s *Anthropic) checkThinking(body []byte) {
	s.mu.Lock()
	blocks := append([]string(nil), s.thinking...)
	s.mu.Unlock()
	for _, b := range blocks {
		if !strings.Contains(string(body), b) {
			s.violatef("thinking block not sent back byte-identical: %s", b)
		}
	}
}

// results reads the tool_result blocks of a Messages conversation.
func (s *Anthropic) results(msgs []json.RawMessage) map[string]result {
	results := map[string]result{}
	for _, raw := range msgs {
		var m antMsg
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" {
			continue
		}
		var blocks []antBlock
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			var text string
			if json.Unmarshal(b.Content, &text) != nil {
				var inner []antBlock
				_ = json.Unmarshal(b.Content, &inner)
				for _, ib := range inner {
					if ib.Text != nil {
						text += *ib.Text
					}
				}
			}
			results[b.ToolUseID] = result{text, b.IsError}
		}
	}
	return results
}

// serverEdits is what the fake's context management cleared.
type serverEdits struct {
	on      bool
	tokens  int64 // input tokens it saved
	applied []any
}

// contextManagement plays the API's own clearing of old tool results
// (clear_tool_uses_20250919, a beta): refused without the beta header;
// when the request's input tokens (a quarter of its bytes, as the fake
// counts) pass the trigger, the oldest results beyond keep are cleared,
// if that frees at least clear_at_least.
func (s *Anthropic) contextManagement(r *http.Request, req *antRequest, body []byte) (serverEdits, string) {
	var out serverEdits
	if len(req.ContextManagement) == 0 || string(req.ContextManagement) == "null" {
		return out, ""
	}
	if !strings.Contains(r.Header.Get("Anthropic-Beta"), "context-management-2025-06-27") {
		return out, "context_management: Extra inputs are not permitted"
	}
	var cm struct {
		Edits []struct {
			Type    string `json:"type"`
			Trigger *struct {
				Type  string `json:"type"`
				Value int64  `json:"value"`
			} `json:"trigger"`
			Keep *struct {
				Value int64 `json:"value"`
			} `json:"keep"`
			ClearAtLeast *struct {
				Value int64 `json:"value"`
			} `json:"clear_at_least"`
			ExcludeTools []string `json:"exclude_tools"`
		} `json:"edits"`
	}
	if err := json.Unmarshal(req.ContextManagement, &cm); err != nil {
		return out, "context_management: Input should be a valid dictionary or object to extract fields from"
	}
	out.on = true
	out.applied = []any{}
	for i, e := range cm.Edits {
		if e.Type != "clear_tool_uses_20250919" {
			return out, fmt.Sprintf("context_management.edits.%d: Input tag '%s' found using 'type' does not match any of the expected tags", i, e.Type)
		}
		tokens := int64(len(body) / 4)
		if e.Trigger == nil || tokens <= e.Trigger.Value {
			continue
		}
		keep := int64(3)
		if e.Keep != nil {
			keep = e.Keep.Value
		}
		sizes := toolResultSizes(req.Messages, e.ExcludeTools)
		var n, freed int64
		for k := 0; k < len(sizes)-int(keep); k++ {
			n++
			freed += sizes[k] / 4
		}
		if e.ClearAtLeast != nil && freed < e.ClearAtLeast.Value {
			continue
		}
		out.tokens += freed
		out.applied = append(out.applied, map[string]any{"type": "clear_tool_uses_20250919", "cleared_tool_uses": n, "cleared_input_tokens": freed})
	}
	return out, ""
}

// toolResultSizes are the sizes of the conversation's tool results, in
// order, but for those of the tools named.
func toolResultSizes(msgs []json.RawMessage, exclude []string) []int64 {
	names := map[string]string{}
	var out []int64
	for _, raw := range msgs {
		var m antMsg
		var blocks []antBlock
		if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				names[b.ID] = b.Name
			case "tool_result":
				if !slices.Contains(exclude, names[b.ToolUseID]) {
					out = append(out, int64(len(b.Content)))
				}
			}
		}
	}
	return out
}
