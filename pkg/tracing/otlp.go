package tracing

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// scopeName is the instrumentation scope of every span.
const scopeName = "github.com/agentloop/agentloop"

// Resource is the resource the spans are sent with: service.name
// "agentloop" and its version, then what OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES say, which win.
func Resource(ctx context.Context, version string) (*resourcepb.Resource, error) {
	res, err := sdkResource(ctx, version)
	if res == nil {
		return nil, err
	}
	// A partly bad OTEL_RESOURCE_ATTRIBUTES still gives the rest.
	return &resourcepb.Resource{Attributes: protoAttrs(res.Attributes())}, err
}

// sdkResource is Resource as the SDK has it, for the metrics.
func sdkResource(ctx context.Context, version string) (*resource.Resource, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(agentName), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		err = fmt.Errorf("trace resource: %w", err)
	}
	return res, err
}

// Encode puts spans in the OTLP form they are sent in: one resource, one
// scope.
func Encode(res *resourcepb.Resource, version string, spans []Span) *tracepb.ResourceSpans {
	ps := make([]*tracepb.Span, len(spans))
	for i, s := range spans {
		ps[i] = protoSpan(s)
	}
	return &tracepb.ResourceSpans{
		Resource: res,
		ScopeSpans: []*tracepb.ScopeSpans{{
			Scope:     &commonpb.InstrumentationScope{Name: scopeName, Version: version},
			Spans:     ps,
			SchemaUrl: SchemaURL,
		}},
		SchemaUrl: SchemaURL,
	}
}

func protoSpan(s Span) *tracepb.Span {
	p := &tracepb.Span{
		TraceId:           s.TraceID[:],
		SpanId:            s.SpanID[:],
		TraceState:        s.TraceState,
		Name:              s.Name,
		Kind:              protoKind(s.Kind),
		StartTimeUnixNano: uint64(s.Start.UnixNano()),
		EndTimeUnixNano:   uint64(s.End.UnixNano()),
		Attributes:        protoAttrs(s.Attrs),
		Flags:             uint32(trace.FlagsSampled),
	}
	if s.Parent.IsValid() {
		p.ParentSpanId = s.Parent[:]
	}
	for _, e := range s.Events {
		p.Events = append(p.Events, &tracepb.Span_Event{
			TimeUnixNano: uint64(e.Time.UnixNano()), Name: e.Name, Attributes: protoAttrs(e.Attrs),
		})
	}
	switch s.Status {
	case codes.Error:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: s.StatusMessage}
	case codes.Ok:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	}
	return p
}

func protoKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_INTERNAL
}

func protoAttrs(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: protoValue(kv.Value)})
	}
	return out
}

func protoValue(v attribute.Value) *commonpb.AnyValue {
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRINGSLICE:
		ss := v.AsStringSlice()
		vals := make([]*commonpb.AnyValue, len(ss))
		for i, s := range ss {
			vals[i] = &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vals}}}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.String()}}
}

// MarshalJSON writes traces as OTLP JSON, the form the OpenTelemetry
// Collector's file exporter writes a line in: the protobuf JSON mapping
// with lowerCamelCase names and enums as numbers, but trace and span ids
// in hex, as OTLP/JSON has them, not base64.
func MarshalJSON(td *tracepb.TracesData) ([]byte, error) {
	b, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(td)
	if err != nil {
		return nil, err
	}
	return recodeIDs(b, func(s string) (string, error) {
		raw, err := base64.StdEncoding.DecodeString(s)
		return hex.EncodeToString(raw), err
	})
}

// UnmarshalJSON reads a line of OTLP JSON as MarshalJSON writes it.
func UnmarshalJSON(b []byte) (*tracepb.TracesData, error) {
	b, err := recodeIDs(b, func(s string) (string, error) {
		raw, err := hex.DecodeString(s)
		return base64.StdEncoding.EncodeToString(raw), err
	})
	if err != nil {
		return nil, err
	}
	td := new(tracepb.TracesData)
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, td); err != nil {
		return nil, err
	}
	return td, nil
}

// recodeIDs rewrites the values of the id fields of OTLP JSON.
func recodeIDs(b []byte, recode func(string) (string, error)) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					r, err := recode(s)
					if err != nil {
						return fmt.Errorf("%s %q: %w", k, s, err)
					}
					v[k] = r
					continue
				}
				if err := walk(x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}
