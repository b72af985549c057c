package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/pkg/wire"
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
		// What happened and what to do, not the SDK's chain ("calling
		// "initialize": sending "initialize": rejected by transport: Post
		// …: the server redirected the request to …").
		want := "the server at " + redirector.URL + "/mcp redirected to " + target + "/mcp, another server; agentloop does not follow a redirect to another server, " +
			"since the server's headers go to the address given only: if " + target + "/mcp is the server's address, give it as url: in the declaration"
		if st.Err == nil || st.Err.Error() != want {
			t.Errorf("redirected to %s:\n got %v\nwant %s", target, st.Err, want)
		}
		s.Close()
		redirector.Close()
	}
	if len(got) > 0 {
		t.Errorf("the other server got %d requests, with %q", len(got), got)
	}
}

// A server that redirects to another in the middle of a run: that call's
// result says so, as the start's error does.
func TestHTTPRedirectMidRun(t *testing.T) {
	real := mcptest.Handler(mcptest.Options{})
	other := httptest.NewServer(real)
	defer other.Close()
	var moved atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if moved.Load() && r.Method == http.MethodPost {
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
			return
		}
		real.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := &Config{Name: "web", URL: srv.URL + "/mcp", Prefix: "web_", Timeout: 5 * time.Second, StartTimeout: 5 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1}
	s := start(t, "", cfg)
	moved.Store(true)
	r := s.Call(context.Background(), "web_echo", "c1", []byte(`{"text":"x"}`))
	want := "mcp server web: the server at " + srv.URL + "/mcp redirected to " + other.URL + "/mcp, another server;"
	if r.Kind != wire.KindServer || !strings.HasPrefix(r.Content, want) {
		t.Errorf("got %+v\nwant %s…", r, want)
	}
}
