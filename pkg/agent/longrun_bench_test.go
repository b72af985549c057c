package agent_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// longRunServer plays a model that calls one tool a step for steps steps,
// then answers; it reads each request whole and keeps nothing of it.
func longRunServer(b *testing.B, steps int) (*httptest.Server, *atomic.Int64) {
	var n, sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		size, _ := io.Copy(io.Discard, r.Body)
		sent.Add(size)
		i := n.Add(1)
		msg, finish := `{"role":"assistant","content":"Done reading."}`, "stop"
		if int(i)%(steps+1) != 0 {
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"page","arguments":"{}"}}]}`, i)
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":20,"total_tokens":%d}}`,
			msg, finish, size/4, size/4+20)
	}))
	b.Cleanup(srv.Close)
	return srv, &sent
}

// pageTool answers every call with 8 KiB of text.
type pageTool struct{ page string }

func (p pageTool) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	return agent.ToolResult{Content: p.page}
}

// BenchmarkLongRun is a whole run of 200 steps, each answered with 8 KiB,
// in one process: the loop, the requests (composed and sent), the
// responses, the results. The figure is the whole run's time; MB/s is
// the request bytes sent over it.
func BenchmarkLongRun(b *testing.B) {
	for _, limit := range []int64{0, 32000} {
		b.Run(fmt.Sprintf("context-limit=%d", limit), func(b *testing.B) {
			const steps = 200
			srv, sent := longRunServer(b, steps)
			p, err := openai.NewChat(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
			if err != nil {
				b.Fatal(err)
			}
			line := "the quick brown fox jumps over the lazy dog, and again, and again.\n"
			page := strings.Repeat(line, 8192/len(line)+1)[:8192]
			l := &agent.Loop{Provider: p, Tools: pageTool{page}, MaxSteps: steps + 2}
			if limit > 0 {
				l.Context = &agent.ContextPolicy{Limit: limit, Keep: agent.DefaultContextKeep}
			}
			b.ReportAllocs()
			b.ResetTimer()
			var out *agent.Outcome
			for b.Loop() {
				out, err = l.Prompt(context.Background(), "read every page")
				if err != nil || out.Answer != "Done reading." {
					b.Fatalf("%v %q", err, out.Answer)
				}
			}
			b.StopTimer()
			b.SetBytes(sent.Load() / int64(b.N))
			// What stays in memory: the heap live once the run is over and
			// its conversation still held, against that conversation's size.
			conv := 0
			for _, m := range out.Messages {
				conv += len(m)
			}
			var ms runtime.MemStats
			runtime.GC() // twice: the body buffer kept for a next request goes on the second
			runtime.GC()
			runtime.ReadMemStats(&ms)
			runtime.KeepAlive(out)
			b.ReportMetric(float64(conv)/1e6, "conv-MB")
			b.ReportMetric(float64(ms.HeapAlloc)/1e6, "live-heap-MB")
			largest := 0
			for _, r := range out.Requests {
				largest = max(largest, r.Bytes)
			}
			b.ReportMetric(float64(largest)/1e6, "largest-request-MB")
		})
	}
}
