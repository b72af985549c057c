package engine

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/tracing"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Tracer sends the spans and metrics of a command's runs as they go
// (docs/tracing.md). A nil one sends nothing: nothing of OpenTelemetry is
// set up unless a run asks for it.
type Tracer struct {
	live    *tracing.Live
	log     io.Writer
	verbose bool
	content bool
}

// CaptureContent reports whether spans may hold the messages' contents.
func CaptureContent(getenv func(string) string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
}

// NewTracer sets up the tracing of a command's runs by the otel setting
// and the OTEL_* variables getenv reads (tracing.Wanted), or returns nil
// when it is not wanted or cannot be set up (said on log when verbose: a
// run is never stopped for want of its trace).
func NewTracer(ctx context.Context, getenv func(string) string, otel tracing.Setting, verbose bool, version string, log io.Writer) *Tracer {
	live := tracing.Start(ctx, getenv, otel, version, func(err error) {
		if verbose {
			fmt.Fprintf(log, "agentloop: tracing: %s\n", redacted(err))
		}
	})
	if live == nil {
		return nil
	}
	return &Tracer{live: live, log: log, verbose: verbose, content: CaptureContent(getenv)}
}

// redacted is an error's text without the credentials a URL in it holds.
func redacted(err error) string {
	var r *transcript.Redactor
	return r.RedactString(err.Error())
}

// TraceParent is the trace context agentloop was started in (TRACEPARENT,
// TRACESTATE) when it is a valid one, for a run's header: the run is then
// part of that trace, live or exported later.
func TraceParent(getenv func(string) string) (traceParent, traceState string) {
	tp, ts := strings.TrimSpace(getenv("TRACEPARENT")), strings.TrimSpace(getenv("TRACESTATE"))
	if _, ok := tracing.ParseTraceParent(tp, ts); ok {
		return tp, ts
	}
	return "", ""
}

// attach traces the run w records, the retries of its model requests
// included, and gives each tool process of the run the TRACEPARENT of its
// execute_tool span.
func (t *Tracer) attach(loop *agent.Loop, w *transcript.Writer, h transcript.Header) {
	if t == nil || w == nil {
		return
	}
	run := t.live.Run(tracing.Options{Content: t.content})
	w.Observe(run.Observe)
	loop.Provider = run.Provider(loop.Provider)
	if t.live.Traces() {
		loop.Tools = tracedTools{exec: loop.Tools, h: h}
	}
}

// Close sends the spans and metrics not yet sent, waiting at most the
// flush bound, and says once when verbose what was lost.
func (t *Tracer) Close() {
	if t == nil {
		return
	}
	if err := t.live.Close(t.live.Flush); err != nil && t.verbose {
		fmt.Fprintf(t.log, "agentloop: tracing: %s\n", redacted(err))
	}
}

// tracedTools runs the tools of a traced run with the trace context of
// each call's span in the call's context: for a tool process's
// environment, and for an MCP server's request.
type tracedTools struct {
	exec agent.Executor
	h    transcript.Header
}

func (t tracedTools) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	tp, ts := tracing.TraceParent(tracing.ToolSpanContext(&t.h, callID))
	ctx = tools.WithCallEnv(ctx, func(string) []string {
		env := []string{"TRACEPARENT=" + tp}
		if ts != "" {
			env = append(env, "TRACESTATE="+ts)
		}
		return env
	})
	ctx = mcp.WithTraceParent(ctx, tp, ts)
	return t.exec.Call(ctx, name, callID, args)
}
