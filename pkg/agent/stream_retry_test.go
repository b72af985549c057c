package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// sseError is a streamed Anthropic answer that the API starts (200,
// message_start, and the text given, if any) and then ends with an error
// event of the type given, as it does when it is overloaded mid-stream.
func sseError(typ, shown string) fakeapi.Step {
	body := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: ping\ndata: {\"type\":\"ping\"}\n\n"
	if shown != "" {
		body += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + shown + "\"}}\n\n"
	}
	body += "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"" + typ + "\",\"message\":\"" + typ + " mid-stream\"}}\n\n"
	return fakeapi.Step{RawBody: &body, Headers: map[string]string{"Content-Type": "text/event-stream"}}
}

// An error event inside a stream the API answered with 200 (overloaded_error,
// api_error) is retried like the 529 or 500 it stands for, within
// --max-retries, as long as none of the answer was shown; it used to end the
// run at once (exit 4) whatever the retries left.
func TestAnthropicStreamErrorEventRetried(t *testing.T) {
	const answer = "Paris is warmer."
	tests := []struct {
		name     string
		steps    []fakeapi.Step
		retries  int
		requests int
		wantErr  string // "" for the answer
		shown    string
	}{
		{"overloaded before any text", []fakeapi.Step{sseError("overloaded_error", ""), {Text: text(answer)}}, 2, 2, "", answer},
		{"api_error before any text", []fakeapi.Step{sseError("api_error", ""), {Text: text(answer)}}, 2, 2, "", answer},
		{"overloaded until the retries run out", []fakeapi.Step{sseError("overloaded_error", ""), sseError("overloaded_error", "")}, 1, 2, "overloaded_error mid-stream", ""},
		{"no retries", []fakeapi.Step{sseError("overloaded_error", "")}, 0, 1, "overloaded_error mid-stream", ""},
		{"overloaded after text was shown", []fakeapi.Step{sseError("overloaded_error", "Par")}, 2, 1, "overloaded_error mid-stream", "Par"},
		{"an error a retry would meet again", []fakeapi.Step{sseError("invalid_request_error", "")}, 2, 1, "invalid_request_error mid-stream", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeapi.NewAnthropic(tt.steps, antKey)
			t.Cleanup(srv.Close)
			p, err := anthropic.NewMessages(anthropic.Config{APIKey: antKey, BaseURL: srv.BaseURL(), Model: "claude-sonnet-4-5", MaxRetries: tt.retries})
			if err != nil {
				t.Fatal(err)
			}
			var shown strings.Builder
			l := &agent.Loop{Provider: p, OnText: func(s string) { shown.WriteString(s) }}
			out, err := l.Prompt(context.Background(), "Is it warmer in Paris or Dublin?")
			if got := len(srv.Requests()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if shown.String() != tt.shown {
				t.Errorf("shown %q, want %q", shown.String(), tt.shown)
			}
			if tt.wantErr == "" {
				if err != nil || out.Answer != answer {
					t.Fatalf("answer %q, err %v", out.Answer, err)
				}
				return
			}
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want a provider error holding %q", err, tt.wantErr)
			}
		})
	}
}

// A streamed request answered with 200 and a body that is not an event
// stream (a proxy's login page; a whole answer from a server that does not
// stream) is an error that says so, sent once: the SDKs read any body as
// events and skipped its lines, which came out as "the stream ended without
// a choice" or "before the message was complete".
func TestStreamedRequestAnsweredWithoutAStream(t *testing.T) {
	page := "<html><body><h1>Proxy login required</h1></body></html>"
	whole := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"not streamed"},"finish_reason":"stop"}]}`
	bodies := []struct {
		name, contentType, body, want string
	}{
		{"login page", "text/html", page, "the server answered a streamed request with text/html, not an event stream: Proxy login required"},
		{"whole answer", "application/json", whole, "not an event stream: {\"id\":\"x\""},
	}
	for _, provider := range []string{"openai", "responses", "anthropic"} {
		for _, b := range bodies {
			t.Run(provider+"/"+b.name, func(t *testing.T) {
				body := b.body
				steps := []fakeapi.Step{{RawBody: &body, Headers: map[string]string{"Content-Type": b.contentType}}}
				var p agent.Provider
				var requests func() int
				var err error
				switch provider {
				case "openai":
					srv := fakeapi.NewOpenAI(steps, "")
					t.Cleanup(srv.Close)
					requests = func() int { return len(srv.Requests()) }
					p, err = openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "gpt-4.1", MaxRetries: 2})
				case "responses":
					srv := fakeapi.NewResponses(steps, "")
					t.Cleanup(srv.Close)
					requests = func() int { return len(srv.Requests()) }
					p, err = openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: srv.BaseURL(), Model: "gpt-4.1", MaxRetries: 2}})
				default:
					srv := fakeapi.NewAnthropic(steps, antKey)
					t.Cleanup(srv.Close)
					requests = func() int { return len(srv.Requests()) }
					p, err = anthropic.NewMessages(anthropic.Config{APIKey: antKey, BaseURL: srv.BaseURL(), Model: "claude-sonnet-4-5", MaxRetries: 2})
				}
				if err != nil {
					t.Fatal(err)
				}
				l := &agent.Loop{Provider: p, OnText: func(string) {}}
				_, err = l.Prompt(context.Background(), "hi")
				var pe *agent.ProviderError
				if !errors.As(err, &pe) || !strings.Contains(err.Error(), b.want) {
					t.Fatalf("err = %v, want a provider error holding %q", err, b.want)
				}
				if n := requests(); n != 1 {
					t.Errorf("%d requests, want 1 (not retried)", n)
				}
			})
		}
	}
}

// An event stream its server (or a proxy) labels as another type is still
// read as the stream it is.
func TestMislabelledEventStreamIsRead(t *testing.T) {
	for _, contentType := range []string{"application/json", "text/plain", ""} {
		t.Run(contentType, func(t *testing.T) {
			body := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n" +
				"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-4.1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
				"data: [DONE]\n\n"
			step := fakeapi.Step{RawBody: &body}
			if contentType != "" {
				step.Headers = map[string]string{"Content-Type": contentType}
			}
			srv := fakeapi.NewOpenAI([]fakeapi.Step{step}, "")
			t.Cleanup(srv.Close)
			p, err := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "gpt-4.1"})
			if err != nil {
				t.Fatal(err)
			}
			var shown strings.Builder
			l := &agent.Loop{Provider: p, OnText: func(s string) { shown.WriteString(s) }}
			out, err := l.Prompt(context.Background(), "hi")
			if err != nil || out.Answer != "Hi" || shown.String() != "Hi" {
				t.Fatalf("answer %q, shown %q, err %v", out.Answer, shown.String(), err)
			}
		})
	}
}
