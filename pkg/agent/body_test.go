package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// A request body is sent as its pieces, not joined, yet goes out as any
// other: with its Content-Length (not chunked), and whole again when the
// request is retried.
func TestBodySentWithLengthAndRetried(t *testing.T) {
	prompt := strings.Repeat("a long prompt, to be sent in more than one read; ", 4000) // 200 KB
	for _, tc := range []struct {
		name   string
		path   string
		answer string
		new    func(url string) (agent.Provider, error)
	}{
		{"openai", "/v1/chat/completions",
			`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			func(url string) (agent.Provider, error) {
				return agent.NewOpenAI(agent.OpenAIConfig{BaseURL: url + "/v1", Model: "m", MaxRetries: 1})
			}},
		{"anthropic", "/v1/messages",
			`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"fine"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
			func(url string) (agent.Provider, error) {
				return agent.NewAnthropic(agent.AnthropicConfig{BaseURL: url, Model: "m", MaxRetries: 1})
			}},
		{"responses", "/v1/responses",
			`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"fine","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
			func(url string) (agent.Provider, error) {
				return agent.NewResponses(agent.ResponsesConfig{OpenAIConfig: agent.OpenAIConfig{BaseURL: url + "/v1", Model: "m", MaxRetries: 1}})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies [][]byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, err := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, b)
				n := len(bodies)
				mu.Unlock()
				switch {
				case err != nil || r.URL.Path != tc.path:
					t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
				case len(r.TransferEncoding) > 0 || r.ContentLength != int64(len(b)):
					t.Errorf("request %d: Content-Length %d, Transfer-Encoding %q, for a body of %d bytes", n, r.ContentLength, r.TransferEncoding, len(b))
				case !json.Valid(b) || !bytes.Contains(b, []byte(prompt)):
					t.Errorf("request %d: not the prompt as JSON: %.200s", n, b)
				}
				w.Header().Set("Content-Type", "application/json")
				if n == 1 {
					w.WriteHeader(http.StatusInternalServerError)
					io.WriteString(w, `{"error":{"type":"api_error","message":"boom"}}`)
					return
				}
				io.WriteString(w, tc.answer)
			}))
			defer srv.Close()
			p, err := tc.new(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			out, err := (&agent.Loop{Provider: p, Tools: weatherTools()}).Prompt(context.Background(), prompt)
			if err != nil {
				t.Fatal(err)
			}
			if out.Answer != "fine" || len(bodies) != 2 {
				t.Fatalf("answer %q after %d requests", out.Answer, len(bodies))
			}
			if !bytes.Equal(bodies[0], bodies[1]) {
				t.Errorf("the retry sent another body:\n%.300s\n%.300s", bodies[0], bodies[1])
			}
		})
	}
}
