package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// capture answers every request with body and keeps the last one's body.
func capture(t *testing.T, body string) (*httptest.Server, *[]byte) {
	t.Helper()
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

// batchRequest is a request with what changes a body: a system prompt, a
// tool, HTML characters, a final request's tool choice.
func batchRequest() *agent.Request {
	tool := json.RawMessage(`{"type":"function","function":{"name":"look","parameters":{"type":"object"}}}`)
	return &agent.Request{System: "be <brief> & exact", Messages: []agent.Message{json.RawMessage(`{"role":"user","content":"what is \u2028 <this>?"}`)},
		Tools: []json.RawMessage{tool}, ToolChoiceNone: true}
}

// sameBodies completes batchRequest live, checks that p's batch body for it
// is the body sent, byte for byte, and returns the live turn.
func sameBodies(t *testing.T, p interface {
	agent.Provider
	BatchBody(*agent.Request) ([]byte, error)
}, sent *[]byte) *agent.Turn {
	t.Helper()
	live, err := p.Complete(context.Background(), batchRequest())
	if err != nil {
		t.Fatal(err)
	}
	body, err := p.BatchBody(batchRequest())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, *sent) {
		t.Errorf("batch body\n%s\nlive body\n%s", body, *sent)
	}
	return live
}

// A batch line's body is the one Complete sends, byte for byte; and the
// answer read from a batch is the turn Complete returns.
func TestChatBatchBodyIsTheLiveBody(t *testing.T) {
	answer := `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"it is <this>","reasoning_content":"kept"}}],"usage":{"prompt_tokens":10,"completion_tokens":3}}`
	srv, sent := capture(t, answer)
	temp := 0.5
	p, err := NewChat(Config{APIKey: "test", BaseURL: srv.URL, Model: "gpt-4o-mini", Temperature: &temp, MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	live := sameBodies(t, p, sent)
	turn, err := p.BatchTurn([]byte(answer))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(turn.Messages[0], live.Messages[0]) || turn.Text != live.Text || turn.Usage != live.Usage || turn.Stop != live.Stop {
		t.Errorf("batch turn %+v\nlive turn %+v", turn, live)
	}
	if pe := p.BatchError(429, []byte(`{"error":{"message":"slow down","type":"rate_limit"}}`)); pe.Status != 429 || pe.Message != "slow down" {
		t.Errorf("%+v", pe)
	}
}

func TestResponsesBatchBodyIsTheLiveBody(t *testing.T) {
	answer := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5-mini","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"done","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`
	srv, sent := capture(t, answer)
	p, err := NewResponses(ResponsesConfig{Config: Config{APIKey: "test", BaseURL: srv.URL, Model: "gpt-5-mini"}})
	if err != nil {
		t.Fatal(err)
	}
	sameBodies(t, p, sent)
	if turn, err := p.BatchTurn([]byte(answer)); err != nil || turn.Text != "done" {
		t.Errorf("%+v, %v", turn, err)
	}
	stored, _ := NewResponses(ResponsesConfig{Config: Config{APIKey: "test", BaseURL: srv.URL, Model: "gpt-5-mini"}, Store: true})
	if _, err := stored.BatchBody(batchRequest()); err == nil {
		t.Error("a batch body with --store: no error")
	}
}
