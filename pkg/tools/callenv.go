package tools

import "context"

type callEnvKey struct{}

// WithCallEnv returns a context whose tool calls give their process the
// variables env returns for the call, besides its own: the trace context
// of the call's span (TRACEPARENT), so that a traced program the tool runs
// continues the run's trace. They come last and win over a variable of
// the same name that the tool's env: passes through.
func WithCallEnv(ctx context.Context, env func(callID string) []string) context.Context {
	return context.WithValue(ctx, callEnvKey{}, env)
}

// callEnv is what WithCallEnv gave ctx for the call.
func callEnv(ctx context.Context, callID string) []string {
	if f, ok := ctx.Value(callEnvKey{}).(func(string) []string); ok && f != nil {
		return f(callID)
	}
	return nil
}
