package tracing

import (
	"context"
	"slices"
	"sync"
	"time"

	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// FlushTimeout is the longest a run waits at its end for its last spans to
// be sent: a collector that is down or slow costs no more.
const FlushTimeout = 2 * time.Second

// Live traces runs as their transcripts are written: it is told of each
// line (Observer), builds the spans from it as an export of the file would,
// and sends each batch of finished spans in the background, so a run never
// waits for the collector but at Close. The runs of a batch share one.
type Live struct {
	client  *Client
	res     *resourcepb.Resource
	version string
	ctx     context.Context
	cancel  context.CancelFunc

	mu     sync.Mutex
	runs   []*Builder // the runs whose end record has not come yet
	items  []Span     // the spans of batch items' runs, for BatchSpans
	queue  []Span
	closed bool
	err    error
	wake   chan struct{}
	done   chan struct{}
}

// NewLive sends spans with client; they carry res and version as their
// resource and scope version.
func NewLive(client *Client, res *resourcepb.Resource, version string) *Live {
	l := &Live{client: client, res: res, version: version, wake: make(chan struct{}, 1), done: make(chan struct{})}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	go l.send()
	return l
}

// Observer is what transcript.Writer.Observe takes: it builds the spans
// of the run of one transcript from each line written.
func (l *Live) Observer(opts Options) func(line []byte) {
	opts.OnSpan = l.push
	b := NewBuilder(opts)
	l.mu.Lock()
	l.runs = append(l.runs, b)
	l.mu.Unlock()
	return func(line []byte) {
		rec, err := transcript.ParseRecord(line)
		if err != nil {
			return
		}
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
}

// push queues a finished span; l.mu is held.
func (l *Live) push(s Span) {
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
// killed), sends what is left and waits for it at most timeout. It
// returns the first error of a send, if any: the spans it held are lost,
// the run is not.
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
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-l.done:
	case <-t.C:
		l.cancel()
		<-l.done
	}
	l.cancel()
	stop, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = l.client.Stop(stop)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
