package cmd

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/tracing"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// runTracer sends the spans of a command's runs as they go
// (docs/tracing.md). A nil one sends nothing: nothing of OpenTelemetry is
// set up unless a run asks for it.
type runTracer struct {
	live    *tracing.Live
	ios     *IOStreams
	verbose bool
	content bool
	// flush bounds the wait for the last spans at the end.
	flush time.Duration
}

// tracingWanted reports whether the runs are to be traced: --otel, or an
// OTLP endpoint in the environment;
// OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none say no, whatever
// else does.
func tracingWanted(ios *IOStreams, asked bool) bool {
	if strings.EqualFold(strings.TrimSpace(ios.Getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.TrimSpace(ios.Getenv("OTEL_TRACES_EXPORTER")) == "none" {
		return false
	}
	return asked || ios.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || ios.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// newTracer sets up the tracing of a command's runs, or returns nil when
// it is not wanted or cannot be set up (said with -v: a run is never
// stopped for want of its trace).
func newTracer(ctx context.Context, ios *IOStreams, asked, verbose bool) *runTracer {
	if !tracingWanted(ios, asked) {
		return nil
	}
	note := func(format string, args ...any) {
		if verbose {
			fmt.Fprintf(ios.ErrOut, "agentloop: tracing: "+format+"\n", args...)
		}
	}
	if p := strings.TrimSpace(ios.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")); p != "" && p != "http/protobuf" {
		note("protocol %s is not supported; sending http/protobuf", p)
	} else if p := strings.TrimSpace(ios.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/protobuf" {
		note("protocol %s is not supported; sending http/protobuf", p)
	}
	res, err := tracing.Resource(ctx, Version())
	if err != nil {
		note("%v", err)
	}
	client, err := tracing.NewClient(ctx)
	if err != nil {
		note("%v", redactError(err, nil))
		return nil
	}
	flush := tracing.FlushTimeout
	// OTEL_BSP_EXPORT_TIMEOUT is the standard bound of an export, in ms.
	if v := strings.TrimSpace(ios.Getenv("OTEL_BSP_EXPORT_TIMEOUT")); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
			flush = time.Duration(ms) * time.Millisecond
		} else {
			note("OTEL_BSP_EXPORT_TIMEOUT=%s is not a number of milliseconds; waiting %v", v, flush)
		}
	}
	return &runTracer{live: tracing.NewLive(client, res, Version()), ios: ios, verbose: verbose, content: captureContent(ios), flush: flush}
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

// attach traces the run w records, and gives each tool process of the run
// the TRACEPARENT of its execute_tool span.
func (t *runTracer) attach(w *transcript.Writer, h transcript.Header, exec agent.Executor) agent.Executor {
	if t == nil || w == nil {
		return exec
	}
	w.Observe(t.live.Observer(tracing.Options{Content: t.content}))
	return tracedTools{exec: exec, h: h}
}

// close sends the spans not yet sent, waiting at most t.flush, and says
// once with -v if spans were lost.
func (t *runTracer) close() {
	if t == nil {
		return
	}
	if err := t.live.Close(t.flush); err != nil && t.verbose {
		fmt.Fprintf(t.ios.ErrOut, "agentloop: tracing: spans not sent: %v\n", redactError(err, nil))
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
