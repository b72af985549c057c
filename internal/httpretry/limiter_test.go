package httpretry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a limiter's clock that moves only when told.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) add(d time.Duration)     { c.t = c.t.Add(d) }
func (c *fakeClock) since(t time.Time) int64 { return t.Sub(c.t).Milliseconds() }

func newTestLimiter() (*Limiter, *fakeClock) {
	c := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := NewLimiter()
	l.now = c.now
	return l, c
}

func TestLimiterUnpacedUntilThrottled(t *testing.T) {
	l, c := newTestLimiter()
	for i := range 100 {
		if got := c.since(l.reserve()); got != 0 {
			t.Fatalf("request %d waits %dms before any throttling", i, got)
		}
	}
	if s := l.Status(); s.Rate != 0 || s.Throttled != 0 || s.Waited != 0 {
		t.Errorf("status %+v", s)
	}
}

func TestLimiterThrottledPausesAndPacesEveryone(t *testing.T) {
	l, c := newTestLimiter()
	// 20 requests a second for a second.
	for range 20 {
		l.reserve()
		c.add(50 * time.Millisecond)
	}
	l.Throttled(2 * time.Second)
	if s := l.Status(); s.Rate < 9 || s.Rate > 11 || s.Throttled != 1 {
		t.Fatalf("after a 429 at 20 requests a second: %+v, want a pace near 10", s)
	}
	// Every caller, whichever provider's request was throttled, starts
	// after the pause, one every 100ms.
	want := []int64{2000, 2100, 2200, 2300}
	for i, w := range want {
		if got := c.since(l.reserve()); got < w-1 || got > w+1 {
			t.Errorf("request %d after the pause starts at %dms, want %dms", i, got, w)
		}
	}
	if !l.paused() {
		t.Error("not paused during the pause")
	}
	c.add(2 * time.Second)
	if l.paused() {
		t.Error("paused after the pause")
	}
}

func TestLimiterOneCutPerOverload(t *testing.T) {
	l, c := newTestLimiter()
	for range 40 {
		l.reserve()
		c.add(25 * time.Millisecond)
	}
	// The answers of the requests in flight come back throttled together:
	// the rate is halved once.
	for range 8 {
		l.Throttled(time.Second)
		c.add(10 * time.Millisecond)
	}
	first := l.Status().Rate
	if first < 15 || first > 25 {
		t.Fatalf("rate %v after one overload at 40/s, want about 20", first)
	}
	if s := l.Status(); s.Throttled != 8 {
		t.Errorf("throttled %d", s.Throttled)
	}
	// A later overload halves it again.
	c.add(3 * time.Second)
	l.Throttled(time.Second)
	if got := l.Status().Rate; got > first/2+0.01 {
		t.Errorf("rate %v after a second overload, want at most %v", got, first/2)
	}
}

func TestLimiterRecovers(t *testing.T) {
	l, c := newTestLimiter()
	for range 10 {
		l.reserve()
		c.add(100 * time.Millisecond)
	}
	l.Throttled(time.Second)
	before := l.Status().Rate
	for range 100 {
		l.Succeeded()
	}
	if after := l.Status().Rate; after <= before {
		t.Errorf("rate %v after 100 answers, was %v", after, before)
	}
	// The floor: many overloads in a row never stop the requests.
	for range 50 {
		c.add(2 * time.Second)
		l.Throttled(time.Second)
	}
	if got := l.Status().Rate; got < minRate {
		t.Errorf("rate %v under the floor %v", got, minRate)
	}
	// A slow pace rises by at most a quarter an answer.
	r := l.Status().Rate
	l.Succeeded()
	if got := l.Status().Rate; got > r*1.25+1e-9 {
		t.Errorf("rate %v after one answer at %v", got, r)
	}
}

func TestLimiterWaitEndsWithContext(t *testing.T) {
	l := NewLimiter()
	l.Throttled(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait during a pause with an ended context: %v", err)
	}
}

// TestSharedLimiterHoldsOtherProviders: a 429 that one provider's request
// gets holds back the requests of another that shares its limiter, for the
// wait the server asked; one that does not share it goes at once.
func TestSharedLimiterHoldsOtherProviders(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()

	shared := NewLimiter()
	first := Wrap(nil, shared, 0, DefaultIdleTimeout)
	res, err := first.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil || res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("first request: %v %v", res, err)
	}
	res.Body.Close()
	if s := shared.Status(); s.Throttled != 1 || !s.PausedUntil.After(time.Now().Add(20*time.Second)) {
		t.Fatalf("the 429's Retry-After did not pause the limiter: %+v", s)
	}

	// Another provider on the same limiter does not reach the server while
	// the pause lasts: its request ends with its context, unsent.
	second := Wrap(nil, shared, 3, DefaultIdleTimeout)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{}`))
	if _, err := second.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a request under the pause: %v", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the server saw %d requests during the pause", n)
	}

	// A provider with a limiter of its own is not held.
	own := Wrap(nil, nil, 0, DefaultIdleTimeout)
	res, err = own.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("own limiter: %v %v", res, err)
	}
	res.Body.Close()
}

func TestTransportRetryPolicy(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int
		headers  map[string]string
		retries  int
		want     int // status returned
		requests int
	}{
		{"5xx then an answer", []int{500, 502, 200}, nil, 2, 200, 3},
		{"out of retries", []int{500, 500, 200}, nil, 1, 500, 2},
		{"a client error is final", []int{400, 200}, nil, 3, 400, 1},
		{"408 and 409 are retried", []int{408, 409, 200}, nil, 3, 200, 3},
		{"x-should-retry false", []int{500, 200}, map[string]string{"X-Should-Retry": "false"}, 3, 500, 1},
		{"x-should-retry true", []int{400, 200}, map[string]string{"X-Should-Retry": "true"}, 3, 200, 2},
		{"a Retry-After too long to wait", []int{429, 200}, map[string]string{"Retry-After": "3600"}, 3, 429, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			var bodies []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				bodies = append(bodies, string(b))
				i := int(n.Add(1)) - 1
				if _, ok := tt.headers["Retry-After"]; !ok {
					w.Header().Set("Retry-After-Ms", "1")
				}
				if i == 0 {
					for k, v := range tt.headers {
						w.Header().Set(k, v)
					}
				}
				w.WriteHeader(tt.statuses[i])
				io.WriteString(w, `{}`)
			}))
			defer srv.Close()
			c := Wrap(nil, nil, tt.retries, DefaultIdleTimeout)
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"same":"body"}`))
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want || int(n.Load()) != tt.requests {
				t.Errorf("status %d after %d requests, want %d after %d", res.StatusCode, n.Load(), tt.want, tt.requests)
			}
			for i, b := range bodies {
				if b != `{"same":"body"}` {
					t.Errorf("request %d body %q", i+1, b)
				}
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	for attempt, want := range []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second} {
		for range 20 {
			if got := Backoff(attempt); got > want || got < want*3/4 {
				t.Errorf("attempt %d: %v, want within [%v, %v]", attempt, got, want*3/4, want)
			}
		}
	}
	if got := Backoff(1000); got > backoffMax {
		t.Errorf("attempt 1000: %v", got)
	}
}
