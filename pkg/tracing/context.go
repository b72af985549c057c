package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ParseTraceParent reads a W3C traceparent and tracestate (the values of
// TRACEPARENT and TRACESTATE, or of the traceparent and tracestate
// headers); ok is false when traceparent is not a valid one.
func ParseTraceParent(traceparent, tracestate string) (sc trace.SpanContext, ok bool) {
	if traceparent == "" {
		return trace.SpanContext{}, false
	}
	carrier := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		carrier["tracestate"] = tracestate
	}
	sc = trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
	return sc, sc.IsValid()
}

// TraceParent writes a span context as a W3C traceparent, and its
// tracestate ("" for none).
func TraceParent(sc trace.SpanContext) (traceparent, tracestate string) {
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), carrier)
	return carrier["traceparent"], carrier["tracestate"]
}
