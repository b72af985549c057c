package anthropic

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

// A batch request's params are the body Complete sends, byte for byte; the
// message read from a batch's results is the turn Complete returns; an
// errored result's error is the one a live call gets.
func TestBatchBodyIsTheLiveBody(t *testing.T) {
	answer := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"it is <this>"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":3}}`
	var sent []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, answer)
	}))
	defer srv.Close()
	p, err := NewMessages(Config{APIKey: "test", BaseURL: srv.URL, Model: "claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	req := func() *agent.Request {
		return &agent.Request{System: "be <brief>", Messages: []agent.Message{json.RawMessage(`{"role":"user","content":"what is <this>?"}`)}}
	}
	live, err := p.Complete(context.Background(), req())
	if err != nil {
		t.Fatal(err)
	}
	body, err := p.BatchBody(req())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, sent) {
		t.Errorf("batch body\n%s\nlive body\n%s", body, sent)
	}
	turn, err := p.BatchTurn([]byte(answer))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(turn.Messages[0], live.Messages[0]) || turn.Text != live.Text || turn.Usage != live.Usage {
		t.Errorf("batch turn %+v\nlive turn %+v", turn, live)
	}
	pe := p.BatchError(529, []byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	if pe.Status != 529 || pe.Message != "Overloaded" {
		t.Errorf("%+v", pe)
	}
}
