package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/tracing"
)

// LogExportOptions are the inputs of `agentloop log export`.
type LogExportOptions struct {
	IO  *IOStreams
	Dir string
	// Refs are the runs: id prefixes, "last" or paths.
	Refs []string
	// OTLP sends the spans to the OTLP endpoint; File writes them as OTLP
	// JSON ("-" for stdout).
	OTLP bool
	File string
	// Metrics sends the model calls' metrics too, with --otlp.
	Metrics bool
	// Content puts the tools' arguments and results in the spans.
	Content bool
}

// exportTimeout bounds the sending of one run's spans.
const exportTimeout = 10 * time.Second

func newCmdLogExport(ios *IOStreams, runF func(*LogExportOptions) error) *cobra.Command {
	opts := &LogExportOptions{IO: ios}
	c := &cobra.Command{
		Use:   "export --otlp|--otlp-file FILE [ID|last|TRANSCRIPT]...",
		Short: "Send past runs to a tracing system as OpenTelemetry spans",
		Long: `Turn past runs into OpenTelemetry spans with the GenAI semantic conventions
(docs/tracing.md): an invoke_agent span for each run, a "chat MODEL" span for
each model call and an "execute_tool NAME" span for each tool call, with the
times, tokens and ids the transcript recorded.

--otlp sends them over OTLP/HTTP (protobuf) to the endpoint the standard
variables name: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), with
OTEL_EXPORTER_OTLP_HEADERS; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES set
the resource. --otlp-file FILE writes them as OTLP JSON, one line a run, as
the OpenTelemetry Collector's file exporter does ("-" for stdout). With
--metrics, --otlp also sends each run's gen_ai.client.token.usage and
gen_ai.client.operation.duration as one delta over the run's recorded time
(OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, else the base endpoint): unlike spans,
a run whose metrics are sent twice is counted twice.

The trace and span ids are derived from the run's id (or from the trace the run
was started in, TRACEPARENT), so exporting a run twice sends the same trace,
which a tracing system keeps once, and a run traced live is exported as the
same spans. Tool arguments and results go in only with
OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, as the transcript
holds them (redacted). Runs are named as 'agentloop log show' takes them;
"last" is the default.`,
		Example: `  agentloop log export --otlp last
  OTEL_EXPORTER_OTLP_ENDPOINT=http://jaeger:4318 agentloop log export --otlp runs/*.jsonl
  agentloop log export --otlp-file - 3f2a9c | jq .`,
		RunE: func(c *cobra.Command, args []string) error {
			if !opts.OTLP && opts.File == "" {
				return flagErrorf("say where the spans go: --otlp, --otlp-file FILE, or both")
			}
			if opts.Metrics && !opts.OTLP {
				return flagErrorf("--metrics sends over OTLP/HTTP: give --otlp too")
			}
			opts.Refs = args
			if len(args) == 0 {
				opts.Refs = []string{history.Last}
			}
			dir, err := logDir(c, ios)
			if err != nil {
				return err
			}
			opts.Dir = dir
			opts.Content = captureContent(ios)
			if runF != nil {
				return runF(opts)
			}
			return runLogExport(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.OTLP, "otlp", false, "send the spans over OTLP/HTTP to the endpoint OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT names")
	c.Flags().StringVar(&opts.File, "otlp-file", "", "write the spans as OTLP JSON to `FILE`, one line a run (- for stdout)")
	c.Flags().BoolVar(&opts.Metrics, "metrics", false, "with --otlp, send the runs' token and duration metrics too, with their recorded times")
	return c
}

// captureContent reports whether spans may hold contents.
func captureContent(ios *IOStreams) bool {
	return strings.EqualFold(strings.TrimSpace(ios.Getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
}

func runLogExport(ctx context.Context, opts *LogExportOptions) error {
	ios := opts.IO
	paths := make([]string, len(opts.Refs))
	for i, ref := range opts.Refs {
		p, err := findRun(opts.Dir, ref)
		if err != nil {
			return err
		}
		paths[i] = p
	}
	res, err := tracing.Resource(ctx, Version())
	if err != nil {
		fmt.Fprintf(ios.ErrOut, "agentloop: %v\n", err)
	}
	var client *tracing.Client
	if opts.OTLP {
		if client, err = tracing.NewClient(ctx); err != nil {
			return err
		}
		defer client.Stop(context.WithoutCancel(ctx))
	}
	var metrics *tracing.MetricClient
	if opts.Metrics {
		if metrics, err = tracing.NewMetricClient(ctx, Version()); err != nil {
			return err
		}
		defer metrics.Stop(context.WithoutCancel(ctx))
	}
	var out io.Writer
	switch opts.File {
	case "":
	case "-":
		out = ios.Out
	default:
		f, err := os.OpenFile(opts.File, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--otlp-file: %w", err)}
		}
		defer f.Close()
		out = f
	}
	failed := false
	var all []tracing.Span
	for _, path := range paths {
		spans, err := readSpans(path, opts.Content)
		if err == nil {
			all = append(all, spans...)
			err = exportSpans(ctx, ios, path, spans, res, client, out)
		}
		if err == nil && metrics != nil {
			err = exportMetrics(ctx, ios, path, spans, metrics)
		}
		if err != nil {
			fmt.Fprintf(ios.ErrOut, "agentloop: %s: %v\n", displayText(path, 200), err)
			failed = true
		}
	}
	// The span of a batch is made of its items': exported with them.
	if batches := tracing.BatchSpans(all); len(batches) > 0 {
		if err := exportSpans(ctx, ios, "batch", batches, res, client, out); err != nil {
			fmt.Fprintf(ios.ErrOut, "agentloop: batch span: %v\n", err)
			failed = true
		}
	}
	if failed {
		return errSilent
	}
	return nil
}

// readSpans reads the spans of one transcript.
func readSpans(path string, content bool) ([]tracing.Span, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return tracing.Read(f, tracing.Options{Content: content})
}

// exportSpans sends and writes the spans of one transcript (what names).
func exportSpans(ctx context.Context, ios *IOStreams, what string, spans []tracing.Span, res *resourcepb.Resource, client *tracing.Client, out io.Writer) error {
	rs := tracing.Encode(res, Version(), spans)
	if out != nil {
		line, err := tracing.MarshalJSON(&tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{rs}})
		if err != nil {
			return err
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("--otlp-file: %w", err)
		}
	}
	if client != nil {
		uctx, cancel := context.WithTimeout(ctx, exportTimeout)
		defer cancel()
		if err := client.Upload(uctx, rs); err != nil {
			return redactError(err, nil)
		}
	}
	if out != ios.Out && len(spans) > 0 {
		fmt.Fprintf(ios.ErrOut, "%s: trace %s, %d span%s\n", displayText(what, 200), spans[0].TraceID, len(spans), plural(len(spans), "", "s"))
	}
	return nil
}

// exportMetrics sends the metrics of the model calls of one transcript's
// spans.
func exportMetrics(ctx context.Context, ios *IOStreams, what string, spans []tracing.Span, metrics *tracing.MetricClient) error {
	uctx, cancel := context.WithTimeout(ctx, exportTimeout)
	defer cancel()
	calls, err := metrics.Send(uctx, spans)
	if err != nil {
		return redactError(err, nil)
	}
	fmt.Fprintf(ios.ErrOut, "%s: metrics of %d model call%s\n", displayText(what, 200), calls, plural(calls, "", "s"))
	return nil
}
