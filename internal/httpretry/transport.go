package httpretry

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// MaxRetryWait is the longest wait a server's Retry-After can ask for and
// still be waited out. Past it the error response is final: a run that
// sleeps for a day because a rate limiter said so looks hung.
const MaxRetryWait = time.Minute

// maxResponseBody bounds a response, read whole or streamed; no model
// answer comes near (a streamed answer of 128k tokens is some 30 MiB of
// events). Past it a stream is cut: its server does not end it.
const maxResponseBody = 64 << 20

// faultTransport sends a model request and retries it, the same way for
// every provider: the SDKs' own retries are off (their policies differ, and
// each client's backoff is its own), and this is where the retry policy is.
//
//   - Retried: connection errors, a response body cut off mid-way (read
//     here, whole, inside the attempt, as the OpenAI SDK would only after
//     its retry loop), and the statuses 408, 409, 429 and 5xx; an
//     x-should-retry header overrides the status either way.
//   - The wait before a retry is what the server asked for (Retry-After-Ms,
//     Retry-After), else an exponential backoff with jitter. A Retry-After
//     longer than MaxRetryWait is not waited for: the response is final.
//   - Every attempt first waits its turn at the Limiter, which a 429, 503
//     or 529 pauses and slows for every request that shares it.
//   - An attempt whose server sends nothing for the idle time, before its
//     response or inside it, while agentloop waits (a stream read slowly
//     on this side is not idle), is given up with a StalledError: retried as a
//     broken connection while the response is read here, ended with the
//     stream once a streamed one has begun (its text may have been shown).
//
// Streamed responses pass through as they are once their status is 200,
// up to maxResponseBody: a stream that goes on past it (a model that
// repeats itself without end, a server that never ends the answer) ends
// with ErrResponseTooLarge, not retried.
type faultTransport struct {
	next    http.RoundTripper
	lim     *Limiter
	retries int
	idle    time.Duration // 0: no limit
}

// DefaultIdleTimeout is the longest a server may send nothing by default:
// long enough for a model that thinks for minutes before its first word
// (a request not streamed gets its response only then), short enough that
// a connection a proxy holds open with nothing behind it is not waited on
// for ever.
const DefaultIdleTimeout = 10 * time.Minute

// Wrap returns a client like c (or a default one) whose
// transport retries up to retries times, pacing its attempts with lim (a
// limiter of its own when nil) and giving up on an attempt that is idle
// for idle (0: never).
func Wrap(c *http.Client, lim *Limiter, retries int, idle time.Duration) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	if lim == nil {
		lim = NewLimiter()
	}
	out.Transport = &faultTransport{next: next, lim: lim, retries: max(retries, 0), idle: max(idle, 0)}
	// The key is in the request's headers: a redirect to another server
	// would take it there (Go keeps x-api-key, and Authorization for
	// another port or scheme of the same host).
	out.CheckRedirect = SameServerRedirects
	return &out
}

// Backoff bounds, as the SDKs had them: 0.5s doubling up to 8s, less up
// to a quarter of jitter.
const (
	backoffBase = 500 * time.Millisecond
	backoffMax  = 8 * time.Second
)

func (t *faultTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		if err := t.lim.Wait(ctx); err != nil {
			return nil, err
		}
		try := req
		if attempt > 0 {
			var err error
			if try, err = retryRequest(req, attempt); err != nil {
				return nil, err
			}
		}
		res, err := t.attempt(try)
		if ctx.Err() != nil {
			if res != nil {
				res.Body.Close()
			}
			return nil, ctx.Err()
		}
		wait, retry := t.verdict(req, res, err, attempt)
		if !retry {
			return res, err
		}
		r := Retry{Attempt: attempt + 1, Err: err, Wait: wait, Time: time.Now()}
		if res != nil {
			r.Status = res.StatusCode
			res.Body.Close()
		}
		reportRetry(ctx, r)
		if err := Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// retryRequest is the request again, with its body from the start.
func retryRequest(req *http.Request, attempt int) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	if r.Header.Get("X-Stainless-Retry-Count") != "" {
		r.Header.Set("X-Stainless-Retry-Count", strconv.Itoa(attempt))
	}
	return r, nil
}

// attempt sends the request once and reads a whole (not streamed) body.
func (t *faultTransport) attempt(req *http.Request) (*http.Response, error) {
	req, dog := watch(req, t.idle)
	res, err := t.next.RoundTrip(req)
	if err != nil {
		dog.stop()
		return nil, dog.why(err)
	}
	dog.begin()
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	if mt == "text/event-stream" && res.StatusCode == http.StatusOK {
		if dog != nil {
			res.Body = &watchedBody{ReadCloser: res.Body, dog: dog}
		}
		res.Body = &cappedBody{ReadCloser: res.Body, left: maxResponseBody}
		return res, nil
	}
	body, err := io.ReadAll(io.LimitReader(&watchedBody{ReadCloser: res.Body, dog: dog}, maxResponseBody+1))
	res.Body.Close()
	dog.stop()
	if err != nil {
		var stalled *StalledError
		if errors.As(err, &stalled) {
			return nil, err
		}
		return nil, &bodyError{status: res.StatusCode, err: err}
	}
	if len(body) > maxResponseBody {
		return nil, ErrResponseTooLarge
	}
	if res.StatusCode == http.StatusOK && streamed(req.Context()) && !looksLikeEvents(body) {
		// The SDKs read any body as events and skip the lines that are
		// not: a proxy's login page, or a whole answer from a server that
		// does not stream, came out as "the stream ended without a choice".
		return nil, &notStreamError{mediaType: mt, text: textOf(body)}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return res, nil
}

// StalledError is an attempt given up because its server sent nothing
// for the idle time.
type StalledError struct {
	Idle time.Duration
	// Begun is set when the response had begun: its headers had come.
	Begun bool
}

func (e *StalledError) Error() string {
	if e.Begun {
		return fmt.Sprintf("the server stopped sending its response: nothing for %s (--idle-timeout)", e.Idle)
	}
	return fmt.Sprintf("the server sent no response for %s (--idle-timeout)", e.Idle)
}

// watchdog gives up on an attempt, by cancelling its context, once its
// server has sent nothing for the idle time while agentloop waited: from
// the request to the response's headers, then within each read of the
// body. A nil watchdog watches nothing.
type watchdog struct {
	idle   time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	timer  *time.Timer
	begun  atomic.Bool
}

// watch gives req a watchdog of idle (none when idle is 0).
func watch(req *http.Request, idle time.Duration) (*http.Request, *watchdog) {
	if idle <= 0 {
		return req, nil
	}
	ctx, cancel := context.WithCancelCause(req.Context())
	d := &watchdog{idle: idle, ctx: ctx, cancel: cancel}
	d.timer = time.AfterFunc(idle, func() { cancel(&StalledError{Idle: idle, Begun: d.begun.Load()}) })
	return req.WithContext(ctx), d
}

// begin notes that the response has begun (its headers came), and stops
// the clock until its body is read.
func (d *watchdog) begin() {
	if d == nil {
		return
	}
	d.begun.Store(true)
	d.timer.Stop()
}

// wait starts the clock: agentloop waits for the server to send.
func (d *watchdog) wait() {
	if d != nil {
		d.timer.Reset(d.idle)
	}
}

// pause stops the clock: what the server sent is agentloop's to use, for
// as long as that takes (a reader held up on this side is not a server
// that stopped).
func (d *watchdog) pause() {
	if d != nil {
		d.timer.Stop()
	}
}

// stop ends the watch, and the attempt's context with it.
func (d *watchdog) stop() {
	if d == nil {
		return
	}
	d.timer.Stop()
	d.cancel(nil)
}

// why is err, or the StalledError that caused it.
func (d *watchdog) why(err error) error {
	if d == nil {
		return err
	}
	var stalled *StalledError
	if errors.As(context.Cause(d.ctx), &stalled) {
		return stalled
	}
	return err
}

// watchedBody is a response body whose reads its watchdog times: the
// clock runs while a read waits for the server, and only then.
type watchedBody struct {
	io.ReadCloser
	dog *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.dog.wait()
	n, err := b.ReadCloser.Read(p)
	b.dog.pause()
	if err != nil && err != io.EOF {
		err = b.dog.why(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.dog.stop()
	return err
}

// ErrResponseTooLarge is a response, whole or streamed, that went past
// maxResponseBody.
var ErrResponseTooLarge = fmt.Errorf("the response is larger than %d MiB", maxResponseBody>>20)

var errStreamTooLarge = fmt.Errorf("%w: the server streamed that much of one answer and did not end it", ErrResponseTooLarge)

// cappedBody is a streamed body read up to a bound: past it, the stream
// ends with ErrResponseTooLarge, and not a byte more is read.
type cappedBody struct {
	io.ReadCloser
	left int64 // bytes that may still be read
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		// At the bound: a byte more means the stream goes on past it.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, errStreamTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// notStreamError is a 200 answer to a streamed request that is not an
// event stream.
type notStreamError struct{ mediaType, text string }

func (e *notStreamError) Error() string {
	mt := e.mediaType
	if mt == "" {
		mt = "no content type"
	}
	msg := fmt.Sprintf("the server answered a streamed request with %s, not an event stream", mt)
	if e.text != "" {
		msg += ": " + e.text
	}
	if mt == "application/json" {
		msg += " (a server that does not stream: try --no-stream)"
	}
	return msg
}

// looksLikeEvents reports whether a body mislabelled by its server (or a
// proxy) is server-sent events all the same: its first line is a field of
// an event or a comment. Such a body is read as the stream it is.
func looksLikeEvents(body []byte) bool {
	line, _, _ := bytes.Cut(bytes.TrimLeft(body, "\ufeff \t\r\n"), []byte("\n"))
	for _, field := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(line, []byte(field)) {
			return true
		}
	}
	return false
}

type streamedKey struct{}

// WithStreamed marks a request's context as that of a streamed request.
func WithStreamed(ctx context.Context) context.Context {
	return context.WithValue(ctx, streamedKey{}, true)
}

func streamed(ctx context.Context) bool { return ctx.Value(streamedKey{}) != nil }

// verdict tells the limiter how the attempt went and decides whether to
// retry it, and after how long.
func (t *faultTransport) verdict(req *http.Request, res *http.Response, err error, attempt int) (time.Duration, bool) {
	if err != nil {
		var ns *notStreamError
		// A server that does not speak TLS answers every attempt alike.
		var plain tls.RecordHeaderError
		retry := !errors.Is(err, ErrResponseTooLarge) && !errors.As(err, &ns) && !errors.As(err, &plain) && replayable(req) && attempt < t.retries
		return Backoff(attempt), retry
	}
	wait, asked := retryAfter(res.Header)
	if !asked || wait < 0 {
		wait = Backoff(attempt)
	}
	switch res.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable, 529: // 529: Anthropic's "overloaded"
		if wait <= MaxRetryWait {
			t.lim.Throttled(wait)
		} else {
			t.lim.Throttled(MaxRetryWait)
		}
	default:
		if res.StatusCode < 400 {
			t.lim.Succeeded()
		}
	}
	if res.StatusCode < 400 || attempt >= t.retries || !replayable(req) || wait > MaxRetryWait {
		return 0, false
	}
	switch res.Header.Get("X-Should-Retry") {
	case "true":
		return wait, true
	case "false":
		return 0, false
	}
	s := res.StatusCode
	return wait, s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// replayable reports whether the request's body can be sent again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// backoff is the wait before retry attempt+1 when the server named none.
func Backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt < 5 {
		d = min(backoffBase<<attempt, backoffMax)
	}
	return d - rand.N(d/4)
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
	} else if errors.Is(err, strconv.ErrRange) && s > 0 {
		// Too large for a float: as long a wait as there is.
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
