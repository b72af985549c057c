package tracing

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// want is what a transcript's model calls should measure: the calls
// with usage, their tokens and latencies as recorded.
type want struct {
	calls, failed int
	input, output int64
	seconds       float64
	start, end    time.Time
	// responseModel: the transcript records the model that answered.
	responseModel bool
}

func wantOf(t *testing.T, data []byte) want {
	t.Helper()
	var w want
	r := transcript.NewReader(bytes.NewReader(data))
	var provider string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Header != nil:
			provider, w.start = rec.Header.Provider, rec.Header.Time
		case rec.Message != nil && rec.Message.Usage != nil:
			in, _ := transcript.RequestTokens(provider, *rec.Message.Usage)
			w.calls++
			w.input += in
			w.output += rec.Message.Usage.OutputTokens
			w.seconds += float64(rec.Message.LatencyMS) / 1000
			w.responseModel = w.responseModel || rec.Message.ResponseModel != ""
		case rec.End != nil:
			w.end = rec.End.Time
			if rec.End.Reason == wire.ReasonError {
				w.failed++
			}
		}
	}
	return w
}

// The metrics of a saved run are its model calls': a token measure of
// each type and a duration each, with the attributes of the conventions,
// as one delta over the run's recorded time; the failed call of a run that
// ended with an error has a duration with error.type and no tokens.
func TestRunMetrics(t *testing.T) {
	for _, file := range []string{"openai.jsonl", "anthropic.jsonl", "responses.jsonl", "error.jsonl"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/" + file)
			if err != nil {
				t.Fatal(err)
			}
			w := wantOf(t, data)
			spans, err := Read(bytes.NewReader(data), Options{})
			if err != nil {
				t.Fatal(err)
			}
			rm, calls, err := RunMetrics(context.Background(), resource.Empty(), "test", spans)
			if err != nil {
				t.Fatal(err)
			}
			if calls != w.calls+w.failed || len(rm.ScopeMetrics) != 1 {
				t.Fatalf("%d calls, %d scopes; want %d calls, one scope", calls, len(rm.ScopeMetrics), w.calls+w.failed)
			}
			sm := rm.ScopeMetrics[0]
			if sm.Scope.Name != scopeName || sm.Scope.SchemaURL != SchemaURL || sm.Scope.Version != "test" {
				t.Errorf("scope %+v", sm.Scope)
			}
			seen := map[string]bool{}
			for _, m := range sm.Metrics {
				seen[m.Name] = true
				switch m.Name {
				case "gen_ai.client.token.usage":
					checkTokens(t, m, w)
				case "gen_ai.client.operation.duration":
					checkDurations(t, m, w)
				default:
					t.Errorf("metric %s", m.Name)
				}
			}
			if !seen["gen_ai.client.token.usage"] || !seen["gen_ai.client.operation.duration"] {
				t.Errorf("metrics %v", seen)
			}
		})
	}
}

func checkTokens(t *testing.T, m metricdata.Metrics, w want) {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[int64])
	if !ok || m.Unit != "{token}" || h.Temporality != metricdata.DeltaTemporality {
		t.Fatalf("token usage: %T, unit %q, %v", m.Data, m.Unit, h.Temporality)
	}
	got := map[string][2]int64{}
	for _, p := range h.DataPoints {
		typ, _ := p.Attributes.Value(keyTokenType)
		checkPoint(t, p.Attributes, p.StartTime, p.Time, p.Bounds, tokenBuckets, w, false)
		c := got[typ.AsString()]
		got[typ.AsString()] = [2]int64{c[0] + int64(p.Count), c[1] + p.Sum}
	}
	if got["input"] != [2]int64{int64(w.calls), w.input} || got["output"] != [2]int64{int64(w.calls), w.output} || len(got) != 2 {
		t.Errorf("tokens (count, sum) by type %v; want input %d %d, output %d %d", got, w.calls, w.input, w.calls, w.output)
	}
}

func checkDurations(t *testing.T, m metricdata.Metrics, w want) {
	t.Helper()
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok || m.Unit != "s" || h.Temporality != metricdata.DeltaTemporality {
		t.Fatalf("duration: %T, unit %q, %v", m.Data, m.Unit, h.Temporality)
	}
	var ok1, failed uint64
	var sum float64
	for _, p := range h.DataPoints {
		failedPoint := p.Attributes.HasValue(keyErrorType)
		checkPoint(t, p.Attributes, p.StartTime, p.Time, p.Bounds, durationBuckets, w, failedPoint)
		if failedPoint {
			failed += p.Count
		} else {
			ok1 += p.Count
			sum += p.Sum
		}
	}
	if ok1 != uint64(w.calls) || failed != uint64(w.failed) || math.Abs(sum-w.seconds) > 1e-9 {
		t.Errorf("durations: %d ok, %d failed, %gs; want %d, %d, %gs", ok1, failed, sum, w.calls, w.failed, w.seconds)
	}
}

func checkPoint(t *testing.T, attrs attribute.Set, start, end time.Time, bounds, wantBounds []float64, w want, failed bool) {
	t.Helper()
	keys := []attribute.Key{}
	for _, kv := range attrs.ToSlice() {
		keys = append(keys, kv.Key)
	}
	want := []attribute.Key{keyOperation, keyProvider, keyRequestModel, keyServerAddress, keyServerPort}
	switch {
	case failed:
		want = append(want, keyErrorType)
	case w.responseModel:
		want = append(want, keyResponseModel)
	}
	if attrs.HasValue(keyTokenType) {
		want = append(want, keyTokenType)
	}
	slices.Sort(keys)
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("attributes %v, want %v", keys, want)
	}
	if op, _ := attrs.Value(keyOperation); op.AsString() != opChat {
		t.Errorf("gen_ai.operation.name %q", op.AsString())
	}
	if !start.Equal(w.start) || !end.Equal(w.end) {
		t.Errorf("point from %v to %v, want the run's %v to %v", start, end, w.start, w.end)
	}
	if !slices.Equal(bounds, wantBounds) {
		t.Errorf("bounds %v", bounds)
	}
}

// A run that made no model call has no metrics.
func TestRunMetricsNone(t *testing.T) {
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	spans, err := Read(bytes.NewReader(line), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rm, calls, err := RunMetrics(context.Background(), resource.Empty(), "test", spans)
	if rm != nil || calls != 0 || err != nil {
		t.Errorf("a run of no model call: %v, %d, %v", rm, calls, err)
	}
}

// What is exported, by the otel setting and the variables: a flag or
// AGENTLOOP_OTEL above the endpoint variables, the file below them,
// OTEL_SDK_DISABLED above all, and a signal's exporter none.
func TestWanted(t *testing.T) {
	flag := func(b bool) Setting { return Setting{On: b, Given: true} }
	file := func(b bool) Setting { return Setting{On: b, Given: true, FromFile: true} }
	for _, tt := range []struct {
		env  map[string]string
		s    Setting
		want Signals
	}{
		{nil, Setting{}, Signals{}},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, Setting{}, Signals{true, true}},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, Setting{}, Signals{Traces: true}},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318/v1/metrics"}, Setting{}, Signals{Metrics: true}},
		{nil, flag(true), Signals{true, true}},
		{nil, file(true), Signals{true, true}},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, flag(false), Signals{}},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, file(false), Signals{true, true}},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c"}, file(true), Signals{true, true}},
		{map[string]string{"OTEL_SDK_DISABLED": "true"}, flag(true), Signals{}},
		{map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, file(true), Signals{}},
		{map[string]string{"OTEL_SDK_DISABLED": "false"}, flag(true), Signals{true, true}},
		{map[string]string{"OTEL_METRICS_EXPORTER": "none"}, flag(true), Signals{Traces: true}},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, Setting{}, Signals{Metrics: true}},
	} {
		if got := Wanted(func(k string) string { return tt.env[k] }, tt.s); got != tt.want {
			t.Errorf("%v, %+v: %+v, want %+v", tt.env, tt.s, got, tt.want)
		}
	}
}

// Live metrics reach the endpoint the variables name at Close; a
// collector that is not there is Close's error, said once, not a hang.
func TestLiveMetrics(t *testing.T) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := new(colmetricspb.ExportMetricsServiceRequest)
		if err := proto.Unmarshal(body, req); err != nil || r.URL.Path != "/v1/metrics" {
			t.Errorf("%s: %v", r.URL.Path, err)
		}
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				got.Add(int32(len(sm.Metrics)))
			}
		}
	}))
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	send := func() error {
		m, err := NewMetrics(context.Background(), resource.Empty(), "test")
		if err != nil {
			t.Fatal(err)
		}
		l := NewLive(nil, m, nil, "test")
		observe := l.Observer(Options{})
		for line := range bytes.Lines(data) {
			observe(line)
		}
		return l.Close(FlushTimeout)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", srv.URL+"/v1/metrics")
	if err := send(); err != nil {
		t.Fatal(err)
	}
	if got.Load() != 2 {
		t.Errorf("%d metrics received, want 2", got.Load())
	}
	srv.Close()
	err = send()
	if err == nil || !strings.HasPrefix(err.Error(), "metrics not sent: ") || strings.Contains(err.Error(), "\n") {
		t.Errorf("with no collector: %v", err)
	}
}
