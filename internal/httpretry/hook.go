package httpretry

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// Retry is an attempt that failed and is tried again, as the transport
// reports it before it waits.
type Retry struct {
	// Attempt is the retry's number: 1 for the first.
	Attempt int
	// Status is the failed attempt's HTTP status; 0 when no response came
	// (Err says why).
	Status int
	Err    error
	// Wait is how long the transport waits before the retry.
	Wait time.Duration
	// Time is when the attempt failed.
	Time time.Time
}

// Kind is a short name of why the attempt failed, the same for every
// failure of its sort: the status ("429", "503"), or "stalled" (nothing
// came for the idle time), "connect" (no connection was made), "body" (the
// connection broke in the response), "_OTHER".
func (r Retry) Kind() string {
	if r.Status != 0 {
		return strconv.Itoa(r.Status)
	}
	var stalled *StalledError
	var body *bodyError
	switch {
	case errors.As(r.Err, &stalled):
		return "stalled"
	case errors.As(r.Err, &body):
		return "body"
	}
	if why, _ := ConnectFailure(r.Err); why != nil {
		return "connect"
	}
	return "_OTHER"
}

type retryHookKey struct{}

// WithRetryHook has the transport tell fn of each retry of a request made
// with the context ctx gives, before it waits: whoever made the request
// learns what it cost without the transport knowing who that is. fn is
// called on the request's goroutine and must not block.
func WithRetryHook(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryHookKey{}, fn)
}

// reportRetry tells the context's hook, if any, of a retry.
func reportRetry(ctx context.Context, r Retry) {
	if fn, ok := ctx.Value(retryHookKey{}).(func(Retry)); ok && fn != nil {
		fn(r)
	}
}
