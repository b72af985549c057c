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
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// A request body is sent as its pieces, not joined, yet goes out as any
// other: with its Content-Length (not chunked), and whole again when the
// request is retried. So does a streamed one, for which the SDKs are given
// a stand-in.
func TestBodySentWithLengthAndRetried(t *testing.T) {
	prompt := strings.Repeat("a long prompt, to be sent in more than one read; ", 4000) // 200 KB
	for _, tc := range []struct {
		name   string
		path   string
		answer string
		// streamed is the answer as events, to a streamed request.
		streamed string
		new      func(url string) (agent.Provider, error)
	}{
		{"openai", "/v1/chat/completions",
			`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
			"data: " + `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"fine"},"finish_reason":null}]}` + "\n\n" +
				"data: " + `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: " + `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}` + "\n\n" +
				"data: [DONE]\n\n",
			func(url string) (agent.Provider, error) {
				return openai.NewChat(openai.Config{BaseURL: url + "/v1", Model: "m", MaxRetries: 1})
			}},
		{"anthropic", "/v1/messages",
			`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"fine"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
			sse("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}`) +
				sse("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
				sse("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"fine"}}`) +
				sse("content_block_stop", `{"type":"content_block_stop","index":0}`) +
				sse("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`) +
				sse("message_stop", `{"type":"message_stop"}`),
			func(url string) (agent.Provider, error) {
				return anthropic.NewMessages(anthropic.Config{BaseURL: url, Model: "m", MaxRetries: 1})
			}},
		{"responses", "/v1/responses",
			`{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"fine","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
			sse("response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"fine","sequence_number":1}`) +
				sse("response.completed", `{"type":"response.completed","sequence_number":2,"response":{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"fine","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}}`),
			func(url string) (agent.Provider, error) {
				return openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: url + "/v1", Model: "m", MaxRetries: 1}})
			}},
	} {
		for _, streamed := range []bool{false, true} {
			name := tc.name
			if streamed {
				name += "/streamed"
			}
			t.Run(name, func(t *testing.T) {
				var mu sync.Mutex
				var bodies [][]byte
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					b, err := io.ReadAll(r.Body)
					mu.Lock()
					bodies = append(bodies, b)
					n := len(bodies)
					mu.Unlock()
					var m struct {
						Stream bool `json:"stream"`
					}
					switch {
					case err != nil || r.URL.Path != tc.path:
						t.Errorf("%s %s: %v", r.Method, r.URL.Path, err)
					case len(r.TransferEncoding) > 0 || r.ContentLength != int64(len(b)):
						t.Errorf("request %d: Content-Length %d, Transfer-Encoding %q, for a body of %d bytes", n, r.ContentLength, r.TransferEncoding, len(b))
					case json.Unmarshal(b, &m) != nil || !bytes.Contains(b, []byte(prompt)):
						t.Errorf("request %d: not the prompt as JSON: %.200s", n, b)
					case m.Stream != streamed:
						t.Errorf("request %d: stream %v, want %v", n, m.Stream, streamed)
					}
					if n == 1 {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusInternalServerError)
						io.WriteString(w, `{"error":{"type":"api_error","message":"boom"}}`)
						return
					}
					if streamed {
						w.Header().Set("Content-Type", "text/event-stream")
						io.WriteString(w, tc.streamed)
						return
					}
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, tc.answer)
				}))
				defer srv.Close()
				p, err := tc.new(srv.URL)
				if err != nil {
					t.Fatal(err)
				}
				l := &agent.Loop{Provider: p, Tools: weatherTools()}
				var text strings.Builder
				if streamed {
					l.OnText = func(s string) { text.WriteString(s) }
				}
				out, err := l.Prompt(context.Background(), prompt)
				if err != nil {
					t.Fatal(err)
				}
				if out.Answer != "fine" || len(bodies) != 2 {
					t.Fatalf("answer %q after %d requests", out.Answer, len(bodies))
				}
				if streamed && text.String() != "fine" {
					t.Errorf("streamed %q", text.String())
				}
				if !bytes.Equal(bodies[0], bodies[1]) {
					t.Errorf("the retry sent another body:\n%.300s\n%.300s", bodies[0], bodies[1])
				}
			})
		}
	}
}

// sse is one server-sent event.
func sse(event, data string) string { return "event: " + event + "\ndata: " + data + "\n\n" }
