package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/mcptest"
)

// TestHTTPRedirectKeepsHeadersHome has an HTTP server's address answer 307
// to another server (an MCP server that works): the server's headers (a
// token) are sent with every request agentloop makes, so a redirect
// followed would hand them to whatever server it names. It is refused, and
// the other server sees nothing.
func TestHTTPRedirectKeepsHeadersHome(t *testing.T) {
	var mu sync.Mutex
	var got []string
	real := mcptest.Handler(mcptest.Options{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		real.ServeHTTP(w, r)
	}))
	defer other.Close()
	for _, target := range []string{other.URL, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		cfg := &Config{Name: "web", URL: redirector.URL + "/mcp", Headers: map[string]string{"Authorization": "Bearer tok-redirect-0123456789"},
			Prefix: "web_", Timeout: 5 * time.Second, StartTimeout: 5 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1}
		s := Start(context.Background(), []*Config{cfg}, Options{Getenv: testEnv(nil)})
		st := s.Statuses()[0]
		if st.Err == nil || !strings.Contains(st.Err.Error(), "redirected") {
			t.Errorf("redirected to %s: %v, want the redirect refused", target, st.Err)
		}
		s.Close()
		redirector.Close()
	}
	if len(got) > 0 {
		t.Errorf("the other server got %d requests, with %q", len(got), got)
	}
}
