package htmlview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// page is what the template draws.
type page struct {
	Title    string
	Name     string
	Meta     []metaItem
	System   string
	Tools    []string
	Outcome  outcome
	Timeline *timelineView
	Chart    *chartView
	Steps    []stepRow
	Messages []messageView
	Script   string
	Style    string
}

type metaItem struct{ Key, Value string }

type outcome struct {
	Reason string
	// Why says what the reason means; Tone how it reads: ok (an answer),
	// warn (a budget or an interrupt stopped it, no failure) or err.
	Why     string
	Tone    string
	Error   string
	Steps   int
	Wall    string
	Model   string
	Tools   string
	Tokens  string
	Calls   int
	Errored int
}

type timelineView struct {
	Lanes   int
	Height  int
	Bars    []barView
	Ticks   []tickView
	Gaps    []gapView
	Summary string
}

type barView struct {
	Class  string
	Left   string
	Width  string
	Top    string
	Label  string
	Anchor string
}

type tickView struct{ Left, Label string }

type gapView struct{ Left, Label string }

type chartView struct {
	Bars    []chartBar
	Width   int
	Max     string
	Half    string
	Summary string
}

type chartBar struct {
	X                                      int
	CachedY, CachedH, InY, InH, OutY, OutH float64
	Label                                  string
	Anchor                                 string
}

type stepRow struct {
	Step     int
	Anchor   string
	Latency  string
	Finish   string
	Input    string
	Cached   string
	Output   string
	Calls    string
	ToolTime string
	Errors   int
}

type messageView struct {
	ID     string
	Role   string
	Class  string
	Step   int
	Open   bool
	Copied bool
	// Head is the summary line after the role: step, tokens, latency, and
	// the start of the text.
	Head    string
	Text    string
	Blocks  []string
	Calls   []callView
	Results []resultView
}

type callView struct {
	Name, ID, Args string
	BadJSON        bool
}

type resultView struct {
	Anchor  string
	Name    string
	State   string
	IsError bool
	Cleared bool
	// ClearedNote says from which step on requests carried it cleared.
	ClearedNote string
	Truncated   bool
	// Info is the call id, exit code, duration, size and the start of the
	// content.
	Info    string
	Content string
	Open    bool
}

// builder turns a conversation into a page.
type builder struct {
	conv     *transcript.Conversation
	d        agent.Dialect
	safe     func(string) string
	provider string
	parallel int

	// What the messages read so far make.
	p         *page
	spans     []Span
	callNames map[string]string // tool name by call id
	lastCalls []agent.Call      // the calls of the last assistant turn
	callsStep int               // and its step
	answered  map[string]bool   // call ids a message answers
	// done is when each call whose result record was written finished.
	done map[string]time.Time
	// cleared is when each result was first sent cleared.
	cleared  Clearings
	total    transcript.Usage
	steps    map[int]*stepRow
	order    []int // steps in the order met
	prompted bool
	// The calls of the turn being answered, laid out once all are read.
	batch     []batchCall
	batchStep int
	batchEnd  time.Time // when the first message answering them was written
	modelEnd  time.Time // when the model call that made them ended
}

// chartHeight is the height of the tokens chart's drawing, in its units.
const chartHeight = 100.0

// build lays the page out. It stops, with the cause, once ctx is done.
func (b *builder) build(ctx context.Context, name string) (*page, error) {
	b.p = &page{Name: b.safe(name), Script: script, Style: style}
	b.callNames, b.steps, b.batchStep = map[string]string{}, map[int]*stepRow{}, -1
	b.answered, b.done = map[string]bool{}, map[string]time.Time{}
	for _, r := range b.conv.Results {
		b.done[r.CallID] = r.Time
	}
	b.cleared = ClearingsOf(b.conv.Messages)
	b.header()
	for i, rec := range b.conv.Messages {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		b.p.Messages = append(b.p.Messages, b.message(i, rec))
	}
	if mv, ok := b.unsent(); ok {
		b.p.Messages = append(b.p.Messages, mv)
	}
	b.flush()

	p := b.p
	for _, n := range b.order {
		p.Steps = append(p.Steps, *b.steps[n])
	}
	b.fillStepCalls(p, b.spans)
	var started time.Time
	if b.conv.Header != nil {
		started = b.conv.Header.Time
	}
	p.Outcome = b.outcome(b.spans, b.total, started)
	if p.Title == "" {
		p.Title = p.Name
	}
	p.Timeline = timelineOf(b.spans)
	if p.Chart != nil {
		p.Chart.scale()
	}
	return p, nil
}

// header fills what the transcript's header says.
func (b *builder) header() {
	c, p := b.conv, b.p
	if h := c.Header; h != nil {
		// A transcript written by an older agentloop, or by hand, may
		// hold a credential in its base URL: the page never shows it.
		for _, kv := range []metaItem{
			{"model", h.Provider + " · " + h.Model}, {"base URL", transcript.RedactURL(h.BaseURL)}, {"id", h.ID},
			{"started", h.Time.UTC().Format("2006-01-02 15:04:05 UTC")}, {"command", commandName(h.Command)},
			{"continues", h.Parent}, {"agentloop", h.Agentloop},
		} {
			if kv.Value != "" && kv.Value != " · " {
				p.Meta = append(p.Meta, metaItem{kv.Key, b.safe(kv.Value)})
			}
		}
		p.System = b.safe(h.System)
		for _, n := range h.ToolNames() {
			p.Tools = append(p.Tools, b.safe(n))
		}
	} else {
		p.Meta = append(p.Meta, metaItem{"format", fmt.Sprintf("%s messages (%s), no header", c.Shape, c.Format)})
	}
	if p.System == "" {
		p.System = b.safe(c.System)
	}
}

// stepRow is the table row of step n; anchor is the message it links to.
func (b *builder) stepRow(n int, anchor string) *stepRow {
	r, ok := b.steps[n]
	if !ok {
		r = &stepRow{Step: n, Anchor: anchor}
		b.steps[n] = r
		b.order = append(b.order, n)
	}
	return r
}

// flush lays out the calls of the turn just answered.
func (b *builder) flush() {
	if len(b.batch) > 0 && !b.batchEnd.IsZero() {
		b.spans = append(b.spans, layoutBatch(b.batchStep, b.batch, b.parallel, b.batchEnd, b.modelEnd)...)
	}
	b.batch, b.batchEnd = nil, time.Time{}
}

// message draws one message record. Each message is decoded once to find
// what it is, and once more by the dialect if it is a turn or results.
func (b *builder) message(i int, rec transcript.Message) messageView {
	var probe struct {
		Role    string          `json:"role"`
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(rec.Message, &probe)
	role := probe.Role
	if role == "" {
		// An item without a role (Responses): the dialect says whose it
		// is: a function call or reasoning the assistant's, a call's
		// output the tool's.
		role = b.d.Role(rec.Message)
	}
	mv := messageView{ID: "m" + strconv.Itoa(i+1), Role: role, Step: rec.Step, Open: true}
	if probe.Role == "" && probe.Type != "" {
		mv.Role = strings.ReplaceAll(probe.Type, "_", " ")
	}
	if mv.Role == "" {
		mv.Role = "message"
	}
	mv.Class = "role-" + classWord(role)
	if h := b.conv.Header; h != nil && h.Parent != "" && !rec.Time.IsZero() && rec.Time.Before(h.Time) {
		mv.Copied = true
	}
	if role == "assistant" {
		b.assistant(&mv, rec, probe.Content)
		return mv
	}
	// A user message of Anthropic tool_result blocks, an OpenAI tool
	// message, a Responses function_call_output: results; anything else
	// is read as text.
	if role == "tool" || role == "user" && len(probe.Content) > 0 && probe.Content[0] == '[' {
		if results := b.d.ParseResults(rec.Message); len(results) > 0 {
			mv.Role, mv.Class = "tool results", "role-tool"
			b.results(&mv, rec, results)
			return mv
		}
	}
	if len(rec.ImagesOf) > 0 {
		// The pictures of results (Chat Completions): part of the
		// turn's results, not a prompt.
		mv.Role, mv.Class = "tool images", "role-tool"
		mv.Text = b.safe(agent.ImagesText(probe.Content))
		mv.Head = "step " + strconv.Itoa(rec.Step) + " · images of " + b.safe(strings.Join(rec.ImagesOf, ", "))
		return mv
	}
	text := transcript.ContentText(probe.Content)
	if text == "" {
		text = compactJSON(rec.Message)
	}
	mv.Text = b.safe(text)
	mv.Head = b.safe(firstLine(text, 160))
	if mv.Copied {
		mv.Head = "from the run it continues · " + mv.Head
	}
	if probe.Role == "user" {
		b.flush()
		if !b.prompted {
			b.prompted = true
			b.p.Title = b.safe(firstLine(text, 80))
		}
	}
	return mv
}

func (b *builder) assistant(mv *messageView, rec transcript.Message, content json.RawMessage) {
	if rec.Step != b.batchStep {
		b.flush()
	}
	t, err := b.d.ParseAssistant(rec.Message)
	if err != nil {
		mv.Text = b.safe("unreadable assistant message: " + err.Error())
		mv.Class += " bad"
		return
	}
	row := b.stepRow(rec.Step, mv.ID)
	head := []string{"step " + strconv.Itoa(rec.Step)}
	if mv.Copied {
		head = append(head, "from the run it continues")
	}
	if rec.FinishReason != "" {
		head = append(head, b.safe(rec.FinishReason))
		row.Finish = b.safe(rec.FinishReason)
	}
	if rec.Usage != nil {
		u := *rec.Usage
		b.total.Add(u)
		in, cached, out := u.TotalInput(b.provider), u.CacheReadInputTokens, u.OutputTokens
		head = append(head, fmt.Sprintf("%s in / %s out", count(in), count(out)))
		row.Input, row.Cached, row.Output = count(in), count(cached), count(out)
		if b.p.Chart == nil {
			b.p.Chart = &chartView{}
		}
		b.p.Chart.Bars = append(b.p.Chart.Bars, chartBar{Label: fmt.Sprintf("step %d: %s input tokens (%s cached), %s output", rec.Step, count(in), count(cached), count(out)),
			Anchor: mv.ID, CachedH: float64(cached), InH: float64(in - cached), OutH: float64(out)})
	}
	if rec.LatencyMS > 0 {
		lat := Millis(rec.LatencyMS)
		head = append(head, seconds(lat))
		row.Latency = seconds(lat)
	}
	if !rec.Time.IsZero() {
		span := Span{Kind: SpanModel, Step: rec.Step, End: rec.Time, Start: rec.Time.Add(-Millis(rec.LatencyMS)), Anchor: mv.ID}
		// The items of one Responses turn are one request.
		if n := len(b.spans); n > 0 && b.spans[n-1].Kind == SpanModel && b.spans[n-1].Step == rec.Step {
			b.spans[n-1].End = maxTime(b.spans[n-1].End, span.End)
		} else {
			b.spans = append(b.spans, span)
		}
		b.modelEnd, b.batchStep = rec.Time, rec.Step
	}
	mv.Text = b.safe(t.Text)
	mv.Blocks = append(b.otherBlocks(content), b.reasoning(rec.Message)...)
	if list := ClearedList([]transcript.Message{rec}, b.safe); list != "" {
		mv.Blocks = append(mv.Blocks, "cleared from this request on: "+list)
	}
	if rec.Step != b.callsStep {
		// A turn's calls may come in several items (Responses).
		b.lastCalls, b.callsStep = nil, rec.Step
	}
	b.lastCalls = append(b.lastCalls, t.Calls...)
	for _, call := range t.Calls {
		b.callNames[call.ID] = call.Name
		mv.Calls = append(mv.Calls, b.callView(call))
	}
	switch {
	case len(t.Calls) > 0:
		head = append(head, "calls "+b.safe(joinNames(t.Calls)))
	case t.Text != "":
		head = append(head, b.safe(firstLine(t.Text, 160)))
	case len(mv.Blocks) > 0:
		head = append(head, firstLine(mv.Blocks[0], 160))
	}
	mv.Head = strings.Join(head, " · ")
}

func (b *builder) results(mv *messageView, rec transcript.Message, results []agent.RecordedResult) {
	row := b.stepRow(rec.Step, mv.ID)
	if rec.Step != b.batchStep {
		b.flush()
		b.batchStep = rec.Step
	}
	for j, r := range results {
		meta := transcript.Result{CallID: r.CallID, IsError: r.IsError, ExitCode: -1}
		if j < len(rec.Results) {
			meta = rec.Results[j]
		}
		rv := b.resultView(mv.ID, j, r, meta)
		if note := b.cleared.Note(rec.Seq, r.CallID); note != "" {
			rv.Cleared, rv.ClearedNote = true, note
		}
		mv.Results = append(mv.Results, rv)
		b.answered[r.CallID] = true
		if rv.IsError {
			row.Errors++
			mv.Class += " has-error"
		}
		if j < len(rec.Results) && !rec.Time.IsZero() {
			b.batch = append(b.batch, batchCall{name: meta.Name, callID: meta.CallID, duration: Millis(meta.DurationMS),
				isError: rv.IsError, errorKind: meta.Error, anchor: rv.Anchor, done: b.done[meta.CallID]})
			if b.batchEnd.IsZero() {
				b.batchEnd = rec.Time
			}
		}
	}
	mv.Head = "step " + strconv.Itoa(rec.Step) + " · " + resultsPreview(mv.Results)
}

// unsent draws what the last turn's calls have that no message carries: the
// results of calls that finished before the run stopped (kept in result
// records, to be sent when the conversation goes on) and the calls that
// have no result at all.
func (b *builder) unsent() (messageView, bool) {
	mv := messageView{ID: "m" + strconv.Itoa(len(b.conv.Messages)+1), Role: "not yet sent", Class: "role-pending", Open: true}
	for j, f := range b.conv.Finished {
		if b.answered[f.CallID] {
			continue
		}
		rv := b.resultView(mv.ID, j, agent.RecordedResult{CallID: f.CallID, Content: f.Content, IsError: f.IsError}, f.Result)
		mv.Results = append(mv.Results, rv)
		b.answered[f.CallID] = true
		if !f.Time.IsZero() {
			b.batch = append(b.batch, batchCall{name: f.Name, callID: f.CallID, duration: Millis(f.DurationMS),
				isError: rv.IsError, errorKind: f.Error, anchor: rv.Anchor, done: f.Time})
			b.batchEnd = maxTime(b.batchEnd, f.Time)
		}
	}
	var pending []string
	for _, c := range b.lastCalls {
		if !b.answered[c.ID] {
			pending = append(pending, b.safe(c.Name)+" "+b.safe(c.ID))
		}
	}
	if len(mv.Results) == 0 && len(pending) == 0 {
		return mv, false
	}
	head := []string{}
	if len(mv.Results) > 0 {
		head = append(head, fmt.Sprintf("%d result%s kept from calls that finished before the run stopped", len(mv.Results), english.Plural(len(mv.Results), "", "s")))
	}
	if len(pending) > 0 {
		head = append(head, "no result yet: "+strings.Join(pending, ", "))
	}
	mv.Head = strings.Join(head, " · ")
	return mv, true
}

// fillStepCalls writes each step's tool calls into its table row.
func (b *builder) fillStepCalls(p *page, spans []Span) {
	type agg struct {
		names []string
		long  time.Duration
	}
	per := map[int]*agg{}
	for _, s := range spans {
		if s.Kind != SpanTool {
			continue
		}
		a := per[s.Step]
		if a == nil {
			a = &agg{}
			per[s.Step] = a
		}
		a.names = append(a.names, b.safe(s.Name))
		a.long = max(a.long, s.Duration())
	}
	for i := range p.Steps {
		if a := per[p.Steps[i].Step]; a != nil {
			p.Steps[i].Calls = strings.Join(a.names, ", ")
			p.Steps[i].ToolTime = seconds(a.long)
		}
	}
}

func (b *builder) outcome(spans []Span, total transcript.Usage, started time.Time) outcome {
	o := outcome{}
	c := b.conv
	var modelTime, toolTime time.Duration
	for _, s := range spans {
		if s.Kind == SpanModel {
			modelTime = add(modelTime, s.Duration())
		} else {
			toolTime = add(toolTime, s.Duration())
			o.Calls++
			if s.IsError {
				o.Errored++
			}
		}
	}
	if c.End != nil {
		o.Reason = b.safe(c.End.Reason)
		o.Error = b.safe(c.End.Error)
		o.Steps = c.End.Steps
		if c.End.Usage != (transcript.Usage{}) {
			total = c.End.Usage
		}
		if !started.IsZero() && c.End.Time.After(started) {
			o.Wall = seconds(c.End.Time.Sub(started))
		}
		o.Why, o.Tone = endReason(c.End.Reason)
	} else if c.Format == "agentloop" {
		o.Reason = "no end record"
		o.Why, o.Tone = "The run stopped before it could write how it ended (it was killed, or the machine went down), or it is still going.", toneWarn
	}
	if o.Steps == 0 {
		for _, m := range c.Messages {
			o.Steps = max(o.Steps, m.Step)
		}
	}
	o.Model = seconds(modelTime)
	o.Tools = seconds(toolTime)
	in := total.TotalInput(b.provider)
	o.Tokens = fmt.Sprintf("%s input (%s cached), %s output", count(in), count(total.CacheReadInputTokens), count(total.OutputTokens))
	return o
}

func (b *builder) callView(c agent.Call) callView {
	v := callView{Name: b.safe(c.Name), ID: b.safe(c.ID)}
	var out bytes.Buffer
	if json.Indent(&out, c.Arguments, "", "  ") == nil {
		v.Args = b.safe(out.String())
	} else {
		v.Args, v.BadJSON = b.safe(string(c.Arguments)), true
	}
	return v
}

func (b *builder) resultView(msgID string, j int, r agent.RecordedResult, meta transcript.Result) resultView {
	name := b.callNames[r.CallID]
	if name == "" {
		name = meta.Name
	}
	v := resultView{Anchor: msgID + "-" + strconv.Itoa(j+1), Name: b.safe(name), IsError: r.IsError || meta.IsError,
		Truncated: meta.Truncated, Content: b.safe(r.Content)}
	// A log of requests as sent (not agentloop's: it keeps results whole)
	// holds the placeholder itself.
	if strings.HasPrefix(r.Content, transcript.ClearedPrefix) {
		v.Cleared, v.ClearedNote = true, "cleared"
	}
	v.State = "ok"
	if v.IsError {
		v.State = "error"
		if meta.Error != "" {
			v.State += ": " + b.safe(meta.Error)
		}
	}
	// Short results are shown, and failures a little longer; the rest
	// open on demand.
	v.Open = len(r.Content) <= 200 || v.IsError && len(r.Content) <= 2000
	info := []string{b.safe(r.CallID)}
	switch {
	case meta.Source == wire.SourceMCP:
		// An MCP tool is no process: it has no exit code, only the
		// server's answer, ok or an error (the badge).
		info = append(info, "MCP "+b.safe(meta.Server)+"/"+b.safe(name))
	case meta.ExitCode >= 0 && meta.Error != wire.KindDeclined:
		info = append(info, "exit "+strconv.Itoa(meta.ExitCode))
	}
	info = append(info, seconds(Millis(meta.DurationMS)), bytesize.Binary(len(r.Content)))
	if !v.Open {
		info = append(info, b.safe(firstLine(r.Content, 120)))
	}
	v.Info = strings.Join(info, " · ")
	return v
}

// otherBlocks describes an assistant message's parts that are neither text
// nor tool calls: thinking, and tools the API ran itself.
func (b *builder) otherBlocks(content json.RawMessage) []string {
	if len(content) == 0 || content[0] != '[' {
		return nil
	}
	var parts []struct {
		Type     string          `json:"type"`
		Thinking string          `json:"thinking"`
		Name     string          `json:"name"`
		Input    json.RawMessage `json:"input"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "text", "tool_use", "output_text", "refusal":
		case "thinking":
			out = append(out, "thinking: "+b.safe(p.Thinking))
		case "redacted_thinking":
			out = append(out, "thinking (redacted)")
		case "server_tool_use", "mcp_tool_use":
			out = append(out, fmt.Sprintf("%s %s (run by the API)", b.safe(p.Name), b.safe(string(p.Input))))
		default:
			out = append(out, "["+b.safe(p.Type)+"]")
		}
	}
	return out
}

// reasoning describes a Responses reasoning item: its summary, which the
// API returns in clear; the reasoning itself is encrypted and not shown.
func (b *builder) reasoning(msg json.RawMessage) []string {
	var item struct {
		Type    string `json:"type"`
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Encrypted string `json:"encrypted_content"`
	}
	if json.Unmarshal(msg, &item) != nil || item.Type != "reasoning" {
		return nil
	}
	var out []string
	for _, s := range item.Summary {
		if s.Text != "" {
			out = append(out, "reasoning: "+b.safe(s.Text))
		}
	}
	if len(out) == 0 {
		out = append(out, "reasoning (encrypted, no summary)")
	}
	return out
}

// timelineOf lays the spans out for drawing.
func timelineOf(spans []Span) *timelineView {
	if len(spans) == 0 {
		return nil
	}
	lanes := assignLanes(spans)
	ax, gaps := newAxis(spans)
	tv := &timelineView{Lanes: lanes, Height: lanes*laneHeight + 4}
	models, tools := 0, 0
	for _, s := range spans {
		left := ax.pos(s.Start)
		width := ax.pos(s.End) - left
		class := "bar model"
		label := fmt.Sprintf("step %d: model call, %s", s.Step, seconds(s.Duration()))
		if s.Kind == SpanTool {
			class = "bar tool"
			label = fmt.Sprintf("step %d: %s (%s), %s", s.Step, s.Name, s.CallID, seconds(s.Duration()))
			if s.IsError {
				class += " err"
				label += ", failed"
				if s.ErrorKind != "" {
					label += " (" + s.ErrorKind + ")"
				}
			}
			tools++
		} else {
			models++
		}
		tv.Bars = append(tv.Bars, barView{Class: class, Left: pct(left), Width: pct(width), Top: strconv.Itoa(s.Lane*laneHeight+2) + "px", Label: label, Anchor: s.Anchor})
	}
	for _, t := range ax.ticks() {
		tv.Ticks = append(tv.Ticks, tickView{Left: pct(t.At), Label: t.Label})
	}
	for _, g := range gaps {
		tv.Gaps = append(tv.Gaps, gapView{Left: pct(g.At), Label: "+" + elapsed(math.Round(g.Skipped)) + " idle"})
	}
	tv.Summary = fmt.Sprintf("Timeline of %d model call%s and %d tool call%s over %s of activity", models, english.Plural(models, "", "s"), tools, english.Plural(tools, "", "s"), secondsOf(ax.total))
	if len(gaps) > 0 {
		tv.Summary += fmt.Sprintf(", %d idle stretch%s cut out", len(gaps), map[bool]string{true: "", false: "es"}[len(gaps) == 1])
	}
	tv.Summary += ". The table of steps lists the same figures."
	return tv
}

const laneHeight = 16

// scale turns token counts into bar heights.
func (c *chartView) scale() {
	var top float64
	for _, b := range c.Bars {
		top = max(top, b.CachedH+b.InH+b.OutH)
	}
	// The bars share the chart's width, however few they are.
	c.Width = max(len(c.Bars), 1) * 10
	c.Max, c.Half = count(int64(top)), count(int64(top/2))
	var sumIn, sumOut float64
	for i := range c.Bars {
		b := &c.Bars[i]
		sumIn += b.CachedH + b.InH
		sumOut += b.OutH
		f := 0.0
		if top > 0 {
			f = chartHeight / top
		}
		b.X = i * 10
		b.CachedH, b.InH, b.OutH = b.CachedH*f, b.InH*f, b.OutH*f
		b.CachedY = chartHeight - b.CachedH
		b.InY = b.CachedY - b.InH
		b.OutY = b.InY - b.OutH
	}
	c.Summary = fmt.Sprintf("Tokens of each of %d request%s: input (cached and not) and output; the largest request is %s tokens. The table of steps lists each.", len(c.Bars), english.Plural(len(c.Bars), "", "s"), c.Max)
}

// classWord keeps a role to letters, for a CSS class.
func classWord(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r == '_' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "other"
	}
	return b.String()
}

func joinNames(calls []agent.Call) string {
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func resultsPreview(rs []resultView) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, r.Name+": "+r.State)
	}
	return strings.Join(parts, ", ")
}

func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// firstLine is the first non-blank line of s, cut at max runes.
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	line, _, more := strings.Cut(s, "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > max {
		// Only the runes kept are converted (invalid bytes to U+FFFD): a
		// result of one long line is not copied four times over.
		cut := 0
		for range max - 1 {
			_, size := utf8.DecodeRuneInString(line[cut:])
			cut += size
		}
		line = string([]rune(line[:cut]))
		more = true
	}
	if more {
		line += "…"
	}
	return line
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func pct(f float64) string { return strconv.FormatFloat(f*100, 'f', 3, 64) + "%" }

// seconds writes a duration to the millisecond: 850ms, 1.25s, 3m05s.
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
	}
	return elapsed(d.Round(time.Second).Seconds())
}

// secondsOf is seconds for a length of the axis, which may be longer than
// a time.Duration holds.
func secondsOf(s float64) string {
	if s < 60 {
		return seconds(time.Duration(s * float64(time.Second)))
	}
	return elapsed(math.Round(s))
}

// count writes a token count with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// commandName is the header's command worth showing: a plain run is not.
func commandName(c string) string {
	if c == "run" {
		return ""
	}
	return c
}
