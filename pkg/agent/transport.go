package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"time"
)

// MaxRetryWait is the longest wait a server's Retry-After can ask for and
// still be waited out. Past it the error response is final: a run that
// sleeps for a day because a rate limiter said so looks hung.
const MaxRetryWait = time.Minute

// maxResponseBody bounds a buffered response; no model answer comes near.
const maxResponseBody = 64 << 20

// faultTransport makes the SDKs' retries cover two faults they handle
// differently or not at all, so that both providers behave the same:
//
//   - A response body cut off mid-way (a reset connection, a proxy that
//     gave up) is a connection error like any other, which the SDKs retry.
//     The OpenAI SDK reads the body only after its retry loop, so the
//     body is read here, whole, inside the attempt.
//   - A Retry-After longer than MaxRetryWait is not waited for (the
//     Anthropic SDK would wait however long it is told): the response is
//     marked final and reported.
//
// Streamed responses pass through as they are.
type faultTransport struct {
	next http.RoundTripper
}

// withFaultTransport returns a client like c (or a default one) whose
// transport is wrapped in a faultTransport.
func withFaultTransport(c *http.Client) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out.Transport = &faultTransport{next: next}
	return &out
}

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if wait, ok := retryAfter(res.Header); ok && wait > MaxRetryWait {
		res.Header.Set("X-Should-Retry", "false")
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "text/event-stream" {
		return res, nil
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBody+1))
	res.Body.Close()
	if err != nil {
		return nil, &bodyError{status: res.StatusCode, err: err}
	}
	if len(body) > maxResponseBody {
		return nil, fmt.Errorf("the response body is larger than %d MiB", maxResponseBody>>20)
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return res, nil
}

// bodyError is a response whose body could not be read whole.
type bodyError struct {
	status int
	err    error
}

func (e *bodyError) Error() string {
	return fmt.Sprintf("the connection broke while the response was read (status %d): %v", e.status, e.err)
}

func (e *bodyError) Unwrap() error { return e.err }

// retryAfter reads the wait a response asks for, as both SDKs do:
// Retry-After-Ms, else Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(ms) && ms >= 0 {
			return durationOf(ms, time.Millisecond), true
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(s) || s < 0 {
			return 0, false
		}
		return durationOf(s, time.Second), true
	} else if errors.Is(err, strconv.ErrRange) {
		return math.MaxInt64, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return time.Until(at), true
	}
	return 0, false
}

// durationOf is n units, saturating instead of overflowing.
func durationOf(n float64, unit time.Duration) time.Duration {
	if d := n * float64(unit); d < math.MaxInt64 {
		return time.Duration(d)
	}
	return math.MaxInt64
}
