package mcp

import "context"

type traceKey struct{}

type traceContext struct{ parent, state string }

// WithTraceParent returns a context whose tool call carries the W3C trace
// context of the call's span to the server, so that an instrumented server
// continues the trace: in the request's params._meta (traceparent and
// tracestate), as the MCP proposal for trace context propagation puts it,
// over either transport; to an HTTP server also as the traceparent and
// tracestate headers of the request.
func WithTraceParent(ctx context.Context, traceparent, tracestate string) context.Context {
	return context.WithValue(ctx, traceKey{}, traceContext{traceparent, tracestate})
}

// traceParent is what WithTraceParent gave ctx.
func traceParent(ctx context.Context) (traceparent, tracestate string) {
	tc, _ := ctx.Value(traceKey{}).(traceContext)
	return tc.parent, tc.state
}
