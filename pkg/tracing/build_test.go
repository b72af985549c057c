package tracing

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/agentloop/agentloop/pkg/transcript"
)

func readSpans(t *testing.T, name string, opts Options) []Span {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	spans, err := Read(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	return spans
}

func attr(s Span, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attrs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func str(s Span, key attribute.Key) string {
	v, _ := attr(s, key)
	return v.String()
}

func byName(spans []Span, name string) []Span {
	var out []Span
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func header(t *testing.T, name string) *transcript.Header {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := transcript.NewReader(f).Next()
	if err != nil || rec.Header == nil {
		t.Fatalf("header of %s: %v", name, err)
	}
	return rec.Header
}

// A 3-step run with two calls at once in its first step, on each API:
// one invoke_agent span, a chat span a step and an execute_tool span a
// call, all children of the run's span, in one trace derived from the
// run's id, with the recorded times and tokens.
func TestThreeStepRun(t *testing.T) {
	for _, tc := range []struct{ file, model, provider, finish string }{
		{"openai.jsonl", "gpt-4o-mini", "openai", "tool_calls"},
		{"responses.jsonl", "gpt-5-mini", "openai", "tool_calls"},
		{"anthropic.jsonl", "claude-sonnet-4-5", "anthropic", "tool_use"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			h := header(t, tc.file)
			spans := readSpans(t, tc.file, Options{})
			if len(spans) != 7 {
				t.Fatalf("%d spans, want 7: %v", len(spans), names(spans))
			}
			root := spans[len(spans)-1]
			if root.Name != "invoke_agent" || root.Parent.IsValid() || root.TraceID != TraceID(h.ID) {
				t.Fatalf("root = %s parent %s trace %s, want invoke_agent, no parent, trace %s", root.Name, root.Parent, root.TraceID, TraceID(h.ID))
			}
			for k, want := range map[attribute.Key]string{
				keyOperation: "invoke_agent", keyProvider: tc.provider, keyAgentName: "agentloop",
				keyConversationID: h.ID, keyEndReason: "stop", keySteps: "3",
			} {
				if got := str(root, k); got != want {
					t.Errorf("run %s = %q, want %q", k, got, want)
				}
			}
			if model := str(root, keyRequestModel); !strings.HasPrefix(model, tc.model) {
				t.Errorf("request model %q", model)
			}
			chats := byName(spans, "chat "+h.Model)
			tools := byName(spans, "execute_tool nap")
			if len(chats) != 3 || len(tools) != 3 {
				t.Fatalf("%d chat and %d execute_tool spans, want 3 and 3: %v", len(chats), len(tools), names(spans))
			}
			seen := map[trace.SpanID]bool{}
			for _, s := range spans {
				if s.TraceID != root.TraceID || seen[s.SpanID] {
					t.Errorf("%s: trace %s span %s: another trace, or an id used twice", s.Name, s.TraceID, s.SpanID)
				}
				seen[s.SpanID] = true
				if s.SpanID != root.SpanID && s.Parent != root.SpanID {
					t.Errorf("%s: parent %s, want the run's %s", s.Name, s.Parent, root.SpanID)
				}
				if s.End.Before(s.Start) || s.Start.Before(root.Start) || s.End.After(root.End) {
					t.Errorf("%s: %v–%v outside the run's %v–%v", s.Name, s.Start, s.End, root.Start, root.End)
				}
			}
			first := chats[0]
			if got := str(first, keyFinishReasons); got != `["`+tc.finish+`"]` {
				t.Errorf("finish reasons %s, want [%s]", got, tc.finish)
			}
			if first.Kind != trace.SpanKindClient || str(first, keyOperation) != "chat" {
				t.Errorf("chat span kind %v operation %s", first.Kind, str(first, keyOperation))
			}
			var in, out int64
			for _, c := range chats {
				v, _ := attr(c, keyInputTokens)
				w, _ := attr(c, keyOutputTokens)
				in, out = in+v.AsInt64(), out+w.AsInt64()
			}
			if rin, _ := attr(root, keyInputTokens); rin.AsInt64() != in {
				t.Errorf("run input tokens %d, steps' %d", rin.AsInt64(), in)
			}
			if rout, _ := attr(root, keyOutputTokens); rout.AsInt64() != out {
				t.Errorf("run output tokens %d, steps' %d", rout.AsInt64(), out)
			}
			ids := []string{}
			for _, s := range tools {
				ids = append(ids, str(s, keyToolCallID))
				if str(s, keyToolType) != "function" || str(s, keyToolName) != "nap" {
					t.Errorf("tool span %s: type %s name %s", s.Name, str(s, keyToolType), str(s, keyToolName))
				}
				if _, ok := attr(s, keyToolResult); ok {
					t.Errorf("%s holds the result without content capture", s.Name)
				}
				if sc := ToolSpanContext(h, str(s, keyToolCallID)); sc.SpanID() != s.SpanID || sc.TraceID() != s.TraceID {
					t.Errorf("ToolSpanContext(%s) = %s, the span is %s", str(s, keyToolCallID), sc.SpanID(), s.SpanID)
				}
			}
			slices.Sort(ids)
			if !slices.Equal(ids, []string{"n1", "n2", "n3"}) {
				t.Errorf("call ids %v", ids)
			}
			// The two calls of step 1 ran at once: their spans overlap.
			a, b := tools[0], tools[1]
			if !a.Start.Before(b.End) || !b.Start.Before(a.End) {
				t.Errorf("the parallel calls do not overlap: %v–%v and %v–%v", a.Start, a.End, b.Start, b.End)
			}
		})
	}
}

func names(spans []Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// Reading a transcript twice gives the same ids: an export sent twice is
// one trace.
func TestIDsAreStable(t *testing.T) {
	a := readSpans(t, "openai.jsonl", Options{})
	b := readSpans(t, "openai.jsonl", Options{})
	if len(a) != len(b) {
		t.Fatal(len(a), len(b))
	}
	for i := range a {
		if a[i].SpanID != b[i].SpanID || a[i].TraceID != b[i].TraceID || a[i].Parent != b[i].Parent {
			t.Errorf("span %d: %s/%s, then %s/%s", i, a[i].TraceID, a[i].SpanID, b[i].TraceID, b[i].SpanID)
		}
	}
	// Another run is another trace.
	if c := readSpans(t, "anthropic.jsonl", Options{}); c[0].TraceID == a[0].TraceID {
		t.Error("two runs share a trace id")
	}
}

// A failed call's span says how it failed; a budget stop is an event on
// the run's span.
func TestFailedToolAndBudgetStop(t *testing.T) {
	spans := readSpans(t, "budget.jsonl", Options{})
	var failed, ok int
	for _, s := range byName(spans, "execute_tool nap") {
		switch str(s, keyToolCallID) {
		case "n2":
			failed++
			if s.Status != codes.Error || str(s, keyErrorType) != "exit" || str(s, keyExitCode) != "3" {
				t.Errorf("failed call: status %v error.type %q exit %s", s.Status, str(s, keyErrorType), str(s, keyExitCode))
			}
		case "n1":
			ok++
			if s.Status != codes.Unset {
				t.Errorf("a call that succeeded has status %v", s.Status)
			}
		}
	}
	if failed != 1 || ok != 1 {
		t.Fatalf("spans of n1, n2: %d, %d", ok, failed)
	}
	root := spans[len(spans)-1]
	if str(root, keyEndReason) != "max_steps" || len(root.Events) != 1 || root.Events[0].Name != eventBudget {
		t.Errorf("run: end reason %s, events %v", str(root, keyEndReason), root.Events)
	}
	if root.Status == codes.Error {
		t.Error("a budget stop is not an error of the run")
	}
	last := byName(spans, "chat "+header(t, "budget.jsonl").Model)[1]
	if str(last, keyToolChoice) != "none" {
		t.Errorf("last request's tool choice %q, want none", str(last, keyToolChoice))
	}
}

// A model call that failed ends the run: it has a chat span of its own,
// an error, as the run has.
func TestFailedModelCall(t *testing.T) {
	spans := readSpans(t, "error.jsonl", Options{})
	chats := byName(spans, "chat gpt-4o-mini")
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want 2: %v", len(chats), names(spans))
	}
	bad := chats[1]
	if bad.Status != codes.Error || !strings.Contains(bad.StatusMessage, "400") || str(bad, keyStep) != "2" {
		t.Errorf("failed call: status %v %q step %s", bad.Status, bad.StatusMessage, str(bad, keyStep))
	}
	root := spans[len(spans)-1]
	if root.Status != codes.Error || str(root, keyErrorType) != "error" {
		t.Errorf("run: status %v error.type %s", root.Status, str(root, keyErrorType))
	}
}

// Contents only when asked for, as the transcript holds them.
func TestContent(t *testing.T) {
	for _, file := range []string{"openai.jsonl", "responses.jsonl", "anthropic.jsonl", "budget.jsonl"} {
		spans := readSpans(t, file, Options{Content: true})
		for _, s := range byName(spans, "execute_tool nap") {
			args, _ := attr(s, keyToolArguments)
			res, _ := attr(s, keyToolResult)
			if !strings.Contains(args.AsString(), `"secs"`) || res.AsString() == "" {
				t.Errorf("%s %s: arguments %q result %q", file, str(s, keyToolCallID), args.AsString(), res.AsString())
			}
		}
	}
}

// A run started inside another trace (TRACEPARENT) is a child of its span,
// in its trace, and keeps its tracestate.
func TestParentFromHeader(t *testing.T) {
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	data = bytes.Replace(data, []byte(`"agentloop":"dev"`), []byte(`"agentloop":"dev","traceparent":"`+tp+`","tracestate":"vendor=x"`), 1)
	spans, err := Read(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := spans[len(spans)-1]
	if root.TraceID.String() != "4bf92f3577b34da6a3ce929d0e0e4736" || root.Parent.String() != "00f067aa0ba902b7" || root.TraceState != "vendor=x" {
		t.Errorf("root: trace %s parent %s state %q", root.TraceID, root.Parent, root.TraceState)
	}
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			t.Errorf("%s in trace %s", s.Name, s.TraceID)
		}
	}
}

func TestReadRefusesWhatIsNotATranscript(t *testing.T) {
	for _, in := range []string{"", `{"role":"user","content":"hi"}` + "\n", "not json\n"} {
		if _, err := Read(strings.NewReader(in), Options{}); err == nil {
			t.Errorf("Read(%q): no error", in)
		}
	}
}

// The spans reach an OTLP/HTTP receiver as the protobuf request the
// collector decodes, and the JSON form reads back as the same spans.
func TestUploadAndJSON(t *testing.T) {
	var got []*coltracepb.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("request %s %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		body, _ := io.ReadAll(r.Body)
		req := new(coltracepb.ExportTraceServiceRequest)
		if err := proto.Unmarshal(body, req); err != nil {
			t.Error(err)
		}
		got = append(got, req)
		w.Header().Set("Content-Type", "application/x-protobuf")
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Write(b)
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := NewClient(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	spans := readSpans(t, "anthropic.jsonl", Options{})
	res := &resourcepb.Resource{}
	rs := Encode(res, "test", spans)
	if err := c.Upload(ctx, rs); err != nil {
		t.Fatal(err)
	}
	c.Stop(ctx)
	if len(got) != 1 || !proto.Equal(got[0].ResourceSpans[0], rs) {
		t.Fatalf("received %d requests, not the spans sent", len(got))
	}
	line, err := MarshalJSON(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{rs}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(line, []byte(`"traceId":"`+spans[0].TraceID.String()+`"`)) {
		t.Errorf("the JSON has no hex trace id %s: %.300s", spans[0].TraceID, line)
	}
	back, err := UnmarshalJSON(line)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(back.ResourceSpans[0], rs) {
		t.Error("the JSON does not read back as the spans written")
	}
	// A closed collector is an error soon, not a wait.
	srv.Close()
	c2, _ := NewClient(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err := c2.Upload(ctx, rs); err == nil {
		t.Error("an upload to a closed port succeeded")
	}
}

// A continued run's transcript starts with a copy of the conversation it
// goes on with: those records were traced with the run that wrote them,
// and give no span here.
func TestCopiedRecordsAreNotTraced(t *testing.T) {
	data, err := os.ReadFile("testdata/openai.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	header := bytes.Replace(lines[0], []byte(`"time":"2026-`), []byte(`"time":"2027-`), 1)
	header = bytes.Replace(header, []byte(`"command":"run"`), []byte(`"command":"continue"`), 1)
	var file []byte
	file = append(file, header...)
	for _, l := range lines[1 : len(lines)-2] { // the messages and results, not the end
		file = append(file, l...)
	}
	spans, err := Read(bytes.NewReader(file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 1 || spans[0].Name != "invoke_agent" {
		t.Errorf("spans %v, want the run's alone", names(spans))
	}
}
