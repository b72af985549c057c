package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// OpenAI is a fake Chat Completions server.
type OpenAI struct {
	server
}

// NewOpenAI starts a server playing steps. A non-empty key must come as
// "Authorization: Bearer <key>". Its URL + "/v1" is the base URL.
func NewOpenAI(steps []Step, key string) *OpenAI {
	s := &OpenAI{}
	s.conv.steps, s.key = steps, key
	s.start(s.handle)
	return s
}

// NewOpenAIAt is NewOpenAI listening on addr ("" for any free port).
func NewOpenAIAt(addr string, steps []Step, key string) (*OpenAI, error) {
	if addr == "" {
		return NewOpenAI(steps, key), nil
	}
	s := &OpenAI{}
	s.conv.steps, s.key = steps, key
	if err := s.startAt(addr, s.handle); err != nil {
		return nil, err
	}
	return s, nil
}

// BaseURL is the address to give the client.
func (s *OpenAI) BaseURL() string { return s.URL + "/v1" }

type oaiRequest struct {
	Model      string            `json:"model"`
	Messages   []json.RawMessage `json:"messages"`
	Tools      []json.RawMessage `json:"tools"`
	ToolChoice json.RawMessage   `json:"tool_choice"`
	Stream     bool              `json:"stream"`
	// ResponseFormat asks for structured output (structured.go).
	ResponseFormat json.RawMessage `json:"response_format"`
}

// toolChoice reads a Chat Completions tool_choice: "none", "auto" or
// "required", or the type of a named choice; the real API's error for
// anything else, or for a choice with no tools to choose from.
func (r *oaiRequest) toolChoice() (string, string) {
	if len(r.ToolChoice) == 0 || string(r.ToolChoice) == "null" {
		return "", ""
	}
	if len(r.Tools) == 0 {
		return "", "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified."
	}
	var s string
	if json.Unmarshal(r.ToolChoice, &s) == nil {
		switch s {
		case "none", "auto", "required":
			return s, ""
		}
		return "", fmt.Sprintf("Invalid value: '%s'. Supported values are: 'none', 'auto', and 'required'.", s)
	}
	var named struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(r.ToolChoice, &named) != nil || named.Type == "" {
		return "", "Invalid type for 'tool_choice': expected one of a string or an object, but got something else instead."
	}
	return named.Type, ""
}

type oaiMsg struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID *string         `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string          `json:"id"`
		Type     string          `json:"type"`
		Function json.RawMessage `json:"function"`
	} `json:"tool_calls"`
}

func oaiError(w http.ResponseWriter, status int, msg, typ, param string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if param != "" {
		e["param"] = param
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func (s *OpenAI) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if s.serveBatches(w, r, body) {
		return
	}
	// The API answers at /v1/chat/completions only, as OpenAI and the
	// servers that copy it do: a base URL without its /v1 is a 404.
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		s.violatef("unexpected %s %s", r.Method, r.URL.Path)
		oaiError(w, http.StatusNotFound, "Invalid URL ("+r.Method+" "+r.URL.Path+")", "invalid_request_error", "")
		return
	}
	if !s.authorized(r) {
		oaiError(w, http.StatusUnauthorized, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "")
		return
	}
	var req oaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.violatef("body is not JSON: %v", err)
		oaiError(w, http.StatusBadRequest, "We could not parse the JSON body of your request.", "invalid_request_error", "")
		return
	}
	for _, check := range []func() (string, string){
		func() (string, string) { return checkOpenAIGrammar(req.Messages) },
		func() (string, string) { return checkOpenAITools(req.Tools) },
		func() (string, string) { return checkOpenAIImages(req.Messages) },
	} {
		if msg, param := check(); msg != "" {
			s.violatef("%s (param %s)", msg, param)
			oaiError(w, http.StatusBadRequest, msg, "invalid_request_error", param)
			return
		}
	}
	choice, problem := req.toolChoice()
	if problem != "" {
		s.violatef("%s (param tool_choice)", problem)
		oaiError(w, http.StatusBadRequest, problem, "invalid_request_error", "tool_choice")
		return
	}
	f, problem, param := chatFormat(req.ResponseFormat, req.Messages)
	if problem != "" {
		s.violatef("%s (param %s)", problem, param)
		oaiError(w, http.StatusBadRequest, problem, "invalid_request_error", param)
		return
	}
	c, ok := s.conversation(w, req.Messages, func(w http.ResponseWriter, status int, msg string) {
		oaiError(w, status, msg, "requests", "")
	})
	if !ok {
		return
	}
	s.checkContinuity(c, req.Messages, "annotations", "refusal")

	st, n := s.nextStep(c)
	if st == nil {
		s.violatef("unexpected request: the script has %d steps", n)
		oaiError(w, http.StatusInternalServerError, "script exhausted", "server_error", "")
		return
	}
	if st.Expect != nil {
		s.checkExpect(st.Expect, len(req.Messages), s.results(req.Messages), body, choice)
	}
	s.checkFormatExpect(st.Expect, f)
	if refuseFormat(w, f, st) {
		return
	}
	s.checkToolChoice(choice, st)
	s.requestStarted(c, req.Messages)
	if !play(w, r, st) {
		s.unanswered(c, r, st)
		return
	}
	if st.Status != 0 && st.Status != http.StatusOK {
		for k, v := range st.Headers {
			w.Header().Set(k, v)
		}
		msg := st.Error
		if msg == "" {
			msg = http.StatusText(st.Status)
		}
		oaiError(w, st.Status, msg, "server_error", "")
		return
	}
	s.checkAnswer(f, st)
	msg := s.turnMessage(st)
	s.turnReturned(c, req.Messages, msg)

	finish := st.Finish
	if finish == "" {
		finish = "stop"
		if len(st.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	usage := map[string]any{"prompt_tokens": int64(len(body) / 4), "completion_tokens": int64(10 + len(msg)/4)}
	for k, v := range st.Usage {
		// Cached tokens are counted in prompt_tokens and told apart in
		// its details, as the API does.
		if k == "cached_tokens" {
			usage["prompt_tokens_details"] = map[string]any{"cached_tokens": v}
			continue
		}
		usage[k] = v
	}
	usage["total_tokens"] = usage["prompt_tokens"].(int64) + usage["completion_tokens"].(int64)
	if req.Stream {
		s.stream(w, req.Model, msg, finish, usage, newEventBudget(st, r))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n+1), "object": "chat.completion", "created": time.Now().Unix(),
		"model": req.Model,
		"choices": []any{map[string]any{
			"index": 0, "message": json.RawMessage(msg), "finish_reason": finish, "logprobs": nil,
		}},
		"usage": usage,
	})
}

// turnMessage builds the assistant message of a step.
func (s *OpenAI) turnMessage(st *Step) json.RawMessage {
	m := map[string]any{"role": "assistant", "content": nil, "refusal": nil, "annotations": []any{}}
	if st.Text != nil {
		m["content"] = *st.Text
	}
	if st.Refusal != "" {
		m["refusal"] = st.Refusal
	}
	if len(st.ToolCalls) > 0 {
		calls := make([]any, len(st.ToolCalls))
		for i, tc := range st.ToolCalls {
			c := map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}
			if tc.OmitType {
				delete(c, "type")
			}
			for k, v := range tc.Extra {
				c[k] = v
			}
			calls[i] = c
		}
		m["tool_calls"] = calls
	}
	for k, v := range st.Extra {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	return b
}

// stream answers as server-sent events: the text in a few deltas, then the
// tool calls, then the finish reason and usage.
func (s *OpenAI) stream(w http.ResponseWriter, model string, msg json.RawMessage, finish string, usage map[string]any, budget *eventBudget) {
	var m map[string]any
	_ = json.Unmarshal(msg, &m)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any, usage any) {
		if !budget.take() {
			return
		}
		chunk := map[string]any{"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{}}
		if delta != nil {
			chunk["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		}
		if usage != nil {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	first := map[string]any{"role": "assistant", "content": ""}
	for k, v := range m {
		if k != "role" && k != "content" && k != "tool_calls" && k != "refusal" && k != "annotations" {
			first[k] = v
		}
	}
	send(first, nil, nil)
	if text, ok := m["content"].(string); ok {
		for piece := range budget.text(text, 7) {
			send(map[string]any{"content": piece}, nil, nil)
		}
	}
	// A refusal streams as its own deltas, as the API sends it.
	if text, ok := m["refusal"].(string); ok {
		for _, piece := range chunks(text, 7) {
			send(map[string]any{"refusal": piece}, nil, nil)
		}
	}
	if calls, ok := m["tool_calls"].([]any); ok {
		for i, c := range calls {
			cm := c.(map[string]any)
			fn := cm["function"].(map[string]any)
			args, _ := fn["arguments"].(string)
			head := map[string]any{"index": i, "id": cm["id"], "type": "function", "function": map[string]any{"name": fn["name"], "arguments": ""}}
			// A provider's own fields on the call (Gemini's extra_content)
			// come with its first delta, as Gemini streams them.
			for k, v := range cm {
				if k != "id" && k != "type" && k != "function" && k != "index" {
					head[k] = v
				}
			}
			send(map[string]any{"tool_calls": []any{head}}, nil, nil)
			for _, piece := range chunks(args, 5) {
				send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil, nil)
			}
		}
	}
	send(map[string]any{}, finish, nil)
	send(nil, nil, usage)
	if budget.take() {
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// checkOpenAIGrammar applies rules 1–6 of the Chat Completions grammar and
// returns the real API's error text and param for the first violation.
func checkOpenAIGrammar(msgs []json.RawMessage) (msg, param string) {
	var pending []string // calls of the last assistant turn not yet answered
	callsOf := map[string]bool{}
	answeredAt := map[string]int{}
	inBlock := false
	unanswered := func(i int) (string, string) {
		return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: " + strings.Join(pending, ", "),
			fmt.Sprintf("messages.[%d].role", i)
	}
	for i, raw := range msgs {
		var m oaiMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Sprintf("Invalid type for 'messages[%d]': expected an object.", i), fmt.Sprintf("messages[%d]", i)
		}
		switch m.Role {
		case "tool":
			if m.ToolCallID == nil {
				return "Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'.", fmt.Sprintf("messages.[%d].tool_call_id", i)
			}
			if !inBlock {
				return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", fmt.Sprintf("messages.[%d].role", i)
			}
			id := *m.ToolCallID
			if !callsOf[id] {
				return fmt.Sprintf("Invalid parameter: 'tool_call_id' of '%s' not found in 'tool_calls' of previous message.", id), fmt.Sprintf("messages.[%d].tool_call_id", i)
			}
			if j, dup := answeredAt[id]; dup {
				return fmt.Sprintf("Invalid parameter: Duplicate value for 'tool_call_id' of '%s', in messages[%d] and messages[%d].", id, j, i), fmt.Sprintf("messages.[%d].tool_call_id", i)
			}
			if len(m.Content) == 0 || string(m.Content) == "null" {
				return "Invalid value for 'content': expected a string, got null.", fmt.Sprintf("messages.[%d].content", i)
			}
			answeredAt[id] = i
			for k, p := range pending {
				if p == id {
					pending = append(pending[:k], pending[k+1:]...)
					break
				}
			}
			continue
		}
		if len(pending) > 0 {
			return unanswered(i)
		}
		inBlock = false
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			callsOf = map[string]bool{}
			answeredAt = map[string]int{}
			for j, tc := range m.ToolCalls {
				var fn struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				}
				_ = json.Unmarshal(tc.Function, &fn)
				if len(fn.Arguments) > 0 && fn.Arguments[0] != '"' {
					return fmt.Sprintf("Invalid type for 'messages[%d].tool_calls[%d].function.arguments': expected a string, but got an object instead.", i, j), ""
				}
				if tc.ID == "" || tc.Type == "" || fn.Name == "" || len(fn.Arguments) == 0 {
					return fmt.Sprintf("Missing required parameter: 'messages[%d].tool_calls[%d]'.", i, j), fmt.Sprintf("messages.[%d].tool_calls.[%d]", i, j)
				}
				callsOf[tc.ID] = true
				pending = append(pending, tc.ID)
			}
			inBlock = true
		} else if m.Role == "assistant" && (len(m.Content) == 0 || string(m.Content) == "null") {
			return "Invalid value for 'content': expected a string, got null.", fmt.Sprintf("messages.[%d].content", i)
		}
	}
	if len(pending) > 0 {
		return unanswered(len(msgs))
	}
	return "", ""
}

// results reads the tool results of a Chat Completions conversation; a
// result is an error when its content is {"error": ...}.
func (s *OpenAI) results(msgs []json.RawMessage) map[string]result {
	results := map[string]result{}
	for _, raw := range msgs {
		var m oaiMsg
		if json.Unmarshal(raw, &m) == nil && m.Role == "tool" && m.ToolCallID != nil {
			var c string
			if json.Unmarshal(m.Content, &c) != nil {
				c = string(m.Content)
			}
			results[*m.ToolCallID] = result{text: c, isError: strings.HasPrefix(c, `{"error":`)}
		}
	}
	return results
}
