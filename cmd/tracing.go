package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/tracing"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// runTracer sends the spans and metrics of a command's runs as they go
// (docs/tracing.md). A nil one sends nothing: nothing of OpenTelemetry is
// set up unless a run asks for it.
type runTracer struct {
	live    *tracing.Live
	ios     *IOStreams
	verbose bool
	content bool
}

// newTracer sets up the tracing of a command's runs, or returns nil when
// it is not wanted (tracing.Wanted) or cannot be set up (said with -v: a
// run is never stopped for want of its trace).
func newTracer(ctx context.Context, ios *IOStreams, otel tracing.Setting, verbose bool) *runTracer {
	live := tracing.Start(ctx, ios.Getenv, otel, Version(), func(err error) {
		if verbose {
			fmt.Fprintf(ios.ErrOut, "agentloop: tracing: %v\n", redactError(err, nil))
		}
	})
	if live == nil {
		return nil
	}
	return &runTracer{live: live, ios: ios, verbose: verbose, content: captureContent(ios)}
}

// traceParent is the trace context agentloop was started in (TRACEPARENT,
// TRACESTATE), recorded in a run's header when it is a valid one: the run
// is part of that trace, live or exported later.
func traceParent(ios *IOStreams, h *transcript.Header) {
	tp, ts := strings.TrimSpace(ios.Getenv("TRACEPARENT")), strings.TrimSpace(ios.Getenv("TRACESTATE"))
	if _, ok := tracing.ParseTraceParent(tp, ts); ok {
		h.TraceParent, h.TraceState = tp, ts
	}
}

// attach traces the run w records, the retries of its model requests
// included, and gives each tool process of the run the TRACEPARENT of its
// execute_tool span.
func (t *runTracer) attach(loop *agent.Loop, w *transcript.Writer, h transcript.Header) {
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

// close sends the spans and metrics not yet sent, waiting at most the
// flush bound, and says once with -v what was lost.
func (t *runTracer) close() {
	if t == nil {
		return
	}
	if err := t.live.Close(t.live.Flush); err != nil && t.verbose {
		fmt.Fprintf(t.ios.ErrOut, "agentloop: tracing: %v\n", redactError(err, nil))
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
