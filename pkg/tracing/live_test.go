package tracing

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"
)

// Lines fed to a Live as a writer writes them reach the receiver as the
// spans Read makes of the file; a run left without its end record is
// ended at Close.
func TestLiveSendsWhatReadMakes(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
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
				for _, s := range ss.Spans {
					got = append(got, string(s.SpanId)+s.Name)
				}
			}
		}
		mu.Unlock()
	}))
	defer srv.Close()
	c, err := NewClient(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(c, nil, &resourcepb.Resource{}, "test")
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
	c, err := NewClient(context.Background(), otlptracehttp.WithEndpointURL(url+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	l := NewLive(c, nil, &resourcepb.Resource{}, "test")
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
