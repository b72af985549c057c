package tracing

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
)

// Setting is agentloop's otel setting: --otel, AGENTLOOP_OTEL or otel: in
// the configuration file.
type Setting struct {
	On bool
	// Given is set when the setting was given at all.
	Given bool
	// FromFile is set when it was given in the configuration file, which
	// the OTEL_EXPORTER_OTLP_*ENDPOINT variables go above; a flag or
	// AGENTLOOP_OTEL goes above them.
	FromFile bool
}

// Signals are what is exported.
type Signals struct{ Traces, Metrics bool }

// Wanted says what a command's runs export, from the otel setting and
// the standard variables getenv reads:
//
//   - OTEL_SDK_DISABLED=true: nothing, whatever else says.
//   - --otel or AGENTLOOP_OTEL: spans and metrics when true, nothing when
//     false.
//   - else OTEL_EXPORTER_OTLP_ENDPOINT: spans and metrics;
//     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: spans;
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: metrics; and otel: true in the
//     configuration file: both.
//   - OTEL_TRACES_EXPORTER=none: no spans; OTEL_METRICS_EXPORTER=none: no
//     metrics.
func Wanted(getenv func(string) string, s Setting) Signals {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") {
		return Signals{}
	}
	var w Signals
	if s.Given && !s.FromFile {
		w = Signals{Traces: s.On, Metrics: s.On}
	} else {
		base := env("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
		w.Traces = base || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || s.On
		w.Metrics = base || env("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "" || s.On
	}
	if env("OTEL_TRACES_EXPORTER") == "none" {
		w.Traces = false
	}
	if env("OTEL_METRICS_EXPORTER") == "none" {
		w.Metrics = false
	}
	return w
}

// Start sets up the live export of a command's runs (see Wanted), or
// returns nil when nothing is wanted or nothing could be set up: a run is
// never stopped for want of its telemetry. note is told of each problem;
// the caller says them (with -v).
func Start(ctx context.Context, getenv func(string) string, s Setting, version string, note func(error)) *Live {
	w := Wanted(getenv, s)
	if !w.Traces && !w.Metrics {
		return nil
	}
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	for _, sig := range []struct {
		on  bool
		key string
	}{{w.Traces, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"}, {w.Metrics, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"}} {
		p := env(sig.key)
		if p == "" {
			p = env("OTEL_EXPORTER_OTLP_PROTOCOL")
		}
		if sig.on && p != "" && p != "http/protobuf" {
			note(fmt.Errorf("protocol %s is not supported; sending http/protobuf", p))
			break
		}
	}
	sres, err := sdkResource(ctx, version)
	if err != nil {
		note(err)
	}
	var res *resourcepb.Resource
	if sres != nil {
		res = &resourcepb.Resource{Attributes: protoAttrs(sres.Attributes())}
	}
	var (
		client  *Client
		metrics *Metrics
	)
	if w.Traces {
		if client, err = NewClient(ctx); err != nil {
			note(err)
		}
	}
	if w.Metrics {
		if metrics, err = NewMetrics(ctx, sres, version); err != nil {
			note(err)
		}
	}
	if client == nil && metrics == nil {
		return nil
	}
	l := NewLive(client, metrics, res, version)
	// OTEL_BSP_EXPORT_TIMEOUT is the standard bound of an export, in ms.
	if v := env("OTEL_BSP_EXPORT_TIMEOUT"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms >= 0 {
			l.Flush = time.Duration(ms) * time.Millisecond
		} else {
			note(fmt.Errorf("OTEL_BSP_EXPORT_TIMEOUT=%s is not a number of milliseconds; waiting %v", v, l.Flush))
		}
	}
	return l
}
