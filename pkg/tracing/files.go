package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Exporter exports saved runs' spans: sent to Client, written to Out as
// OTLP JSON, one line a run, as the OpenTelemetry Collector's file
// exporter writes them; either may be nil.
type Exporter struct {
	Client *Client
	Out    io.Writer
	// OutName names Out in the error of a write to it (--otlp-file).
	OutName  string
	Resource *resourcepb.Resource
	Version  string
	// Timeout bounds the sending of one run's spans.
	Timeout time.Duration
	// Content puts the tools' arguments and results in the spans.
	Content bool
	// Metrics, when set, is sent the metrics of each run's model calls
	// once its spans are exported; MetricsSent is told how many calls
	// they counted.
	Metrics     *MetricClient
	MetricsSent func(path string, calls int)
}

// ExportFiles exports the spans of each transcript at paths (and sends
// their metrics), then the span of each batch they are items of, made of
// its items' spans. report is told of each: its path ("" for the
// batches), its spans, or why they were not exported; and of the error
// of metrics not sent after their spans. It reports whether all went.
func (e *Exporter) ExportFiles(ctx context.Context, paths []string, report func(path string, spans []Span, err error)) bool {
	ok := true
	var all []Span
	for _, path := range paths {
		spans, err := e.readFile(path)
		if err == nil {
			all = append(all, spans...)
			err = e.Export(ctx, spans)
		}
		report(path, spans, err)
		if err == nil && e.Metrics != nil {
			err = e.sendMetrics(ctx, path, spans)
			if err != nil {
				report(path, spans, err)
			}
		}
		ok = ok && err == nil
	}
	if batches := BatchSpans(all); len(batches) > 0 {
		err := e.Export(ctx, batches)
		report("", batches, err)
		ok = ok && err == nil
	}
	return ok
}

func (e *Exporter) readFile(path string) ([]Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, Options{Content: e.Content})
}

// Export sends and writes spans, a run's or a batch's.
func (e *Exporter) Export(ctx context.Context, spans []Span) error {
	rs := Encode(e.Resource, e.Version, spans)
	if e.Out != nil {
		line, err := MarshalJSON(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{rs}})
		if err != nil {
			return err
		}
		if _, err := e.Out.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("%s: %w", e.OutName, err)
		}
	}
	if e.Client != nil {
		uctx, cancel := context.WithTimeout(ctx, e.Timeout)
		defer cancel()
		if err := e.Client.Upload(uctx, rs); err != nil {
			return redacted(err)
		}
	}
	return nil
}

func (e *Exporter) sendMetrics(ctx context.Context, path string, spans []Span) error {
	uctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	calls, err := e.Metrics.Send(uctx, spans)
	if err != nil {
		return redacted(err)
	}
	if e.MetricsSent != nil {
		e.MetricsSent(path, calls)
	}
	return nil
}

// redacted is err without a key an endpoint's address may hold.
func redacted(err error) error {
	if msg := transcript.NewRedactor().RedactString(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}
