package tracing

import (
	"crypto/rand"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// NewBatchSpan is the traceparent of the span of a new batch: in the trace
// parent names, when it names a valid one, else in a new trace. Its items
// record it (transcript.Header.BatchSpan) and their spans are its
// children.
func NewBatchSpan(parent string) string {
	var cfg trace.SpanContextConfig
	if sc, ok := ParseTraceParent(parent, ""); ok {
		cfg.TraceID = sc.TraceID()
	} else {
		_, _ = rand.Read(cfg.TraceID[:])
	}
	for !cfg.SpanID.IsValid() {
		_, _ = rand.Read(cfg.SpanID[:])
	}
	cfg.TraceFlags = trace.FlagsSampled
	tp, _ := TraceParent(trace.NewSpanContext(cfg))
	return tp
}

// BatchSpans are the spans of the batches the runs of spans are items of:
// one for each batch span the items name, from the start of its first item
// to the end of its last, a child of the span the batch was started in.
// They are made from the items' spans alone, so a batch traced live and
// its transcripts exported together give the same span.
func BatchSpans(spans []Span) []Span {
	byBatch := map[string]*Span{}
	items := map[string]int{}
	var order []string
	for _, s := range spans {
		if s.batch == "" {
			continue
		}
		b, ok := byBatch[s.batch]
		if !ok {
			sc, _ := ParseTraceParent(s.batch, "")
			b = &Span{
				TraceID: sc.TraceID(), SpanID: sc.SpanID(), TraceState: s.TraceState,
				Name: opBatch, Kind: trace.SpanKindInternal, Start: s.Start, End: s.End,
			}
			if outer, ok := ParseTraceParent(s.outer, ""); ok && outer.TraceID() == b.TraceID {
				b.Parent = outer.SpanID()
			}
			byBatch[s.batch] = b
			order = append(order, s.batch)
		}
		if s.Start.Before(b.Start) {
			b.Start = s.Start
		}
		if s.End.After(b.End) {
			b.End = s.End
		}
		items[s.batch]++
	}
	slices.Sort(order)
	out := make([]Span, 0, len(order))
	for _, k := range order {
		b := byBatch[k]
		b.Attrs = []attribute.KeyValue{keyBatchItems.Int(items[k])}
		out = append(out, *b)
	}
	return out
}
