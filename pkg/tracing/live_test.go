package tracing

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
)

// collector is an OTLP/HTTP receiver; received returns the spans it has
// been sent.
func collector(t *testing.T) (url string, received func() []*tracepb.Span) {
	t.Helper()
	var (
		mu    sync.Mutex
		spans []*tracepb.Span
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := new(coltracepb.ExportTraceServiceRequest)
		if err := proto.Unmarshal(body, req); err != nil {
			t.Error(err)
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []*tracepb.Span {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(spans)
	}
}

// newLive is a Live that exports to the collector at url.
func newLive(t *testing.T, url string) *Live {
	t.Helper()
	c, err := NewClient(context.Background(), otlptracehttp.WithEndpointURL(url+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	return NewLive(c, nil, &resourcepb.Resource{}, "test")
}

// Lines fed to a Live as a writer writes them reach the receiver as the
// spans Read makes of the file; a run left without its end record is
// ended at Close.
func TestLiveSendsWhatReadMakes(t *testing.T) {
	url, received := collector(t)
	l := newLive(t, url)
	var want []string
	for _, file := range []string{"openai.jsonl", "anthropic.jsonl"} {
		data, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		if file == "anthropic.jsonl" {
			// Killed before its end record.
			data = data[:bytes.LastIndex(data[:len(data)-1], []byte("\n"))+1]
		}
		observe := l.Observer(Options{})
		for line := range bytes.Lines(data) {
			observe(line)
		}
		spans, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range spans {
			want = append(want, string(s.SpanID[:])+s.Name)
		}
	}
	if err := l.Close(FlushTimeout); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range received() {
		got = append(got, string(s.SpanId)+s.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("received %d spans, Read made %d, or not the same", len(got), len(want))
	}
}

// A collector that is not there is Close's error, not a hang.
func TestLiveCollectorDown(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	l := newLive(t, url)
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	observe := l.Observer(Options{})
	for line := range bytes.Lines(data) {
		observe(line)
	}
	if err := l.Close(FlushTimeout); err == nil {
		t.Error("Close: no error with no collector")
	}
}

// stubProvider answers with whatever its request to url gets, through the
// retry layer, as a provider does.
type stubProvider struct {
	agent.Provider
	url string
}

func (p stubProvider) Complete(ctx context.Context, _ *agent.Request) (*agent.Turn, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, p.url, strings.NewReader("{}"))
	res, err := httpretry.Wrap(nil, nil, 2, 0).Do(req)
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	return &agent.Turn{}, nil
}

// A retry of a run's model request, told through the request's context
// by the retry layer, is an event of the chat span of the step the
// request got, with its status and wait; the other steps have none.
func TestLiveRetryEvents(t *testing.T) {
	url, received := collector(t)
	var n atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After-Ms", "30")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}
	}))
	defer api.Close()
	l := newLive(t, url)
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	run := l.Run(Options{})
	p := run.Provider(stubProvider{url: api.URL})
	for line := range bytes.Lines(data) {
		if bytes.Contains(line, []byte(`"seq":5,`)) {
			// The request of step 2 is under way.
			if _, err := p.Complete(context.Background(), &agent.Request{}); err != nil {
				t.Fatal(err)
			}
		}
		run.Observe(line)
	}
	if err := l.Close(FlushTimeout); err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, s := range received() {
		for _, e := range s.Events {
			attrs := map[string]string{}
			for _, kv := range e.Attributes {
				attrs[kv.Key] = anyText(kv.Value)
			}
			events = append(events, fmt.Sprintf("%s %s %v", s.Name, e.Name, attrs))
			if step := attrOf(s, "agentloop.step"); step != "2" {
				t.Errorf("event on %s of step %s, want step 2's chat span", s.Name, step)
			}
		}
	}
	want := []string{"chat gpt-4o-mini agentloop.request.retry map[agentloop.retry.wait_ms:30 error.type:429 http.request.resend_count:1 http.response.status_code:429]"}
	if !slices.Equal(events, want) {
		t.Errorf("events %q, want %q", events, want)
	}
}

func attrOf(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return anyText(kv.Value)
		}
	}
	return ""
}

func anyText(v *commonpb.AnyValue) string {
	if x, ok := v.Value.(*commonpb.AnyValue_IntValue); ok {
		return fmt.Sprint(x.IntValue)
	}
	return v.GetStringValue()
}
