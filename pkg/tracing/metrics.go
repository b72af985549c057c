package tracing

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"
)

// instruments are the GenAI client metrics, recorded from the chat spans
// of runs: one measure of each token type and one duration a model call.
type instruments struct {
	tokens   genaiconv.ClientTokenUsage
	duration genaiconv.ClientOperationDuration
}

func newInstruments(mp *sdkmetric.MeterProvider, version string) (instruments, error) {
	m := mp.Meter(scopeName, metric.WithInstrumentationVersion(version), metric.WithSchemaURL(SchemaURL))
	tokens, err := newTokenUsage(m, metric.WithExplicitBucketBoundaries(tokenBuckets...))
	if err != nil {
		return instruments{}, err
	}
	duration, err := newOperationDuration(m, metric.WithExplicitBucketBoundaries(durationBuckets...))
	if err != nil {
		return instruments{}, err
	}
	return instruments{tokens: tokens, duration: duration}, nil
}

// metricAttrs are the attributes of a chat span the metrics take: those
// that say which model of which provider, at which server, answered.
var metricAttrs = []attribute.Key{keyOperation, keyProvider, keyRequestModel, keyResponseModel, keyServerAddress, keyServerPort}

// record measures the model call of a chat span: its duration (with
// error.type when it failed) and, when the API counted them, its input and
// output tokens. Other spans measure nothing; it reports whether s was
// measured.
func (in instruments) record(ctx context.Context, s Span) bool {
	set := attribute.NewSet(s.Attrs...)
	if op, _ := set.Value(keyOperation); op.AsString() != opChat {
		return false
	}
	attrs := make([]attribute.KeyValue, 0, len(metricAttrs)+1)
	for _, k := range metricAttrs {
		if v, ok := set.Value(k); ok {
			attrs = append(attrs, attribute.KeyValue{Key: k, Value: v})
		}
	}
	dur := attrs
	if v, ok := set.Value(keyErrorType); ok && s.Status == codes.Error {
		dur = append(attrs[:len(attrs):len(attrs)], attribute.KeyValue{Key: keyErrorType, Value: v})
	}
	in.duration.RecordSet(ctx, s.End.Sub(s.Start).Seconds(), attribute.NewSet(dur...))
	for _, t := range []struct {
		key attribute.Key
		typ attribute.KeyValue
	}{{keyInputTokens, tokenInput}, {keyOutputTokens, tokenOutput}} {
		if v, ok := set.Value(t.key); ok {
			in.tokens.RecordSet(ctx, v.AsInt64(), attribute.NewSet(append(attrs[:len(attrs):len(attrs)], t.typ)...))
		}
	}
	return true
}

// Metrics records the metrics of the model calls of live runs with the
// OpenTelemetry SDK, which exports them with its OTLP/HTTP exporter: every
// OTEL_METRIC_EXPORT_INTERVAL (default 60 s) while the runs go, and at
// Close.
type Metrics struct {
	mp  *sdkmetric.MeterProvider
	in  instruments
	mu  sync.Mutex
	err error // the first error of a periodic export
}

// NewMetrics sends metrics with an exporter for the endpoint, headers,
// timeout and TLS settings the OTEL_EXPORTER_OTLP_(METRICS_)* variables
// give (default http://localhost:4318/v1/metrics), without retries: a run
// waits for no collector. res and version are their resource and scope
// version.
func NewMetrics(ctx context.Context, res *resource.Resource, version string) (*Metrics, error) {
	exp, err := newMetricExporter(ctx)
	if err != nil {
		return nil, err
	}
	m := &Metrics{}
	// The SDK reports the failures of its periodic exports to the global
	// handler, which would print each on stderr: they are kept, and said
	// once at Close.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(m.noteErr))
	m.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
	if m.in, err = newInstruments(m.mp, version); err != nil {
		_ = m.mp.Shutdown(ctx)
		return nil, err
	}
	return m, nil
}

func newMetricExporter(ctx context.Context) (*otlpmetrichttp.Exporter, error) {
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, fmt.Errorf("start OTLP metric exporter: %w", err)
	}
	return exp, nil
}

func (m *Metrics) noteErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// Record measures the model call of a chat span; other spans measure
// nothing.
func (m *Metrics) Record(s Span) { m.in.record(context.Background(), s) }

// Close exports what was recorded since the last export, waiting until
// ctx ends at most, and stops. It returns the first error of an export.
func (m *Metrics) Close(ctx context.Context) error {
	err := m.mp.Shutdown(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	return err
}

// MetricClient sends the metrics of saved runs.
type MetricClient struct {
	exp     *otlpmetrichttp.Exporter
	res     *resource.Resource
	version string
}

// NewMetricClient is a client for the endpoint the
// OTEL_EXPORTER_OTLP_(METRICS_)* variables name, as NewMetrics's, whose
// metrics carry the resource Resource gives and the scope version.
func NewMetricClient(ctx context.Context, version string) (*MetricClient, error) {
	res, _ := sdkResource(ctx, version) // its problems are Resource's to say
	exp, err := newMetricExporter(ctx)
	if err != nil {
		return nil, err
	}
	return &MetricClient{exp: exp, res: res, version: version}, nil
}

// RunMetrics are the metrics of the model calls among the spans of one
// run, as one delta over the run's recorded time: from its first span's
// start to its last span's end, and the number of model calls measured.
// It returns nil when the run made no model call.
func RunMetrics(ctx context.Context, res *resource.Resource, version string, spans []Span) (*metricdata.ResourceMetrics, int, error) {
	reader := sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(func(sdkmetric.InstrumentKind) metricdata.Temporality {
		return metricdata.DeltaTemporality
	}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(reader))
	defer mp.Shutdown(ctx)
	in, err := newInstruments(mp, version)
	if err != nil {
		return nil, 0, err
	}
	var start, end time.Time
	calls := 0
	for _, s := range spans {
		if in.record(ctx, s) {
			calls++
		}
		if start.IsZero() || s.Start.Before(start) {
			start = s.Start
		}
		if s.End.After(end) {
			end = s.End
		}
	}
	rm := new(metricdata.ResourceMetrics)
	if err := reader.Collect(ctx, rm); err != nil {
		return nil, 0, err
	}
	if calls == 0 {
		return nil, 0, nil
	}
	for i := range rm.ScopeMetrics {
		for j := range rm.ScopeMetrics[i].Metrics {
			recordedTimes(&rm.ScopeMetrics[i].Metrics[j], start, end)
		}
	}
	return rm, calls, nil
}

// recordedTimes gives the points of a metric the run's times in place of
// the time they were collected at.
func recordedTimes(m *metricdata.Metrics, start, end time.Time) {
	switch d := m.Data.(type) {
	case metricdata.Histogram[int64]:
		for i := range d.DataPoints {
			d.DataPoints[i].StartTime, d.DataPoints[i].Time = start, end
		}
	case metricdata.Histogram[float64]:
		for i := range d.DataPoints {
			d.DataPoints[i].StartTime, d.DataPoints[i].Time = start, end
		}
	}
}

// Send sends the metrics of one run's spans (see RunMetrics) and says of
// how many model calls; a run without a model call sends nothing.
func (c *MetricClient) Send(ctx context.Context, spans []Span) (int, error) {
	rm, calls, err := RunMetrics(ctx, c.res, c.version, spans)
	if err != nil || rm == nil {
		return 0, err
	}
	if err := c.exp.Export(ctx, rm); err != nil {
		return 0, err
	}
	return calls, nil
}

// Stop closes the client's connections.
func (c *MetricClient) Stop(ctx context.Context) error { return c.exp.Shutdown(ctx) }
