package tracing

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// FlushTimeout is the longest a run waits at its end for its last spans
// and metrics to be sent: a collector that is down or slow costs no more.
const FlushTimeout = 2 * time.Second

// Live traces runs as their transcripts are written: it is told of each
// line (Observer), builds the spans from it as an export of the file would,
// and sends each batch of finished spans in the background, so a run never
// waits for the collector but at Close. The model calls' metrics are
// recorded from the same spans. The runs of a batch share one.
type Live struct {
	client  *Client  // nil: no spans are sent
	metrics *Metrics // nil: no metrics are recorded
	res     *resourcepb.Resource
	version string
	ctx     context.Context
	cancel  context.CancelFunc
	// Flush is the wait for the last spans and metrics Start chose.
	Flush time.Duration

	mu     sync.Mutex
	runs   []*Builder // the runs whose end record has not come yet
	items  []Span     // the spans of batch items' runs, for BatchSpans
	queue  []Span
	closed bool
	err    error
	wake   chan struct{}
	done   chan struct{}
}

// NewLive sends spans with client, when not nil, and records the model
// calls' metrics with metrics, when not nil; the spans carry res and
// version as their resource and scope version.
func NewLive(client *Client, metrics *Metrics, res *resourcepb.Resource, version string) *Live {
	l := &Live{client: client, metrics: metrics, res: res, version: version, Flush: FlushTimeout, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	if client != nil {
		go l.send()
	} else {
		close(l.done)
	}
	return l
}

// Traces reports whether spans are sent: what a tool is given a
// TRACEPARENT for.
func (l *Live) Traces() bool { return l.client != nil }

// Run is the tracing of one run.
type Run struct {
	l *Live
	b *Builder
}

// Run starts the tracing of a run whose transcript is being written.
func (l *Live) Run(opts Options) *Run {
	opts.OnSpan = l.push
	b := NewBuilder(opts)
	l.mu.Lock()
	l.runs = append(l.runs, b)
	l.mu.Unlock()
	return &Run{l: l, b: b}
}

// Observer is what transcript.Writer.Observe takes: it builds the spans
// of the run of one transcript from each line written.
func (l *Live) Observer(opts Options) func(line []byte) { return l.Run(opts).Observe }

// Observe takes a line of the run's transcript as it is written.
func (r *Run) Observe(line []byte) {
	rec, err := transcript.ParseRecord(line)
	if err != nil {
		return
	}
	l, b := r.l, r.b
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	b.Add(rec)
	if b.finished {
		l.runs = slices.DeleteFunc(l.runs, func(x *Builder) bool { return x == b })
	}
}

// Retry notes a retry of the model request under way: an event of the
// chat span of the step that request gets.
func (r *Run) Retry(a httpretry.Retry) {
	attrs := []attribute.KeyValue{
		keyResendCount.Int(a.Attempt),
		keyErrorType.String(a.Kind()),
		keyRetryWait.Int64(a.Wait.Milliseconds()),
	}
	if a.Status != 0 {
		attrs = append(attrs, keyHTTPStatus.Int(a.Status))
	}
	r.l.mu.Lock()
	defer r.l.mu.Unlock()
	if !r.l.closed {
		r.b.retried(Event{Name: eventRetry, Time: a.Time, Attrs: attrs})
	}
}

// Provider is p, with the retries of its requests noted as the run's
// (see Retry).
func (r *Run) Provider(p agent.Provider) agent.Provider { return retriesNoted{Provider: p, run: r} }

type retriesNoted struct {
	agent.Provider
	run *Run
}

func (p retriesNoted) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	return p.Provider.Complete(httpretry.WithRetryHook(ctx, p.run.Retry), req)
}

// push records a finished span's metrics and queues it to be sent; l.mu
// is held.
func (l *Live) push(s Span) {
	if l.metrics != nil {
		l.metrics.Record(s)
	}
	if l.client == nil {
		return
	}
	if s.batch != "" {
		l.items = append(l.items, s)
	}
	l.queue = append(l.queue, s)
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Live) send() {
	defer close(l.done)
	for {
		_, open := <-l.wake
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		l.mu.Unlock()
		if len(batch) > 0 {
			if err := l.client.Upload(l.ctx, Encode(l.res, l.version, batch)); err != nil {
				l.mu.Lock()
				if l.err == nil {
					l.err = err
				}
				l.mu.Unlock()
			}
		}
		if !open {
			return
		}
	}
}

// Close ends the spans of the runs whose transcripts did not (a run
// killed), sends what is left of the spans and the metrics and waits for
// them at most timeout. It returns the first error of a send, if any: the
// spans or metrics it held are lost, the run is not.
func (l *Live) Close(timeout time.Duration) error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return l.err
	}
	for _, b := range l.runs {
		b.Finish()
	}
	for _, s := range BatchSpans(l.items) {
		l.push(s)
	}
	l.runs, l.items = nil, nil
	l.closed = true
	l.mu.Unlock()
	close(l.wake)
	deadline, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	metricsDone := make(chan error, 1)
	if l.metrics != nil {
		go func() { metricsDone <- l.metrics.Close(deadline) }()
	} else {
		metricsDone <- nil
	}
	select {
	case <-l.done:
	case <-deadline.Done():
		l.cancel()
		<-l.done
	}
	l.cancel()
	if l.client != nil {
		stop, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_ = l.client.Stop(stop)
	}
	merr := <-metricsDone
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.err != nil && merr != nil:
		l.err = fmt.Errorf("spans not sent: %w; metrics not sent: %w", l.err, merr)
	case l.err != nil:
		l.err = fmt.Errorf("spans not sent: %w", l.err)
	case merr != nil:
		l.err = fmt.Errorf("metrics not sent: %w", merr)
	}
	return l.err
}
