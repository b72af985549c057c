package httpretry

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Each retry is told to the request's hook with its status and its wait,
// before the wait; the attempt that succeeds is not a retry.
func TestRetryHook(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 1:
			w.Header().Set("Retry-After-Ms", "20")
			http.Error(w, "boom", http.StatusInternalServerError)
		case 2:
			// Throttled last: the limiter paces only what comes after.
			w.Header().Set("Retry-After-Ms", "10")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	var got []Retry
	ctx := WithRetryHook(context.Background(), func(r Retry) { got = append(got, r) })
	c := Wrap(nil, nil, 3, 0)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader("{}"))
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || len(got) != 2 {
		t.Fatalf("status %d, retries %+v; want 200 after 2", res.StatusCode, got)
	}
	want := []struct {
		status int
		wait   time.Duration
		kind   string
	}{{500, 20 * time.Millisecond, "500"}, {429, 10 * time.Millisecond, "429"}}
	for i, w := range want {
		r := got[i]
		if r.Attempt != i+1 || r.Status != w.status || r.Wait != w.wait || r.Kind() != w.kind || r.Time.IsZero() {
			t.Errorf("retry %d: %+v (kind %s), want attempt %d status %d wait %v kind %s", i, r, r.Kind(), i+1, w.status, w.wait, w.kind)
		}
	}
}

// A connection that is not made is a retry of kind connect.
func TestRetryHookConnect(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close()
	var kinds []string
	// The backoff would wait: the test ends at the first retry.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = WithRetryHook(ctx, func(r Retry) {
		kinds = append(kinds, r.Kind())
		if r.Err == nil || r.Status != 0 {
			t.Errorf("retry %+v: want an error and no status", r)
		}
		cancel()
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if _, err := Wrap(nil, nil, 2, 0).Do(req); err == nil {
		t.Fatal("a refused connection succeeded")
	}
	if len(kinds) != 1 || kinds[0] != "connect" {
		t.Errorf("kinds %q, want [connect]", kinds)
	}
}
