package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
)

// A server that sends nothing for the idle time is given up on, for each
// API: before its response, or inside a body read whole, the attempt is
// retried like a broken connection; inside a stream that has begun, the
// request ends with a StalledError (its text may have been shown).
func TestIdleServerGivenUp(t *testing.T) {
	// A stall is found after idle whatever the load; what must not be
	// given up is asked with patient, whose margin over the gaps (20
	// times) a busy machine does not eat.
	const idle, patient = 200 * time.Millisecond, time.Second
	type server interface {
		BaseURL() string
		Close()
		Requests() []fakeapi.Request
	}
	apis := []struct {
		name string
		new  func(steps []fakeapi.Step, idle time.Duration) (server, agent.Provider, error)
	}{
		{"openai", func(steps []fakeapi.Step, idle time.Duration) (server, agent.Provider, error) {
			s := fakeapi.NewOpenAI(steps, "")
			p, err := openai.NewChat(openai.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 1, IdleTimeout: idle})
			return s, p, err
		}},
		{"anthropic", func(steps []fakeapi.Step, idle time.Duration) (server, agent.Provider, error) {
			s := fakeapi.NewAnthropic(steps, "")
			p, err := anthropic.NewMessages(anthropic.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 1, IdleTimeout: idle})
			return s, p, err
		}},
		{"responses", func(steps []fakeapi.Step, idle time.Duration) (server, agent.Provider, error) {
			s := fakeapi.NewResponses(steps, "")
			p, err := openai.NewResponses(openai.ResponsesConfig{Config: openai.Config{BaseURL: s.BaseURL(), Model: "m", MaxRetries: 1, IdleTimeout: idle}})
			return s, p, err
		}},
	}
	for _, api := range apis {
		t.Run(api.name, func(t *testing.T) {
			t.Parallel()
			complete := func(steps []fakeapi.Step, streamed bool, idle time.Duration) (*agent.Turn, []fakeapi.Request, error) {
				t.Helper()
				srv, p, err := api.new(steps, idle)
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				req := &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}}
				if streamed {
					req.OnText = func(string) {}
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, not a measure
				defer cancel()
				turn, err := p.Complete(ctx, req)
				return turn, srv.Requests(), err
			}
			stalled := func(err error, begun bool) {
				t.Helper()
				var st *httpretry.StalledError
				if !errors.As(err, &st) || st.Begun != begun || st.Idle != idle || !strings.Contains(err.Error(), "--idle-timeout") {
					t.Fatalf("err = %v, want a stall (begun %v)", err, begun)
				}
			}

			// Half a body, then nothing: retried; the retry answers (in
			// less than patient, however busy the machine).
			turn, reqs, err := complete([]fakeapi.Step{{Stall: true}, {Text: text("fine")}}, false, patient)
			if err != nil || turn.Text != "fine" || len(reqs) != 2 {
				t.Fatalf("stalled body: turn %+v, %d requests, err %v", turn, len(reqs), err)
			}
			// No response at all: retried, then given up on.
			_, reqs, err = complete([]fakeapi.Step{{Hang: true}, {Hang: true}}, false, idle)
			stalled(err, false)
			if len(reqs) != 2 {
				t.Errorf("no response: %d requests, want 2 (one retry)", len(reqs))
			}
			// A stream that stops and stays open: not sent again.
			_, reqs, err = complete([]fakeapi.Step{{Text: text("a fine day to wait"), StreamStop: 2, Stall: true}}, true, idle)
			stalled(err, true)
			if len(reqs) != 1 {
				t.Errorf("stalled stream: %d requests, want 1", len(reqs))
			}
			// A response that starts late, and a stream whose events come
			// slowly but keep coming (longer than the idle time in all),
			// are waited for.
			turn, _, err = complete([]fakeapi.Step{{Text: text("late but whole"), Delay: fakeapi.Duration(patient / 20)}}, false, patient)
			if err != nil || turn.Text != "late but whole" {
				t.Fatalf("late response: turn %+v, err %v", turn, err)
			}
			slow := strings.Repeat("slow but steady. ", 12) // over 30 events, each held back
			turn, reqs, err = complete([]fakeapi.Step{{Text: text(slow), EventDelay: fakeapi.Duration(patient / 20)}}, true, patient)
			if err != nil || turn.Text != slow || len(reqs) != 1 {
				t.Fatalf("slow stream: turn %+v, %d requests, err %v", turn, len(reqs), err)
			}
		})
	}
}

// TestIdleCountsOnlyWhileWaiting: the idle time is the server's, counted
// while agentloop waits for it to send. A stream held up on this side (its
// text going to a terminal paused, or to a pipe a pager reads) longer than
// the idle time, while the server has sent the rest, is not a stall.
func TestIdleCountsOnlyWhileWaiting(t *testing.T) {
	const idle = 500 * time.Millisecond
	slow := strings.Repeat("held up here. ", 12)
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: text(slow), EventDelay: fakeapi.Duration(10 * time.Millisecond)}}, "")
	defer srv.Close()
	p, err := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "m", MaxRetries: 0, IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	held := false
	req := &agent.Request{Messages: []agent.Message{p.UserMessage("hi")}, OnText: func(string) {
		if !held {
			held = true
			time.Sleep(3 * idle) // the reader, not the server, is slow
		}
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard, not a measure
	defer cancel()
	turn, err := p.Complete(ctx, req)
	if err != nil || turn.Text != slow {
		t.Fatalf("turn %+v, err %v; want the whole answer", turn, err)
	}
}
