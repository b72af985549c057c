package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

// longConversation is a run of steps steps, each one call answered with 8 KiB.
func longConversation(steps int) []agent.Message {
	line := "the quick brown fox jumps over the lazy dog, and again, and again.\n"
	page := strings.Repeat(line, 8192/len(line)+1)[:8192]
	d := agent.OpenAIDialect{}
	msgs := []agent.Message{d.UserMessage("read every page")}
	for i := 1; i <= steps; i++ {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, agent.Message(`{"content":null,"role":"assistant","tool_calls":[{"id":"`+id+`","type":"function","function":{"name":"page","arguments":"{}"}}]}`))
		rm, _ := d.ResultMessages([]agent.CallResult{{Call: agent.Call{ID: id, Name: "page"}, Result: agent.ToolResult{Content: page}}})
		msgs = append(msgs, rm[0].Message)
	}
	return msgs
}

// BenchmarkCompose composes the request body of a step of a long run from
// the stored wire messages and reads it through once, as the HTTP client
// does into its buffer: the figure to read is MB/s.
func BenchmarkCompose(b *testing.B) {
	for _, steps := range []int{10, 200} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			o := &Chat{cfg: Config{Model: "m"}}
			req := &agent.Request{System: "You read.", Messages: longConversation(steps)}
			size := 0
			b.ReportAllocs()
			for b.Loop() {
				w := o.body(req)
				n, err := io.Copy(onlyWriter{io.Discard}, io.LimitReader(w.Reader(), int64(w.Len())))
				if err != nil || n != int64(w.Len()) {
					b.Fatalf("read %d of %d bytes: %v", n, w.Len(), err)
				}
				size = w.Len()
			}
			b.SetBytes(int64(size))
		})
	}
}

// onlyWriter hides a writer's ReadFrom, as the HTTP client's connection
// does for a body of known length: the body is read into a buffer.
type onlyWriter struct{ io.Writer }

// BenchmarkStep is one request of a long run, at step 10 and at step 200,
// to a server that reads it and answers with a tool call: composing the
// body, the SDK sending it and reading the answer, the turn made of it.
// ms per MB of body is the figure to compare between the two: agentloop's
// own cost should grow no faster than what it sends.
func BenchmarkStep(b *testing.B) {
	answer := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_x","type":"function","function":{"name":"page","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	defer srv.Close()
	for _, steps := range []int{10, 200} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			p, err := NewChat(Config{BaseURL: srv.URL + "/v1", Model: "m"})
			if err != nil {
				b.Fatal(err)
			}
			req := &agent.Request{System: "You read.", Messages: longConversation(steps)}
			size := 0
			b.ReportAllocs()
			for b.Loop() {
				t, err := p.Complete(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				size = t.RequestBytes
			}
			b.SetBytes(int64(size))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6/(float64(size)/1e6), "ms/MB")
		})
	}
}
