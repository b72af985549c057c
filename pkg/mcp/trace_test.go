package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call whose context has a trace context carries it to the server: in
// params._meta, and over HTTP in the traceparent and tracestate headers of
// the tools/call request. A call without one carries neither.
func TestTraceParentReachesTheServer(t *testing.T) {
	var (
		mu      sync.Mutex
		headers []string
	)
	s := sdk.NewServer(&sdk.Implementation{Name: "meta", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "meta", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		b, _ := json.Marshal(req.Params.Meta)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tp := r.Header.Get("traceparent"); tp != "" {
			mu.Lock()
			headers = append(headers, tp+" "+r.Header.Get("tracestate"))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := &Config{Name: "m", URL: srv.URL, Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1}
	set := start(t, t.TempDir(), cfg)

	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	r := set.Call(WithTraceParent(context.Background(), tp, "ci=1"), "meta", "call_1", []byte(`{}`))
	if r.IsError || r.Content != `{"traceparent":"`+tp+`","tracestate":"ci=1"}` {
		t.Errorf("_meta the server saw: %q (error %v)", r.Content, r.IsError)
	}
	mu.Lock()
	if len(headers) != 1 || headers[0] != tp+" ci=1" {
		t.Errorf("traceparent headers received: %q, want the call's alone", headers)
	}
	headers = nil
	mu.Unlock()

	r = set.Call(context.Background(), "meta", "call_2", []byte(`{}`))
	if r.IsError || r.Content != `null` && r.Content != `{}` {
		t.Errorf("_meta without a trace context: %q", r.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(headers) != 0 {
		t.Errorf("traceparent headers without a trace context: %q", headers)
	}
}
