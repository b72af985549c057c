package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url string, body any) (*http.Response, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return res, out
}

func user(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

func answer(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	choices, _ := out["choices"].([]any)
	if len(choices) != 1 {
		t.Fatalf("no choice in %v", out)
	}
	return choices[0].(map[string]any)["message"].(map[string]any)
}

// TestConversationsInterleaved: two conversations whose requests
// interleave each play the script from its start, with their own prompt
// put in, and are checked apart.
func TestConversationsInterleaved(t *testing.T) {
	c, err := LoadConversations([]byte(`{
	  "steps": [
	    {"tool_calls": [{"id": "c1", "name": "look", "arguments": "{\"q\":\"{{prompt}}\"}"}]},
	    {"text": "answer to {{prompt}}"}
	  ],
	  "prompts": {"special": [{"text": "special answer"}]}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewOpenAIConversations(c, "")
	defer s.Close()

	_, a1 := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("first")}})
	_, b1 := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("second \"quoted\"")}})
	ta, tb := answer(t, a1), answer(t, b1)
	args := tb["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"].(string)
	var parsed map[string]string
	if err := json.Unmarshal([]byte(args), &parsed); err != nil || parsed["q"] != `second "quoted"` {
		t.Errorf("arguments %s: %v", args, err)
	}
	tool := func(id string) map[string]any {
		return map[string]any{"role": "tool", "tool_call_id": id, "content": "ok"}
	}
	_, b2 := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("second \"quoted\""), tb, tool("c1")}})
	_, a2 := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("first"), ta, tool("c1")}})
	if got := answer(t, a2)["content"]; got != "answer to first" {
		t.Errorf("first conversation's answer %q", got)
	}
	if got := answer(t, b2)["content"]; got != `answer to second "quoted"` {
		t.Errorf("second conversation's answer %q", got)
	}
	_, sp := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("a special one")}})
	if got := answer(t, sp)["content"]; got != "special answer" {
		t.Errorf("a prompt with a script of its own: %q", got)
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
	if s.Remaining() != 0 || s.Conversations() != 3 {
		t.Errorf("remaining %d, conversations %d", s.Remaining(), s.Conversations())
	}

	// A conversation that changes its history is still caught.
	post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("third")}})
	post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("third"), map[string]any{"role": "assistant", "content": "made up"}, user("more")}})
	if s.Check() == nil {
		t.Error("a conversation that rewrote the turn it was given passed")
	}
}

// TestConversationsRateLimit: requests over the limit get the API's 429
// with Retry-After; with StrictRetryAfter one that does not wait is a
// violation.
// TestConversationsRequestSentAgain: a client killed while a turn was on
// its way sends the same request again when it is rerun; the server
// answers it as it did, and the conversation goes on from there.
func TestConversationsRequestSentAgain(t *testing.T) {
	c := &Conversations{Steps: []Step{
		{ToolCalls: []ToolCall{{ID: "c1", Name: "look", Arguments: "{}"}}},
		{Text: strp("done")},
	}}
	s := NewOpenAIConversations(c, "")
	defer s.Close()
	_, first := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("p")}})
	turn := answer(t, first)
	tool := map[string]any{"role": "tool", "tool_call_id": "c1", "content": "ok"}
	_, lost := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("p"), turn, tool}})
	_, again := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("p"), turn, tool}})
	if a, b := answer(t, lost)["content"], answer(t, again)["content"]; a != "done" || b != "done" {
		t.Errorf("answers %q then %q, want the same answer twice", a, b)
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

// TestConversationsClientGoneWhileWaiting: a client killed while its
// request waited for the answer sends the request again when it is rerun;
// the API never answered the first, so the same step answers the second.
func TestConversationsClientGoneWhileWaiting(t *testing.T) {
	c := &Conversations{Steps: []Step{{Text: strp("done")}}, Latency: Duration(time.Second)}
	s := NewOpenAIConversations(c, "")
	defer s.Close()
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{user("p")}})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if res, err := http.DefaultClient.Do(req); err == nil {
		res.Body.Close()
		t.Fatal("the request was answered before the client went away")
	}
	// The server notices a moment later that the client went away.
	deadline := time.Now().Add(30 * time.Second)
	for s.Remaining() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, again := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("p")}})
	if got := answer(t, again)["content"]; got != "done" {
		t.Errorf("the request sent again was answered %q", got)
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
}

func TestConversationsRateLimit(t *testing.T) {
	c := &Conversations{
		Steps:            []Step{{Text: strp("hi")}},
		RateLimit:        &RateLimit{Limit: 2, Window: Duration(time.Hour), RetryAfter: "30"},
		StrictRetryAfter: true,
	}
	s := NewOpenAIConversations(c, "")
	defer s.Close()
	for i, p := range []string{"a", "b"} {
		if res, _ := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user(p)}}); res.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
	res, body := post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("c")}})
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "30" {
		t.Fatalf("over the limit: %d %v", res.StatusCode, res.Header)
	}
	if e, _ := body["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "Rate limit reached") {
		t.Errorf("429 body %v", body)
	}
	if err := s.Check(); err != nil {
		t.Errorf("no violation yet: %v", err)
	}
	post(t, s.BaseURL(), map[string]any{"model": "m", "messages": []any{user("d")}})
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "before the end of the wait a Retry-After asked for") {
		t.Errorf("a request inside the Retry-After: %v", err)
	}
}

func strp(s string) *string { return &s }

// TestResponsesConversations: a Responses server plays conversations apart
// too, tells them by a prompt in either form of user message, answers a
// request sent again (its answer lost) with the same step, and still
// catches a conversation that rewrote what it was given.
func TestResponsesConversations(t *testing.T) {
	c, err := LoadConversations([]byte(`{"steps": [
	    {"tool_calls": [{"id": "c1", "name": "look", "arguments": "{\"q\":\"{{prompt}}\"}"}]},
	    {"text": "answer to {{prompt}}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewResponsesConversations(c, "")
	defer s.Close()
	respond := func(input ...any) []any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"model": "m", "input": input, "store": false})
		res, err := http.Post(s.BaseURL()+"/responses", "application/json", strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out struct {
			Output []any `json:"output"`
		}
		_ = json.NewDecoder(res.Body).Decode(&out)
		return out.Output
	}
	text := func(out []any) string {
		for _, it := range out {
			m := it.(map[string]any)
			if m["type"] == "message" {
				return m["content"].([]any)[0].(map[string]any)["text"].(string)
			}
		}
		return ""
	}
	result := map[string]any{"type": "function_call_output", "call_id": "c1", "output": "ok"}
	first := user("first")
	second := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "second"}}}

	a1 := respond(first)
	b1 := respond(second)
	if len(a1) != 1 || len(b1) != 1 || a1[0].(map[string]any)["type"] != "function_call" {
		t.Fatalf("first turns: %v, %v", a1, b1)
	}
	if args := b1[0].(map[string]any)["arguments"]; args != `{"q":"second"}` {
		t.Errorf("the second conversation's call: %v", args)
	}
	// The first conversation's last request again, as a client killed
	// before it wrote the answer down sends it.
	a1 = respond(first)
	if got := text(respond(second, b1[0], result)); got != "answer to second" {
		t.Errorf("second answer %q", got)
	}
	if got := text(respond(first, a1[0], result)); got != "answer to first" {
		t.Errorf("first answer %q", got)
	}
	if err := s.Check(); err != nil {
		t.Error(err)
	}
	if s.Remaining() != 0 || s.Conversations() != 2 {
		t.Errorf("remaining %d, conversations %d", s.Remaining(), s.Conversations())
	}

	t3 := respond(user("third"))[0].(map[string]any)
	t3["arguments"] = `{"q":"made up"}`
	respond(user("third"), t3, result)
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "item 1 changed between requests") {
		t.Errorf("a conversation that rewrote the items it was given: %v", err)
	}
}
