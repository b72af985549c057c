package agent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// TestRedirectToAnotherServerNotFollowed has the server at the base URL
// answer 307 to another server: the request, and the key in its headers,
// must not go there. Go's client drops Authorization on a redirect to
// another host but keeps x-api-key (Anthropic's), and keeps both for
// another port or scheme of the same host.
func TestRedirectToAnotherServerNotFollowed(t *testing.T) {
	const key = "sk-redirect-0123456789abcdef"
	var mu sync.Mutex
	var stolen []string
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stolen = append(stolen, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer thief.Close()
	for _, target := range []string{thief.URL, strings.Replace(thief.URL, "127.0.0.1", "localhost", 1)} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		providers := map[string]func() (agent.Provider, error){
			"openai": func() (agent.Provider, error) {
				return openai.NewChat(openai.Config{BaseURL: redirector.URL + "/v1", APIKey: key, Model: "m", MaxRetries: 0})
			},
			"responses": func() (agent.Provider, error) {
				return openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: redirector.URL + "/v1", APIKey: key, Model: "m", MaxRetries: 0}})
			},
			"anthropic": func() (agent.Provider, error) {
				return anthropic.NewMessages(anthropic.Config{BaseURL: redirector.URL, APIKey: key, Model: "m", MaxRetries: 0})
			},
		}
		for name, newP := range providers {
			p, err := newP()
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
			if err == nil || !strings.Contains(err.Error(), "redirected") {
				t.Errorf("%s, redirected to %s: err = %v, want the redirect refused", name, target, err)
			}
		}
		redirector.Close()
	}
	if len(stolen) > 0 {
		t.Errorf("the other server got %d requests, with %q", len(stolen), stolen)
	}
}

// TestRedirectWithinTheServerFollowed: a redirect to another path of the
// same server is followed, the port written out or not, the host in
// capitals or not; one to another scheme, port or host is not.
func TestRedirectWithinTheServerFollowed(t *testing.T) {
	for _, c := range []struct{ from, to string }{
		{"http://h:1/a", "http://h:1/b"},
		{"https://api.example.com/v1/a", "https://api.example.com:443/v1/b"},
		{"https://api.example.com:443/v1/a", "https://API.example.com/v1/b"},
		{"http://h/a", "http://h:80/b"},
	} {
		if err := httpretry.SameServerRedirects(httptest.NewRequest("GET", c.to, nil), []*http.Request{httptest.NewRequest("GET", c.from, nil)}); err != nil {
			t.Errorf("%s to %s: %v", c.from, c.to, err)
		}
	}
	for _, to := range []string{"https://h:1/b", "http://h:2/b", "http://g:1/b", "http://h.evil:1/b", "http://h/b"} {
		if httpretry.SameServerRedirects(httptest.NewRequest("GET", to, nil), []*http.Request{httptest.NewRequest("GET", "http://h:1/a", nil)}) == nil {
			t.Errorf("redirect to %s followed", to)
		}
	}
	if httpretry.SameServerRedirects(httptest.NewRequest("GET", "https://h:80/b", nil), []*http.Request{httptest.NewRequest("GET", "http://h/a", nil)}) == nil {
		t.Error("redirect from http to https on port 80 followed")
	}
}
