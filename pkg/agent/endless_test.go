package agent_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// countingTransport counts the bytes read from the bodies of the
// responses it gets, under agentloop's own transport.
type countingTransport struct{ read atomic.Int64 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		res.Body = &countedBody{ReadCloser: res.Body, n: &c.read}
	}
	return res, err
}

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// endlessProvider starts a fake server of api playing steps, and a
// provider for it whose reads are counted.
func endlessProvider(t *testing.T, api string, steps []fakeapi.Step) (agent.Provider, *countingTransport) {
	t.Helper()
	counter := &countingTransport{}
	client := &http.Client{Transport: counter}
	var (
		p   agent.Provider
		err error
	)
	switch api {
	case "openai":
		s := fakeapi.NewOpenAI(steps, "")
		t.Cleanup(s.Close)
		p, err = openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 2, HTTPClient: client})
	case "responses":
		s := fakeapi.NewResponses(steps, "")
		t.Cleanup(s.Close)
		p, err = openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 2, HTTPClient: client}})
	case "anthropic":
		s := fakeapi.NewAnthropic(steps, "")
		t.Cleanup(s.Close)
		p, err = anthropic.NewMessages(anthropic.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 2, HTTPClient: client})
	}
	if err != nil {
		t.Fatal(err)
	}
	return p, counter
}

// A streamed answer that never ends (a model that repeats itself, a server
// that does not stop) is read up to the bound a body read whole has, 64
// MiB, and not a byte more: the request ends with ErrResponseTooLarge, not
// retried (its text was shown). It used to be read, shown and kept for as
// long as the server sent it.
func TestEndlessStreamStopsAtTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 64 MiB three times, minutes under the race detector; not in -short")
	}
	const limit = 64 << 20
	for _, api := range []string{"openai", "responses", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			// Deltas of 4 KiB: some 16,000 of them to the bound. (Anthropic's
			// were added up in time that grew with the square of the text:
			// this stream took hours to reach the bound.)
			steps := []fakeapi.Step{{Text: text("All work and no play makes Jack a dull boy. "), Endless: true, EndlessDelta: 4 << 10}}
			p, counter := endlessProvider(t, api, steps)
			var shown int
			req := &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}, OnText: func(s string) { shown += len(s) }}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a guard, not a measure
			defer cancel()
			turn, err := p.Complete(ctx, req)
			if turn != nil || !errors.Is(err, httpretry.ErrResponseTooLarge) {
				t.Fatalf("turn %v, err %v; want ErrResponseTooLarge", turn, err)
			}
			var pe *agent.ProviderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "larger than 64 MiB") || !strings.Contains(pe.Hint, "--max-tokens") {
				t.Errorf("err = %v, want a provider error saying the bound and what to do", err)
			}
			if read := counter.read.Load(); read != limit+1 {
				t.Errorf("read %d bytes of the stream, want the bound and the one byte that showed it going on (%d)", read, limit+1)
			}
			if shown == 0 || shown > limit {
				t.Errorf("%d bytes of text shown", shown)
			}
		})
	}
}
