package agent_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// newProvider is a provider of api for baseURL.
func newProvider(t *testing.T, api, baseURL string, retries int) agent.Provider {
	t.Helper()
	var (
		p   agent.Provider
		err error
	)
	oai := openai.Config{BaseURL: baseURL, Model: "m", MaxRetries: retries}
	switch api {
	case "openai":
		p, err = openai.NewChat(oai)
	case "responses":
		p, err = openai.NewResponses(openai.ResponsesConfig{Config: oai})
	case "anthropic":
		p, err = anthropic.NewMessages(anthropic.Config{BaseURL: baseURL, Model: "m", MaxRetries: retries})
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// An event stream with a line longer than the SDKs read (32 MiB) says so,
// naming the server and what to try; it said "bufio.Scanner: token too
// long".
func TestEventStreamLineTooLong(t *testing.T) {
	line := "data: " + strings.Repeat("x", 33<<20)
	step := fakeapi.Step{RawBody: &line, Headers: map[string]string{"Content-Type": "text/event-stream"}}
	for _, api := range []string{"openai", "responses", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			var base string
			switch api {
			case "openai":
				s := fakeapi.NewOpenAI([]fakeapi.Step{step}, "")
				t.Cleanup(s.Close)
				base = s.BaseURL()
			case "responses":
				s := fakeapi.NewResponses([]fakeapi.Step{step}, "")
				t.Cleanup(s.Close)
				base = s.BaseURL()
			case "anthropic":
				s := fakeapi.NewAnthropic([]fakeapi.Step{step}, "")
				t.Cleanup(s.Close)
				base = s.BaseURL()
			}
			p := newProvider(t, api, base, 2)
			_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}, OnText: func(string) {}})
			want := api + ": the server at " + base + " sent a line of over 32 MiB in its event stream (no API streams an event that long: a server that does not stream as the API does; try --no-stream)"
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
		})
	}
}

// An https:// base URL of a server that speaks plain HTTP says which
// scheme to use, and is not retried: every attempt would meet the same.
// It said "http: server gave HTTP response to HTTPS client", after the
// retries.
func TestPlainHTTPServerAskedForHTTPS(t *testing.T) {
	for _, api := range []string{"openai", "responses", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			var conns atomic.Int32
			srv := httptest.NewUnstartedServer(http.NotFoundHandler())
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			t.Cleanup(srv.Close)
			base := "https://" + srv.Listener.Addr().String() + "/v1"
			p := newProvider(t, api, base, 2)
			_, err := p.Complete(context.Background(), &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}})
			want := api + ": the server at " + base + " speaks plain HTTP, not HTTPS (use http:// in --base-url)"
			if err == nil || err.Error() != want {
				t.Errorf("err = %v\nwant %s", err, want)
			}
			if n := conns.Load(); n != 1 {
				t.Errorf("%d connections, want 1 (no retry)", n)
			}
		})
	}
}
