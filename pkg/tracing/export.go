package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Read turns a saved transcript into the spans its run had. A line that is
// not a record is an error naming it; a transcript without an end record
// (a run killed, or still going) gives what it holds.
func Read(r io.Reader, opts Options) ([]Span, error) {
	var spans []Span
	next := opts.OnSpan
	opts.OnSpan = func(s Span) {
		spans = append(spans, s)
		if next != nil {
			next(s)
		}
	}
	b := NewBuilder(opts)
	tr := transcript.NewReader(r)
	for {
		rec, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var le *transcript.LineError
			if errors.As(err, &le) && le.Torn {
				// The writer was killed mid-line: the records before it are
				// the run as far as it got.
				break
			}
			return nil, err
		}
		if rec.Line == 1 && rec.Header == nil {
			return nil, errors.New("line 1: not an agentloop transcript (no header record)")
		}
		b.Add(rec)
	}
	if b.h == nil {
		return nil, errors.New("empty: no header record")
	}
	b.Finish()
	return spans, nil
}

// Client sends spans to an OTLP/HTTP endpoint.
type Client struct {
	c otlptrace.Client
}

// NewClient is a client for the endpoint, headers, timeout and TLS
// settings the OTEL_EXPORTER_OTLP_* variables give (their defaults
// otherwise: http://localhost:4318/v1/traces), with opts on top. It does
// not retry: a run waits for no collector.
func NewClient(ctx context.Context, opts ...otlptracehttp.Option) (*Client, error) {
	opts = append([]otlptracehttp.Option{otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false})}, opts...)
	c := otlptracehttp.NewClient(opts...)
	if err := c.Start(ctx); err != nil {
		return nil, fmt.Errorf("start OTLP client: %w", err)
	}
	return &Client{c: c}, nil
}

// Upload sends one resource's spans.
func (c *Client) Upload(ctx context.Context, rs *tracepb.ResourceSpans) error {
	return c.c.UploadTraces(ctx, []*tracepb.ResourceSpans{rs})
}

// Stop closes the client's connections.
func (c *Client) Stop(ctx context.Context) error { return c.c.Stop(ctx) }
