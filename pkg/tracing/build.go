package tracing

import (
	"crypto/sha256"
	"net/url"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Span is one finished span, with the ids, times and attributes it is
// exported with.
type Span struct {
	TraceID trace.TraceID
	SpanID  trace.SpanID
	// Parent is the parent span's id; zero for a root span.
	Parent trace.SpanID
	// TraceState is the W3C tracestate the run was started with.
	TraceState string
	Name       string
	Kind       trace.SpanKind
	Start, End time.Time
	Attrs      []attribute.KeyValue
	Events     []Event
	Status     codes.Code
	// StatusMessage says what went wrong, with Status codes.Error.
	StatusMessage string

	// batch and outer are, on the span of a batch item's run, the
	// traceparent of the batch's span and of that span's parent.
	batch, outer string
}

// Event is a moment in a span.
type Event struct {
	Name  string
	Time  time.Time
	Attrs []attribute.KeyValue
}

// Options say what a Builder puts in its spans.
type Options struct {
	// Content puts the tools' arguments and results in the spans
	// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). They are
	// taken from the transcript, which holds them redacted.
	Content bool
	// OnSpan is called with each span as it ends, in the order they end:
	// the calls of a turn and its model call before the run's span.
	OnSpan func(Span)
}

// Builder turns the records of one transcript, in the order they were
// written, into spans. Every id is derived from the run's id and the
// record a span comes from, so the spans of a live run and those of its
// transcript read back later are the same spans.
type Builder struct {
	opts     Options
	h        *transcript.Header
	traceID  trace.TraceID
	parent   trace.SpanID
	state    string
	run      Span
	last     time.Time
	steps    int // the last step whose model call was recorded
	results  map[string]transcript.CallResult
	callIDs  map[string]int
	args     map[string]string
	finished bool
	// retries are the retries of the model request under way, for the
	// chat span of the step it gets (live only: a transcript does not
	// record them).
	retries []Event
}

// NewBuilder returns a Builder waiting for a header.
func NewBuilder(opts Options) *Builder {
	return &Builder{opts: opts, results: map[string]transcript.CallResult{}, callIDs: map[string]int{}, args: map[string]string{}}
}

// TraceID is the id of the trace a run of this id goes in, when nothing
// started it in another.
func TraceID(runID string) trace.TraceID {
	sum := sha256.Sum256([]byte("agentloop trace\x00" + runID))
	var id trace.TraceID
	copy(id[:], sum[:])
	return id
}

// spanID is the id of the span of a run named by key: "run", "chat/STEP",
// "tool/CALL_ID".
func spanID(tid trace.TraceID, runID, key string) trace.SpanID {
	sum := sha256.Sum256([]byte(string(tid[:]) + "\x00" + runID + "\x00" + key))
	var id trace.SpanID
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// ToolSpanContext is the span context of the execute_tool span of a call
// of the run h starts: what a tool process is given as its TRACEPARENT.
func ToolSpanContext(h *transcript.Header, callID string) trace.SpanContext {
	tid, _, state := runContext(h)
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: spanID(tid, h.ID, "tool/"+callID),
		TraceFlags: trace.FlagsSampled, TraceState: state,
	})
}

// runContext is the trace a run's spans go in, the parent of its root
// span (zero for none) and the tracestate it carries.
func runContext(h *transcript.Header) (trace.TraceID, trace.SpanID, trace.TraceState) {
	if sc, ok := ParseTraceParent(h.BatchSpan, h.TraceState); ok {
		return sc.TraceID(), sc.SpanID(), sc.TraceState()
	}
	if sc, ok := ParseTraceParent(h.TraceParent, h.TraceState); ok {
		return sc.TraceID(), sc.SpanID(), sc.TraceState()
	}
	return TraceID(h.ID), trace.SpanID{}, trace.TraceState{}
}

// Add takes the next record of the transcript.
func (b *Builder) Add(rec *transcript.Record) {
	switch {
	case rec.Header != nil:
		if b.h == nil {
			b.header(rec.Header)
		}
	case b.h == nil || b.finished:
		// Nothing before the header, nothing after the end.
	case rec.Message != nil:
		b.message(rec.Message)
	case rec.Result != nil:
		if b.own(rec.Result.Time) {
			b.results[rec.Result.CallID] = *rec.Result
		}
	case rec.End != nil:
		b.end(rec.End)
	}
}

// own reports whether a record was written by this run: a continued run's
// transcript starts with a copy of the conversation it goes on with, whose
// records keep the times they were first written at, before this run's
// header. Those were traced with the run that wrote them.
func (b *Builder) own(t time.Time) bool {
	if t.Before(b.h.Time) {
		return false
	}
	if t.After(b.last) {
		b.last = t
	}
	return true
}

func (b *Builder) header(h *transcript.Header) {
	b.h = h
	b.last = h.Time
	tid, parent, state := runContext(h)
	b.traceID, b.parent, b.state = tid, parent, state.String()
	attrs := []attribute.KeyValue{
		keyOperation.String(opInvokeAgent),
		keyProvider.String(providerName(h.Provider)),
		keyAgentName.String(agentName),
		keyAgentID.String(h.ID),
		keyConversationID.String(h.ID),
		keyRequestModel.String(h.Model),
		keyTranscriptID.String(h.ID),
	}
	if h.Command != "" {
		attrs = append(attrs, keyCommand.String(h.Command))
	}
	if h.ParentID != "" {
		attrs = append(attrs, keyParentID.String(h.ParentID))
	}
	if h.MaxSteps > 0 {
		attrs = append(attrs, keyMaxSteps.Int(h.MaxSteps))
	}
	attrs = append(attrs, serverAttrs(h.BaseURL)...)
	if b.opts.Content && h.System != "" {
		attrs = append(attrs, keySystem.String(h.System))
	}
	b.run = Span{
		TraceID: tid, SpanID: b.id("run"), Parent: parent, TraceState: b.state,
		Name: opInvokeAgent, Kind: trace.SpanKindInternal, Start: h.Time, Attrs: attrs,
	}
	if _, ok := ParseTraceParent(h.BatchSpan, ""); ok {
		b.run.batch, b.run.outer = h.BatchSpan, h.TraceParent
	}
}

func (b *Builder) id(key string) trace.SpanID { return spanID(b.traceID, b.h.ID, key) }

// serverAttrs are server.address and server.port of the API's base URL.
func serverAttrs(baseURL string) []attribute.KeyValue {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil
	}
	host, port := u.Hostname(), u.Port()
	attrs := []attribute.KeyValue{keyServerAddress.String(host)}
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, keyServerPort.Int(n))
	}
	return attrs
}

func (b *Builder) message(m *transcript.Message) {
	if !b.own(m.Time) {
		return
	}
	if b.opts.Content {
		for id, args := range callArguments(b.h.Provider, m.Message) {
			b.args[id] = args
		}
	}
	if m.Usage != nil {
		b.chat(m)
	}
	if len(m.Results) > 0 {
		var texts map[string]string
		if b.opts.Content {
			texts = resultTexts(b.h.Provider, m.Message)
		}
		for _, r := range m.Results {
			b.tool(m, r, texts)
		}
	}
}

// chat is the span of the model call that got the turn m ends.
func (b *Builder) chat(m *transcript.Message) {
	b.steps = max(b.steps, m.Step)
	end := m.Time
	start := end.Add(-time.Duration(m.LatencyMS) * time.Millisecond)
	input, cached := transcript.RequestTokens(b.h.Provider, *m.Usage)
	attrs := []attribute.KeyValue{
		keyOperation.String(opChat),
		keyProvider.String(providerName(b.h.Provider)),
		keyRequestModel.String(b.h.Model),
		keyInputTokens.Int64(input),
		keyOutputTokens.Int64(m.Usage.OutputTokens),
		keyStep.Int(m.Step),
	}
	if m.ResponseModel != "" {
		attrs = append(attrs, keyResponseModel.String(m.ResponseModel))
	}
	if m.ResponseID != "" {
		attrs = append(attrs, keyResponseID.String(m.ResponseID))
	}
	if m.FinishReason != "" {
		attrs = append(attrs, keyFinishReasons.StringSlice([]string{m.FinishReason}))
	}
	if cached > 0 {
		attrs = append(attrs, keyCacheRead.Int64(cached))
	}
	if n := m.Usage.CacheCreationInputTokens; n > 0 {
		attrs = append(attrs, keyCacheCreation.Int64(n))
	}
	if n := m.Usage.ReasoningTokens; n > 0 {
		attrs = append(attrs, keyReasoningTokens.Int64(n))
	}
	if b.h.MaxTokens > 0 {
		attrs = append(attrs, keyRequestMaxTok.Int64(b.h.MaxTokens))
	}
	if b.h.Temperature != nil {
		attrs = append(attrs, keyRequestTemp.Float64(*b.h.Temperature))
	}
	if m.RequestBytes > 0 {
		attrs = append(attrs, keyRequestBytes.Int(m.RequestBytes))
	}
	if m.ToolChoice != "" {
		attrs = append(attrs, keyToolChoice.String(m.ToolChoice))
	}
	attrs = append(attrs, serverAttrs(b.h.BaseURL)...)
	s := Span{
		TraceID: b.traceID, SpanID: b.id("chat/" + strconv.Itoa(m.Step)), Parent: b.run.SpanID, TraceState: b.state,
		Name: opChat + " " + b.h.Model, Kind: trace.SpanKindClient, Start: start, End: end, Attrs: attrs,
		Events: b.takeRetries(),
	}
	if len(m.Cleared) > 0 {
		ids := make([]string, len(m.Cleared))
		bytes := 0
		for i, c := range m.Cleared {
			ids[i], bytes = c.CallID, bytes+c.Bytes
		}
		s.Events = append(s.Events, Event{Name: eventCleared, Time: start, Attrs: []attribute.KeyValue{
			keyClearedCalls.StringSlice(ids), keyClearedBytes.Int(bytes),
		}})
	}
	b.emit(s)
}

// tool is the span of one tool call, answered by m.
func (b *Builder) tool(m *transcript.Message, r transcript.Result, texts map[string]string) {
	end := m.Time
	content, hasContent := texts[r.CallID]
	if rec, ok := b.results[r.CallID]; ok {
		end = rec.Time
		content, hasContent = rec.Content, true
		delete(b.results, r.CallID)
	}
	start := end.Add(-time.Duration(r.DurationMS) * time.Millisecond)
	key := "tool/" + r.CallID
	if n := b.callIDs[r.CallID]; n > 0 {
		// A model that uses one call id twice in a run gets two spans.
		key += "#" + strconv.Itoa(n)
	}
	b.callIDs[r.CallID]++
	typ := toolTypeFunction
	if r.Source == wire.SourceMCP {
		typ = toolTypeExtension
	}
	attrs := []attribute.KeyValue{
		keyOperation.String(opExecuteTool),
		keyToolName.String(r.Name),
		keyToolCallID.String(r.CallID),
		keyToolType.String(typ),
		keyStep.Int(m.Step),
		keyExitCode.Int(r.ExitCode),
	}
	if r.Truncated {
		attrs = append(attrs, keyTruncated.Bool(true))
	}
	if r.Source == wire.SourceMCP {
		attrs = append(attrs, keyMCPMethod.String("tools/call"), keyMCPServer.String(r.Server))
	}
	if b.opts.Content {
		if args, ok := b.args[r.CallID]; ok {
			attrs = append(attrs, keyToolArguments.String(args))
		}
		if hasContent {
			attrs = append(attrs, keyToolResult.String(content))
		}
	}
	s := Span{
		TraceID: b.traceID, SpanID: b.id(key), Parent: b.run.SpanID, TraceState: b.state,
		Name: opExecuteTool + " " + r.Name, Kind: trace.SpanKindInternal, Start: start, End: end, Attrs: attrs,
	}
	if r.IsError || r.Error != "" {
		kind := r.Error
		if kind == "" {
			kind = errorOther
		}
		s.Attrs = append(s.Attrs, keyErrorType.String(kind))
		s.Status, s.StatusMessage = codes.Error, kind
	}
	b.emit(s)
}

func (b *Builder) end(e *transcript.End) {
	if !b.own(e.Time) {
		return
	}
	if e.Reason == wire.ReasonError && e.Steps > b.steps {
		// The model call of the last step failed: it got no turn to
		// record, only the error that ended the run.
		b.failedChat(e)
	}
	r := &b.run
	input, _ := transcript.RequestTokens(b.h.Provider, e.Usage)
	r.Attrs = append(r.Attrs,
		keyEndReason.String(e.Reason),
		keySteps.Int(e.Steps),
		keyInputTokens.Int64(input),
		keyOutputTokens.Int64(e.Usage.OutputTokens),
	)
	if e.CostUSD != nil {
		r.Attrs = append(r.Attrs, keyCostUSD.Float64(*e.CostUSD))
	}
	switch e.Reason {
	case wire.ReasonMaxSteps, wire.ReasonBudget, wire.ReasonContext:
		r.Events = append(r.Events, Event{Name: eventBudget, Time: e.Time, Attrs: []attribute.KeyValue{keyEndReason.String(e.Reason)}})
	case wire.ReasonError, wire.ReasonInterrupted, wire.ReasonSchema:
		r.Attrs = append(r.Attrs, keyErrorType.String(e.Reason))
		r.Status, r.StatusMessage = codes.Error, e.Error
		if r.StatusMessage == "" {
			r.StatusMessage = e.Reason
		}
	}
	r.End = e.Time
	b.finished = true
	b.emit(*r)
}

// failedChat is the span of a model call that ended the run with an
// error: it started when the run's last record before it was written.
func (b *Builder) failedChat(e *transcript.End) {
	b.steps = e.Steps
	s := Span{
		TraceID: b.traceID, SpanID: b.id("chat/" + strconv.Itoa(e.Steps)), Parent: b.run.SpanID, TraceState: b.state,
		Name: opChat + " " + b.h.Model, Kind: trace.SpanKindClient, Start: b.last, End: e.Time,
		Attrs: append([]attribute.KeyValue{
			keyOperation.String(opChat),
			keyProvider.String(providerName(b.h.Provider)),
			keyRequestModel.String(b.h.Model),
			keyStep.Int(e.Steps),
			keyErrorType.String(errorOther),
		}, serverAttrs(b.h.BaseURL)...),
		Status: codes.Error, StatusMessage: e.Error,
		Events: b.takeRetries(),
	}
	b.emit(s)
}

// retried notes a retry of the model request under way.
func (b *Builder) retried(e Event) {
	if b.h != nil && !b.finished {
		b.retries = append(b.retries, e)
	}
}

// takeRetries are the retries noted since the last model call's span.
func (b *Builder) takeRetries() []Event {
	r := b.retries
	b.retries = nil
	return r
}

// Finish ends the run's span if the transcript had no end record (the
// run was killed, or is still going): it ends with the last record, and
// says no more of how the run went.
func (b *Builder) Finish() {
	if b.h == nil || b.finished {
		return
	}
	b.finished = true
	b.run.End = b.last
	b.emit(b.run)
}

func (b *Builder) emit(s Span) {
	if b.opts.OnSpan != nil {
		b.opts.OnSpan(s)
	}
}
