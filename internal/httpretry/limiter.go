package httpretry

import (
	"context"
	"sync"
	"time"
)

// Limiter paces the model requests of one provider, or of many that share
// it (the runs of a batch), and holds them all back when the server says it
// is overloaded.
//
// Until the first throttled response (429, 503 or 529) requests go out as
// they come. A throttled response does two things for every request that
// shares the limiter, not only the one that got it:
//
//   - it pauses them all for the wait the server asked for (Retry-After),
//     or for the retry's backoff when it named none;
//   - it paces them from then on at half the rate they were going at when
//     it came, spread evenly, so that the end of the pause is not a burst
//     that trips the limit again. Each answer that is not throttled raises
//     the rate a little (by about one request a second every second), so
//     the pace finds the server's limit and stays under it: the additive
//     increase and multiplicative decrease that TCP uses for the same
//     problem.
//
// A Limiter is safe for concurrent use. The zero value is not; use
// NewLimiter.
type Limiter struct {
	mu  sync.Mutex
	now func() time.Time

	pausedUntil time.Time
	// rate is the pace in requests a second; 0 is no pacing.
	rate float64
	// next is the earliest start of the next paced request.
	next time.Time
	// lastCut is when the rate was last halved: the throttled answers of
	// requests sent before it are one event, not one each.
	lastCut time.Time
	// starts are the recent start times, a ring, to measure the rate.
	starts [256]time.Time
	n      int

	throttled int
	waited    time.Duration
}

// Pacing bounds.
const (
	// minRate is the slowest pace: one request every ten seconds. A server
	// that wants fewer says so with Retry-After.
	minRate = 0.1
	// rateWindow is how far back the starts count when the rate is
	// measured.
	rateWindow = 5 * time.Second
)

// NewLimiter returns a limiter that lets requests go until told otherwise.
func NewLimiter() *Limiter { return &Limiter{now: time.Now} }

// LimiterStatus is what a progress display shows of a limiter.
type LimiterStatus struct {
	// PausedUntil is the end of the pause a throttled answer asked for,
	// zero or past when there is none.
	PausedUntil time.Time
	// Rate is the pace in requests a second, 0 when not paced.
	Rate float64
	// Throttled counts the throttled answers seen.
	Throttled int
	// Waited is the time requests spent held back, summed over requests.
	Waited time.Duration
}

// Status reports the limiter's state.
func (l *Limiter) Status() LimiterStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return LimiterStatus{PausedUntil: l.pausedUntil, Rate: l.rate, Throttled: l.throttled, Waited: l.waited}
}

// Wait blocks until a request may be sent, or the context ends.
func (l *Limiter) Wait(ctx context.Context) error {
	for {
		if d := l.reserve().Sub(l.now()); d > 0 {
			if err := Sleep(ctx, d); err != nil {
				return err
			}
		}
		// A throttled answer that came while this request waited holds it
		// too: it goes back in line behind the pause.
		if !l.paused() {
			return nil
		}
	}
}

// reserve takes the next slot and returns its start: now, or the end of
// the pause, or the paced slot after the last one taken.
func (l *Limiter) reserve() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	start := now
	if l.pausedUntil.After(start) {
		start = l.pausedUntil
	}
	if l.rate > 0 {
		if l.next.After(start) {
			start = l.next
		}
		l.next = start.Add(l.interval())
	}
	l.waited += start.Sub(now)
	l.record(start)
	return start
}

// paused reports whether a pause holds requests now.
func (l *Limiter) paused() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pausedUntil.After(l.now())
}

func (l *Limiter) interval() time.Duration {
	return time.Duration(float64(time.Second) / l.rate)
}

// record notes a request start.
func (l *Limiter) record(t time.Time) {
	l.starts[l.n%len(l.starts)] = t
	l.n++
}

// measured is the rate of the recent starts, in requests a second; 0 when
// there are too few to tell.
func (l *Limiter) measured(now time.Time) float64 {
	count := min(l.n, len(l.starts))
	var oldest time.Time
	seen := 0
	for i := range count {
		t := l.starts[(l.n-1-i)%len(l.starts)]
		if now.Sub(t) > rateWindow {
			break
		}
		oldest = t
		seen++
	}
	if seen < 2 {
		return 0
	}
	// Over a second at least, unless the ring holds less than a second of
	// starts: a burst is not a rate.
	span := now.Sub(oldest)
	if seen < len(l.starts) {
		span = max(span, time.Second)
	}
	return float64(seen) / max(span, 10*time.Millisecond).Seconds()
}

// Throttled records a throttled answer (429, 503, 529): every request
// waits wait from now, and the pace is halved, once per pause.
func (l *Limiter) Throttled(wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.throttled++
	if until := now.Add(wait); until.After(l.pausedUntil) {
		l.pausedUntil = until
	}
	// The answers to requests already in flight when the first came are
	// the same overload; they do not halve the rate again.
	if !l.lastCut.IsZero() && now.Sub(l.lastCut) < max(wait, time.Second) {
		return
	}
	l.lastCut = now
	rate := l.measured(now)
	if l.rate > 0 && (rate == 0 || l.rate < rate) {
		rate = l.rate
	}
	l.rate = max(rate/2, minRate)
	if l.pausedUntil.After(l.next) {
		l.next = l.pausedUntil
	}
}

// Succeeded records an answer that was not throttled: a paced rate rises
// by about one request a second every second, and by at most a quarter at
// a time when it is slow.
func (l *Limiter) Succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rate > 0 {
		l.rate += min(1/l.rate, l.rate/4)
	}
}

// sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
