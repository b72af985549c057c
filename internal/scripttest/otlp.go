package scripttest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentloop/agentloop/pkg/tracing"
)

// otlpReceiver is an OTLP/HTTP receiver of traces and metrics: it decodes
// each export request with the official OTLP protobuf types, as a
// collector does, and keeps the spans and the metrics.
type otlpReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricspb.Metric
	bad     []string
}

var otlpReceivers sync.Map // *testscript.TestScript → *otlpReceiver

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var msg, reply proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		msg, reply = new(coltracepb.ExportTraceServiceRequest), &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		msg, reply = new(colmetricspb.ExportMetricsServiceRequest), &colmetricspb.ExportMetricsServiceResponse{}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case req.Method != http.MethodPost || msg == nil:
		r.bad = append(r.bad, req.Method+" "+req.URL.Path)
		http.NotFound(w, req)
		return
	case req.Header.Get("Content-Type") != "application/x-protobuf":
		r.bad = append(r.bad, "Content-Type "+req.Header.Get("Content-Type"))
	}
	if err := proto.Unmarshal(body, msg); err != nil {
		r.bad = append(r.bad, err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch msg := msg.(type) {
	case *coltracepb.ExportTraceServiceRequest:
		for _, rs := range msg.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	case *colmetricspb.ExportMetricsServiceRequest:
		for _, rm := range msg.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				if sm.Scope.GetName() != "github.com/agentloop/agentloop" || sm.SchemaUrl != tracing.SchemaURL {
					r.bad = append(r.bad, fmt.Sprintf("metrics of scope %q, schema %q", sm.Scope.GetName(), sm.SchemaUrl))
				}
				r.metrics = append(r.metrics, sm.Metrics...)
			}
		}
	}
	b, _ := proto.Marshal(reply)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// cmdOTLP drives a scenario's OTLP receiver:
//
//	otlp start                 start it; $OTLP_URL is its base URL
//	otlp tree                  print the spans received as a tree of names and attributes
//	otlp ids FILE              write the ids, parents and names of the spans received, sorted
//	otlp jsonids JSON FILE     the same of the spans of an OTLP JSON file
//	otlp traceparent FILE CALL FILE's TRACEPARENT names the execute_tool span of call CALL
//	otlp events                print the events of the spans received, with their attributes
//	otlp metrics               print the histograms received, a line a series
//	otlp reset                 forget the spans and metrics received
func cmdOTLP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: otlp start|tree|ids|jsonids|traceparent|events|metrics|reset")
	}
	if args[0] == "start" {
		r := &otlpReceiver{}
		r.srv = httptest.NewServer(r)
		otlpReceivers.Store(ts, r)
		ts.Defer(func() { r.srv.Close(); otlpReceivers.Delete(ts) })
		ts.Setenv("OTLP_URL", r.srv.URL)
		return
	}
	if args[0] == "jsonids" {
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		var spans []*tracepb.Span
		for line := range bytes.Lines(data) {
			td, err := tracing.UnmarshalJSON(line)
			ts.Check(err)
			for _, rs := range td.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					spans = append(spans, ss.Spans...)
				}
			}
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), spanIDs(spans), 0o644))
		return
	}
	v, ok := otlpReceivers.Load(ts)
	if !ok {
		ts.Fatalf("otlp: no receiver started")
	}
	r := v.(*otlpReceiver)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		ts.Fatalf("otlp: bad requests: %q", r.bad)
	}
	switch args[0] {
	case "tree":
		fmt.Fprint(ts.Stdout(), spanTree(r.spans))
	case "ids":
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), spanIDs(r.spans), 0o644))
	case "traceparent":
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		tp := strings.TrimSpace(string(data))
		sc, ok := tracing.ParseTraceParent(tp, "")
		if !ok {
			ts.Fatalf("%s: %q is not a traceparent", args[1], tp)
		}
		for _, s := range r.spans {
			if hex.EncodeToString(s.SpanId) == sc.SpanID().String() && hex.EncodeToString(s.TraceId) == sc.TraceID().String() {
				if !strings.HasPrefix(s.Name, "execute_tool ") || attrString(s, "gen_ai.tool.call.id") != args[2] {
					ts.Fatalf("%s names span %q of call %q, want the execute_tool span of %s", args[1], s.Name, attrString(s, "gen_ai.tool.call.id"), args[2])
				}
				return
			}
		}
		ts.Fatalf("%s: %s names no span received", args[1], tp)
	case "events":
		fmt.Fprint(ts.Stdout(), eventLines(r.spans))
	case "metrics":
		fmt.Fprint(ts.Stdout(), metricLines(r.metrics))
	case "reset":
		r.spans, r.metrics = nil, nil
	default:
		ts.Fatalf("otlp: unknown command %s", args[0])
	}
}

func attrString(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return anyString(kv.Value)
		}
	}
	return ""
}

func anyString(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.Values {
			parts = append(parts, anyString(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "?"
}

// spanIDs are the trace, span and parent ids and the name of each span,
// a line each, sorted.
func spanIDs(spans []*tracepb.Span) []byte {
	var lines []string
	for _, s := range spans {
		lines = append(lines, fmt.Sprintf("%x %x %x %s\n", s.TraceId, s.SpanId, s.ParentSpanId, s.Name))
	}
	slices.Sort(lines)
	return []byte(strings.Join(lines, ""))
}

// volatile are attributes whose values differ from run to run.
var volatile = map[string]bool{
	"server.port": true, "gen_ai.agent.id": true, "gen_ai.conversation.id": true, "agentloop.transcript.id": true,
	"agentloop.request.bytes": true, "gen_ai.usage.input_tokens": true, "gen_ai.usage.output_tokens": true,
	// The fake Responses API numbers its responses across the test process.
	"gen_ai.response.id": true,
}

// spanTree draws the spans as a tree, children under their parent, in
// the order of name, step, call id and end reason: a span's name, then its attributes
// but the volatile ones, its status and its events; a root's parent when it
// has one, and ! before a span whose parent was not received.
func spanTree(spans []*tracepb.Span) string {
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	children := map[string][]*tracepb.Span{}
	var roots []*tracepb.Span
	for _, s := range spans {
		p := hex.EncodeToString(s.ParentSpanId)
		if _, ok := byID[p]; ok {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	order := func(list []*tracepb.Span) {
		slices.SortFunc(list, func(a, b *tracepb.Span) int {
			ka := fmt.Sprintf("%s %06s %s %s", a.Name, attrString(a, "agentloop.step"), attrString(a, "gen_ai.tool.call.id"), attrString(a, "agentloop.end.reason"))
			kb := fmt.Sprintf("%s %06s %s %s", b.Name, attrString(b, "agentloop.step"), attrString(b, "gen_ai.tool.call.id"), attrString(b, "agentloop.end.reason"))
			return strings.Compare(ka, kb)
		})
	}
	var out strings.Builder
	var draw func(s *tracepb.Span, depth int)
	draw = func(s *tracepb.Span, depth int) {
		out.WriteString(strings.Repeat("  ", depth))
		out.WriteString(s.Name)
		if depth == 0 && len(s.ParentSpanId) > 0 {
			fmt.Fprintf(&out, " trace=%x parent=%x", s.TraceId, s.ParentSpanId)
		}
		var attrs []string
		for _, kv := range s.Attributes {
			if !volatile[kv.Key] {
				attrs = append(attrs, kv.Key+"="+anyString(kv.Value))
			}
		}
		slices.Sort(attrs)
		for _, a := range attrs {
			out.WriteString(" " + a)
		}
		if s.Status != nil && s.Status.Code == tracepb.Status_STATUS_CODE_ERROR {
			out.WriteString(" status=error")
		}
		for _, e := range s.Events {
			out.WriteString(" event=" + e.Name)
		}
		out.WriteString("\n")
		kids := children[hex.EncodeToString(s.SpanId)]
		order(kids)
		for _, k := range kids {
			draw(k, depth+1)
		}
	}
	order(roots)
	for _, r := range roots {
		draw(r, 0)
	}
	return out.String()
}

// eventLines are the events of the spans, a line each, sorted: the span's
// name and step, the event's name and its attributes.
func eventLines(spans []*tracepb.Span) string {
	var lines []string
	for _, s := range spans {
		for _, e := range s.Events {
			var attrs []string
			for _, kv := range e.Attributes {
				attrs = append(attrs, kv.Key+"="+anyString(kv.Value))
			}
			slices.Sort(attrs)
			line := s.Name
			if step := attrString(s, "agentloop.step"); step != "" {
				line += " step=" + step
			}
			lines = append(lines, strings.Join(append([]string{line, e.Name}, attrs...), " ")+"\n")
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}

// metricLines are the histograms received, a line for each series (a
// metric and a set of attributes): the metric's name and unit, its
// temporality, the attributes but the volatile ones, and the count of
// measures and their sum (but a duration's, which differs from run to
// run), and the number of bucket boundaries. A cumulative series is its last point; a delta series,
// its points added up.
func metricLines(metrics []*metricspb.Metric) string {
	type series struct {
		count  uint64
		sum    float64
		last   uint64
		cumul  bool
		bounds int
	}
	all := map[string]*series{}
	for _, m := range metrics {
		h := m.GetHistogram()
		if h == nil {
			all[m.Name+" (not a histogram)"] = &series{}
			continue
		}
		cumul := h.AggregationTemporality == metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
		for _, p := range h.DataPoints {
			var attrs []string
			for _, kv := range p.Attributes {
				if !volatile[kv.Key] {
					attrs = append(attrs, kv.Key+"="+anyString(kv.Value))
				}
			}
			slices.Sort(attrs)
			temporality := "delta"
			if cumul {
				temporality = "cumulative"
			}
			key := strings.Join(append([]string{m.Name, m.Unit, temporality}, attrs...), " ")
			s, ok := all[key]
			if !ok {
				s = &series{cumul: cumul}
				all[key] = s
			}
			switch {
			case !cumul:
				s.count += p.Count
				s.sum += p.GetSum()
			case p.TimeUnixNano >= s.last:
				s.count, s.sum, s.last = p.Count, p.GetSum(), p.TimeUnixNano
			}
			s.bounds = len(p.ExplicitBounds)
		}
	}
	var lines []string
	for key, s := range all {
		sum := fmt.Sprintf(" sum=%g", s.sum)
		if strings.HasPrefix(key, "gen_ai.client.operation.duration ") {
			sum = ""
		}
		lines = append(lines, fmt.Sprintf("%s count=%d%s buckets=%d\n", key, s.count, sum, s.bounds))
	}
	slices.Sort(lines)
	return strings.Join(lines, "")
}
