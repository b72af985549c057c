package engine

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/tracing"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Tracer sends the spans of a command's runs as they go
// (docs/tracing.md). A nil one sends nothing: nothing of OpenTelemetry is
// set up unless a run asks for it.
type Tracer struct {
	live    *tracing.Live
	log     io.Writer
	verbose bool
	content bool
	// flush bounds the wait for the last spans at the end.
	flush time.Duration
}

// TracingWanted reports whether the runs are to be traced: asked (--otel),
// or an OTLP endpoint in the environment; OTEL_SDK_DISABLED=true and
// OTEL_TRACES_EXPORTER=none say no, whatever else does.
func TracingWanted(getenv func(string) string, asked bool) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")) == "none" {
		return false
	}
	return asked || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// CaptureContent reports whether spans may hold the messages' contents.
func CaptureContent(getenv func(string) string) bool {
	return strings.EqualFold(strings.TrimSpace(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
}

// NewTracer sets up the tracing of a command's runs by the OTEL_*
// variables getenv reads, or returns nil when it is not wanted or cannot
// be set up (said on log when verbose: a run is never stopped for want of
// its trace).
func NewTracer(ctx context.Context, getenv func(string) string, asked, verbose bool, version string, log io.Writer) *Tracer {
	if !TracingWanted(getenv, asked) {
		return nil
	}
	note := func(format string, args ...any) {
		if verbose {
			fmt.Fprintf(log, "agentloop: tracing: "+format+"\n", args...)
		}
	}
	if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")); p != "" && p != "http/protobuf" {
		note("protocol %s is not supported; sending http/protobuf", p)
	} else if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "http/protobuf" {
		note("protocol %s is not supported; sending http/protobuf", p)
	}
	res, err := tracing.Resource(ctx, version)
	if err != nil {
		note("%v", err)
	}
	client, err := tracing.NewClient(ctx)
	if err != nil {
		note("%s", redacted(err))
		return nil
	}
	flush := tracing.FlushTimeout
	// OTEL_BSP_EXPORT_TIMEOUT is the standard bound of an export, in ms.
	if v := strings.TrimSpace(getenv("OTEL_BSP_EXPORT_TIMEOUT")); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
			flush = time.Duration(ms) * time.Millisecond
		} else {
			note("OTEL_BSP_EXPORT_TIMEOUT=%s is not a number of milliseconds; waiting %v", v, flush)
		}
	}
	return &Tracer{live: tracing.NewLive(client, res, version), log: log, verbose: verbose, content: CaptureContent(getenv), flush: flush}
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

// attach traces the run w records, and gives each tool process of the run
// the TRACEPARENT of its execute_tool span.
func (t *Tracer) attach(w *transcript.Writer, h transcript.Header, exec agent.Executor) agent.Executor {
	if t == nil || w == nil {
		return exec
	}
	w.Observe(t.live.Observer(tracing.Options{Content: t.content}))
	return tracedTools{exec: exec, h: h}
}

// Close sends the spans not yet sent, waiting at most the export timeout,
// and says once when verbose if spans were lost.
func (t *Tracer) Close() {
	if t == nil {
		return
	}
	if err := t.live.Close(t.flush); err != nil && t.verbose {
		fmt.Fprintf(t.log, "agentloop: tracing: spans not sent: %s\n", redacted(err))
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
