package htmlview

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestLayoutBatch(t *testing.T) {
	calls := []batchCall{{name: "a", duration: ms(600)}, {name: "b", duration: ms(1100)}, {name: "c", duration: ms(300)}}
	end := t0.Add(5 * time.Second)
	tests := []struct {
		name      string
		parallel  int
		notBefore time.Time
		want      [][2]time.Duration // start, end after t0
	}{
		// All at once: they start together and the last ends at end.
		{"parallel", 8, time.Time{}, [][2]time.Duration{{ms(3900), ms(4500)}, {ms(3900), ms(5000)}, {ms(3900), ms(4200)}}},
		// One at a time: one after the other in call order.
		{"one at a time", 1, time.Time{}, [][2]time.Duration{{ms(3000), ms(3600)}, {ms(3600), ms(4700)}, {ms(4700), ms(5000)}}},
		// Two slots: c waits for a's slot.
		{"two slots", 2, time.Time{}, [][2]time.Duration{{ms(3900), ms(4500)}, {ms(3900), ms(5000)}, {ms(4500), ms(4800)}}},
		// Never before the model call that asked for them ended.
		{"not before the turn", 8, t0.Add(4200 * time.Millisecond), [][2]time.Duration{{ms(4200), ms(4800)}, {ms(4200), ms(5300)}, {ms(4200), ms(4500)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := layoutBatch(1, calls, tt.parallel, end, tt.notBefore)
			for i, s := range spans {
				got := [2]time.Duration{s.Start.Sub(t0), s.End.Sub(t0)}
				if got != tt.want[i] {
					t.Errorf("call %s: %v, want %v", s.Name, got, tt.want[i])
				}
			}
		})
	}
	// A recorded finishing time puts the call where it ran.
	done := []batchCall{{name: "a", duration: ms(200), done: t0.Add(time.Second)}}
	if s := layoutBatch(1, done, 8, end, time.Time{})[0]; !s.Start.Equal(t0.Add(ms(800))) || !s.End.Equal(t0.Add(time.Second)) {
		t.Errorf("recorded finish: %v–%v", s.Start.Sub(t0), s.End.Sub(t0))
	}
}

func TestAssignLanes(t *testing.T) {
	at := func(from, to int) (time.Time, time.Time) { return t0.Add(ms(from)), t0.Add(ms(to)) }
	mk := func(kind SpanKind, from, to int) Span {
		s, e := at(from, to)
		return Span{Kind: kind, Start: s, End: e}
	}
	spans := []Span{
		mk(SpanModel, 0, 100),
		mk(SpanTool, 100, 500), mk(SpanTool, 100, 300), mk(SpanTool, 100, 200), // three at once
		mk(SpanModel, 500, 600),
		mk(SpanTool, 600, 700), // alone again: lane 1
		mk(SpanTool, 650, 800), // overlaps the last: lane 2
	}
	lanes := assignLanes(spans)
	var got []int
	for _, s := range spans {
		got = append(got, s.Lane)
	}
	if want := []int{0, 1, 2, 3, 0, 1, 2}; fmt.Sprint(got) != fmt.Sprint(want) || lanes != 4 {
		t.Fatalf("lanes %v (%d), want %v (4)", got, lanes, want)
	}
}

func TestAxisCutsIdleTime(t *testing.T) {
	spans := []Span{
		{Start: t0, End: t0.Add(2 * time.Second)},
		{Start: t0.Add(3 * time.Second), End: t0.Add(4 * time.Second)},     // 1 s apart: kept
		{Start: t0.Add(time.Hour), End: t0.Add(time.Hour + 4*time.Second)}, // an hour later: cut
	}
	ax, gaps := newAxis(spans)
	if len(gaps) != 1 || gaps[0].Skipped != (time.Hour-4*time.Second).Seconds() {
		t.Fatalf("gaps %+v, want one of 59m56s", gaps)
	}
	// 8 s of activity and one cut of 200 ms (2% of 8 s is less).
	if ax.total != 8.2 {
		t.Errorf("axis length %v", ax.total)
	}
	prev := -1.0
	for _, tm := range []time.Time{t0, t0.Add(time.Second), t0.Add(2500 * time.Millisecond), t0.Add(4 * time.Second), t0.Add(time.Hour), t0.Add(time.Hour + 4*time.Second)} {
		p := ax.pos(tm)
		if p < prev || p < 0 || p > 1 {
			t.Errorf("pos(%v) = %v after %v", tm.Sub(t0), p, prev)
		}
		prev = p
	}
	if ax.pos(t0) != 0 || ax.pos(t0.Add(time.Hour+4*time.Second)) != 1 {
		t.Errorf("the axis does not run from the first start to the last end")
	}
	var labels []string
	for _, tk := range ax.ticks() {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0s 2s 4s 1h00m00s 1h00m02s 1h00m04s" {
		t.Errorf("ticks %q", got)
	}
}

func TestElapsedAndNiceStep(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", ms(850): "850ms", ms(12500): "12.5s", 3*time.Minute + 5*time.Second: "3m05s",
		2*time.Hour + 10*time.Minute: "2h10m", 50 * time.Hour: "2d02h"} {
		if got := elapsed(d.Seconds()); got != want {
			t.Errorf("elapsed(%v) = %q, want %q", d, got, want)
		}
	}
	// Ten thousand years: more than a time.Duration holds.
	if got := elapsed(1e4 * 365 * day); got != "3650000d00h" {
		t.Errorf("elapsed(10,000 years) = %q", got)
	}
	for d, want := range map[time.Duration]time.Duration{ms(3): ms(5), ms(700): time.Second, 40 * time.Second: time.Minute, 30 * time.Hour: 48 * time.Hour} {
		if got := niceStep(d.Seconds()); got != want.Seconds() {
			t.Errorf("niceStep(%v) = %vs, want %v", d, got, want)
		}
	}
}

// Record times from year 1 to year 9999, and durations past what a
// time.Duration holds: the axis is laid out in bounded time and memory,
// every position between 0 and 1, the centuries between the spans one cut
// that says how long it was.
func TestAxisOverCenturies(t *testing.T) {
	first := time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)
	last := time.Date(9999, 12, 31, 23, 59, 58, 0, time.UTC)
	spans := []Span{
		{Start: first, End: first.Add(time.Second)},
		{Start: last.Add(-500 * time.Millisecond), End: last},
		// A model call that lasted as long as a Duration can say.
		{Start: last.Add(-Millis(math.MaxInt64)), End: last},
	}
	ax, gaps := newAxis(spans)
	if len(gaps) != 1 {
		t.Fatalf("%d gaps, want 1", len(gaps))
	}
	if years := gaps[0].Skipped / (365.2425 * day); years < 9700 || years > 9999 {
		t.Errorf("the cut skips %.0f years", years)
	}
	ticks := ax.ticks()
	if len(ticks) == 0 || len(ticks) > 2*maxSegmentTicks {
		t.Fatalf("%d ticks", len(ticks))
	}
	for _, tk := range ticks {
		if !(tk.At >= 0 && tk.At <= 1) || tk.Label == "" {
			t.Errorf("tick %+v", tk)
		}
	}
	for _, s := range spans {
		if a, b := ax.pos(s.Start), ax.pos(s.End); !(a >= 0 && a <= b && b <= 1) {
			t.Errorf("span drawn from %v to %v", a, b)
		}
	}
}

// A whole page of such a transcript: every duration clamped, nothing
// negative, a timeline of a few ticks.
func TestRenderOverCenturies(t *testing.T) {
	src := `{"type":"header","version":1,"id":"c","time":"0001-01-01T00:00:01Z","command":"run","provider":"openai","model":"m"}
{"type":"message","seq":1,"step":0,"time":"0001-01-01T00:00:01Z","message":{"role":"user","content":"hi"}}
{"type":"message","seq":2,"step":1,"time":"0001-01-01T00:00:02Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"w","arguments":"{}"}}]},"latency_ms":-5,"finish_reason":"tool_calls"}
{"type":"message","seq":3,"step":1,"time":"5000-06-01T00:00:00Z","message":{"role":"tool","tool_call_id":"c1","content":"x"},"results":[{"call_id":"c1","name":"w","exit_code":0,"duration_ms":9223372036854775807,"truncated":false,"is_error":false}]}
{"type":"message","seq":4,"step":1,"time":"5000-06-01T00:00:00Z","message":{"role":"tool","tool_call_id":"c2","content":"y"},"results":[{"call_id":"c2","name":"w","exit_code":0,"duration_ms":9223372036854775807,"truncated":false,"is_error":false}]}
{"type":"message","seq":5,"step":2,"time":"9999-12-31T23:59:59Z","message":{"role":"assistant","content":"done"},"latency_ms":9223372036854775807,"finish_reason":"stop"}
{"type":"end","time":"9999-12-31T23:59:59Z","reason":"stop","steps":2,"usage":{"input_tokens":1,"output_tokens":1}}
`
	b := &builder{conv: read(t, src), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 1}
	p, err := b.build(context.Background(), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range b.spans {
		if s.Duration() < 0 {
			t.Errorf("span %+v lasts %v", s, s.Duration())
		}
	}
	tl := p.Timeline
	if tl == nil || len(tl.Bars) != 4 || len(tl.Ticks) == 0 || len(tl.Ticks) > 3*maxSegmentTicks {
		t.Fatalf("timeline %+v", tl)
	}
	if strings.Contains(p.Outcome.Model, "-") || strings.Contains(p.Outcome.Tools, "-") {
		t.Errorf("outcome %+v", p.Outcome)
	}
}

// mark stands in for the terminal helper: it must be applied to every
// text from the transcript.
func mark(s string) string { return strings.ReplaceAll(s, "\x1b", `\u001b`) }

func render(t *testing.T, conv *transcript.Conversation) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(context.Background(), &b, conv, Options{Name: "t.jsonl", Dialect: dialect(conv.Shape), Safe: mark}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func dialect(shape string) agent.Dialect {
	if shape == "anthropic" {
		return agent.AnthropicDialect{}
	}
	return agent.OpenAIDialect{}
}

func read(t *testing.T, s string) *transcript.Conversation {
	t.Helper()
	convs, err := transcript.ReadConversations(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return convs[0]
}

const sample = `{"type":"header","version":1,"id":"abc","time":"2026-03-01T10:00:00Z","command":"continue","provider":"openai","model":"m","parent":"p.jsonl","parent_id":"p1","parallel":2}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T09:00:00Z","message":{"role":"user","content":"Weather in Paris?"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T09:00:01Z","message":{"role":"assistant","content":"Sunny."},"usage":{"input_tokens":50,"output_tokens":5},"latency_ms":900,"finish_reason":"stop"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:00.010Z","message":{"role":"user","content":"And in Tokyo <b>now</b>? \u001b[31m"}}
{"type":"message","seq":4,"step":2,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"w","arguments":"{\"city\":\"Tokyo\"}"}},{"id":"c2","type":"function","function":{"name":"w","arguments":"{\"city\":\"Osaka\"}"}},{"id":"c3","type":"function","function":{"name":"w","arguments":"{bad"}}]},"usage":{"input_tokens":120,"output_tokens":30,"cache_read_input_tokens":64},"latency_ms":800,"finish_reason":"tool_calls"}
{"type":"message","seq":5,"step":2,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"c1","content":"rain"},"results":[{"call_id":"c1","name":"w","exit_code":0,"duration_ms":500,"truncated":false,"is_error":false}]}
{"type":"message","seq":6,"step":2,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"c2","content":"[cleared: 2 KiB]"},"results":[{"call_id":"c2","name":"w","exit_code":0,"duration_ms":300,"truncated":false,"is_error":false}]}
{"type":"message","seq":7,"step":2,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"c3","content":"{\"error\":\"bad arguments\"}"},"results":[{"call_id":"c3","name":"w","exit_code":-1,"duration_ms":0,"truncated":false,"is_error":true,"error":"bad_arguments"}]}
{"type":"message","seq":8,"step":3,"time":"2026-03-01T10:00:03Z","message":{"role":"assistant","content":"Rainy in Tokyo."},"usage":{"input_tokens":200,"output_tokens":8},"latency_ms":700,"finish_reason":"stop"}
{"type":"end","time":"2026-03-01T10:00:03.100Z","reason":"stop","steps":3,"usage":{"input_tokens":370,"output_tokens":43,"cache_read_input_tokens":64}}
`

func TestBuild(t *testing.T) {
	b := &builder{conv: read(t, sample), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 2}
	p, err := b.build(context.Background(), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Weather in Paris?" {
		t.Errorf("title %q", p.Title)
	}
	var copied []string
	for _, m := range p.Messages {
		if m.Copied {
			copied = append(copied, m.ID)
		}
	}
	if strings.Join(copied, " ") != "m1 m2" {
		t.Errorf("copied from the parent: %v, want m1 m2", copied)
	}
	if got := p.Messages[2].Text; got != `And in Tokyo <b>now</b>? \u001b[31m` {
		t.Errorf("user text %q: Safe not applied", got)
	}
	if len(p.Messages) != 8 {
		t.Fatalf("%d messages, want 8", len(p.Messages))
	}
	var cleared, failed int
	for _, m := range p.Messages {
		for _, r := range m.Results {
			if r.Cleared {
				cleared++
			}
			if r.IsError {
				failed++
				if r.State != "error: bad_arguments" {
					t.Errorf("failed result state %q", r.State)
				}
			}
		}
	}
	if cleared != 1 || failed != 1 {
		t.Errorf("%d cleared, %d failed; want 1 and 1", cleared, failed)
	}
	if !p.Messages[3].Calls[2].BadJSON || p.Messages[3].Calls[0].Args != "{\n  \"city\": \"Tokyo\"\n}" {
		t.Errorf("calls %+v", p.Messages[3].Calls)
	}
	// Three model calls, three tool calls; the hour between the run and
	// its continuation is cut.
	tl := p.Timeline
	if tl == nil || len(tl.Bars) != 6 || len(tl.Gaps) != 1 || tl.Lanes != 3 {
		t.Fatalf("timeline %+v", tl)
	}
	if len(p.Chart.Bars) != 3 || p.Chart.Max != "208" {
		t.Errorf("chart %d bars, max %s", len(p.Chart.Bars), p.Chart.Max)
	}
	c := p.Chart.Bars[1]
	if c.CachedH <= 0 || c.InH <= 0 || c.OutH <= 0 || c.OutY+c.OutH != c.InY || c.InY+c.InH != c.CachedY || c.CachedY+c.CachedH != chartHeight {
		t.Errorf("stacked bar %+v", c)
	}
	if len(p.Steps) != 3 || p.Steps[1].Calls != "w, w, w" || p.Steps[1].Errors != 1 || p.Steps[1].Cached != "64" {
		t.Errorf("steps %+v", p.Steps)
	}
	if p.Outcome.Reason != "stop" || p.Outcome.Calls != 3 || p.Outcome.Errored != 1 || p.Outcome.Wall != "3.10s" {
		t.Errorf("outcome %+v", p.Outcome)
	}
}

func TestRenderEscapesEverything(t *testing.T) {
	hostile := `<script>alert(1)</script>"'&`
	esc := func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }
	src := strings.NewReplacer("HOSTILE", esc(hostile)).Replace(`{"type":"header","version":1,"id":"HOSTILE","time":"2026-03-01T10:00:00Z","provider":"openai","model":"HOSTILE","system":"HOSTILE","tools":[{"type":"function","function":{"name":"HOSTILE"}}]}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":"HOSTILE"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":"HOSTILE","tool_calls":[{"id":"HOSTILE","type":"function","function":{"name":"HOSTILE","arguments":"HOSTILE"}}]},"latency_ms":10,"finish_reason":"HOSTILE"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"HOSTILE","content":"HOSTILE"},"results":[{"call_id":"HOSTILE","name":"HOSTILE","exit_code":1,"duration_ms":5,"truncated":false,"is_error":true,"error":"HOSTILE"}]}
{"type":"end","time":"2026-03-01T10:00:03Z","reason":"HOSTILE","error":"HOSTILE","steps":1,"usage":{"input_tokens":1,"output_tokens":1}}
`)
	out := render(t, read(t, src))
	if n := strings.Count(out, "<script"); n != 1 {
		t.Errorf("%d <script elements, want only the page's own", n)
	}
	if strings.Contains(out, "alert(1)</script>") {
		t.Errorf("the hostile text reached the page unescaped")
	}
	if n := strings.Count(out, "&lt;script&gt;alert(1)&lt;/script&gt;"); n < 10 {
		t.Errorf("the hostile text is shown escaped %d times, want every field", n)
	}
}

func TestRenderPolicyAllowsOnlyItsScript(t *testing.T) {
	out := render(t, read(t, sample))
	m := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("no script")
	}
	sum := sha256.Sum256([]byte(m[1]))
	want := "script-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	policy := html.UnescapeString(regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(out)[1])
	if !strings.Contains(policy, want) || !strings.HasPrefix(policy, "default-src 'none'") {
		t.Errorf("the security policy %q does not allow exactly the page's script (%s)", policy, want)
	}
	// The page shows no picture: nothing else is allowed (img-src data:
	// let a data: URL, an SVG among them, be drawn had markup got in).
	for _, d := range strings.Split(policy, ";") {
		f := strings.Fields(d)
		if len(f) == 0 || f[0] == "script-src" || f[0] == "style-src" {
			continue
		}
		if len(f) != 2 || f[1] != "'none'" {
			t.Errorf("the security policy allows %q", strings.TrimSpace(d))
		}
	}
	for _, bad := range []string{"http://", "https://", "src=", "@import", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("the page refers to something outside itself: %q", bad)
		}
	}
}

func TestRenderWithoutHeaderOrTimes(t *testing.T) {
	conv := read(t, `{"role":"user","content":"hi"}
{"role":"assistant","content":"hello"}
`)
	out := render(t, conv)
	if strings.Contains(out, `id="timeline-h"`) || strings.Contains(out, `id="tokens-h"`) {
		t.Error("a log without times or usage drew a timeline or a chart")
	}
	if !strings.Contains(out, "hello") || !strings.Contains(out, "no header") {
		t.Error("the messages or the format are missing")
	}
}

func TestRenderNeedsItsOptions(t *testing.T) {
	if err := Render(context.Background(), &bytes.Buffer{}, read(t, sample), Options{}); err == nil {
		t.Fatal("Render without a Dialect and Safe succeeded")
	}
}

// An interrupted turn: the call that finished is drawn where its result
// record says it ended, and shown with the results not yet sent; the call
// still running when the run stopped has no result.
func TestBuildInterruptedTurn(t *testing.T) {
	src := `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"run","provider":"openai","model":"m","parallel":8}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":"wait and mark"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_wait","type":"function","function":{"name":"wait","arguments":"{}"}},{"id":"call_mark","type":"function","function":{"name":"mark","arguments":"{}"}}]},"latency_ms":1000,"finish_reason":"tool_calls"}
{"type":"result","step":1,"time":"2026-03-01T10:00:03Z","call_id":"call_mark","name":"mark","exit_code":0,"duration_ms":500,"truncated":false,"is_error":false,"content":"marked\n"}
{"type":"end","time":"2026-03-01T10:00:05Z","reason":"interrupted","error":"interrupted","steps":1,"usage":{"input_tokens":0,"output_tokens":0}}
`
	conv := read(t, src)
	b := &builder{conv: conv, d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 8}
	p, err := b.build(context.Background(), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	last := p.Messages[len(p.Messages)-1]
	if last.Role != "not yet sent" || len(last.Results) != 1 || last.Results[0].Name != "mark" || !strings.Contains(last.Head, "no result yet: wait call_wait") {
		t.Fatalf("last message %+v", last)
	}
	var tool *Span
	for i := range b.spans {
		if b.spans[i].Kind == SpanTool {
			tool = &b.spans[i]
		}
	}
	if tool == nil || !tool.End.Equal(time.Date(2026, 3, 1, 10, 0, 3, 0, time.UTC)) || tool.Duration() != 500*time.Millisecond {
		t.Fatalf("tool span %+v", tool)
	}
	if p.Outcome.Tone != toneWarn || p.Outcome.Reason != "interrupted" || !strings.Contains(p.Outcome.Why, "replay --resume") {
		t.Errorf("outcome %+v", p.Outcome)
	}
}

// Results of an MCP server name it; the pictures Chat Completions gets in
// a user message after the tool messages are drawn as part of the results
// (described, not shown), not as a new prompt.
func TestBuildMCPResultsAndImages(t *testing.T) {
	src := `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"run","provider":"openai","model":"m"}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":"draw"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_3","type":"function","function":{"name":"fake_image","arguments":"{}"}}]},"latency_ms":1000,"finish_reason":"tool_calls"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"call_3","content":"a red square\n[image: image/png, 68 bytes; it follows in the user message after the tool results, as a tool message takes text only]"},"results":[{"call_id":"call_3","name":"fake_image","exit_code":0,"duration_ms":5,"truncated":false,"is_error":false,"source":"mcp","server":"fake"}]}
{"type":"message","seq":4,"step":1,"time":"2026-03-01T10:00:02Z","message":{"role":"user","content":[{"type":"text","text":"Image 1 of the result of tool call call_3 (fake_image):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}}]},"images_of":["call_3"]}
{"type":"message","seq":5,"step":2,"time":"2026-03-01T10:00:03Z","message":{"role":"assistant","content":"A red square."},"latency_ms":1000,"finish_reason":"stop"}
{"type":"end","time":"2026-03-01T10:00:03Z","reason":"stop","steps":2,"usage":{"input_tokens":0,"output_tokens":0}}
`
	b := &builder{conv: read(t, src), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 1}
	p, err := b.build(context.Background(), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "draw" || len(p.Messages) != 5 {
		t.Fatalf("title %q, %d messages", p.Title, len(p.Messages))
	}
	// An MCP tool has no exit code: the server and the tool say what
	// answered, the badge ok or error.
	if r := p.Messages[2].Results[0]; !strings.Contains(r.Info, "MCP fake/fake_image") || strings.Contains(r.Info, "exit") || r.State != "ok" {
		t.Errorf("result %q (%s) does not say the server and the tool, or says an exit code", r.Info, r.State)
	}
	im := p.Messages[3]
	if im.Role != "tool images" || im.Class != "role-tool" || !strings.Contains(im.Head, "images of call_3") {
		t.Errorf("images message drawn as %q (%s): %q", im.Role, im.Class, im.Head)
	}
	if want := "Image 1 of the result of tool call call_3 (fake_image):\n[image: image/png, 70 bytes]"; im.Text != want {
		t.Errorf("images text %q, want %q", im.Text, want)
	}
	if out := render(t, read(t, src)); strings.Contains(out, "iVBORw0KGgo") {
		t.Error("the page carries the image's bytes")
	}
	if len(p.Steps) != 2 {
		t.Errorf("%d steps, want 2 (the images are no new prompt)", len(p.Steps))
	}
}

// agentloop keeps a cleared result whole and records the clearing on the
// turn whose request first carried it cleared: the page marks the result
// from that record, as --show does, and says so on the turn.
func TestBuildMarksClearedResults(t *testing.T) {
	src := `{"type":"header","version":1,"id":"c","time":"2026-03-01T10:00:00Z","command":"run","provider":"openai","model":"m","context":{"limit":3000,"keep":1,"editing":"client"}}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00Z","message":{"role":"user","content":"read"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"page","arguments":"{}"}}]},"latency_ms":10,"finish_reason":"tool_calls"}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:01Z","message":{"role":"tool","tool_call_id":"c1","content":"page one, whole"},"results":[{"call_id":"c1","name":"page","exit_code":0,"duration_ms":1,"truncated":false,"is_error":false}]}
{"type":"message","seq":4,"step":2,"time":"2026-03-01T10:00:02Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c2","type":"function","function":{"name":"page","arguments":"{}"}}]},"latency_ms":10,"finish_reason":"tool_calls"}
{"type":"message","seq":5,"step":2,"time":"2026-03-01T10:00:02Z","message":{"role":"tool","tool_call_id":"c2","content":"page two, whole"},"results":[{"call_id":"c2","name":"page","exit_code":0,"duration_ms":1,"truncated":false,"is_error":false}]}
{"type":"message","seq":6,"step":3,"time":"2026-03-01T10:00:03Z","message":{"role":"assistant","content":"Two pages."},"latency_ms":10,"finish_reason":"stop","cleared":[{"call_id":"c1","name":"page","seq":3,"bytes":2432,"placeholder":"[cleared to save context: 2.4 KB from page; call it again if you need it]"}]}
{"type":"end","time":"2026-03-01T10:00:03Z","reason":"stop","steps":3,"usage":{"input_tokens":1,"output_tokens":1}}
`
	b := &builder{conv: read(t, src), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 1}
	p, err := b.build(context.Background(), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Messages[2].Results[0]; !r.Cleared || r.ClearedNote != "cleared from step 3 on" || r.Content != "page one, whole" {
		t.Errorf("the cleared result: %+v", r)
	}
	if r := p.Messages[4].Results[0]; r.Cleared || r.ClearedNote != "" {
		t.Errorf("a result never cleared is marked: %+v", r)
	}
	if got := strings.Join(p.Messages[5].Blocks, "\n"); got != "cleared from this request on: page c1 (2.4 KB)" {
		t.Errorf("the turn that cleared it says %q", got)
	}
	if out := render(t, read(t, src)); !strings.Contains(out, `<span class="badge cleared">cleared from step 3 on</span>`) {
		t.Error("the page does not mark the cleared result")
	}
}

// How a run ended, in words: a budget or an interrupt stopped it without
// failing (not drawn as an error), an error or a cut-off answer failed it.
func TestOutcomeExplainsEveryReason(t *testing.T) {
	want := map[string]string{
		wire.ReasonStop: toneOK, wire.ReasonMaxSteps: toneWarn, wire.ReasonBudget: toneWarn,
		wire.ReasonContext: toneWarn, wire.ReasonInterrupted: toneWarn, wire.ReasonMaxTokens: toneErr,
		wire.ReasonRefusal: toneErr, wire.ReasonError: toneErr, wire.ReasonSchema: toneErr, "<b>made up</b>": toneErr,
	}
	for _, reason := range wire.Reasons {
		if _, ok := want[reason]; !ok {
			t.Errorf("end reason %q has no tone in this test", reason)
		}
	}
	for reason, tone := range want {
		src := strings.Replace(sample, `"reason":"stop"`, `"reason":"`+reason+`"`, 1)
		b := &builder{conv: read(t, src), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 1}
		p, err := b.build(context.Background(), "t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if p.Outcome.Tone != tone || p.Outcome.Why == "" {
			t.Errorf("%s: tone %q (%q), want %q", reason, p.Outcome.Tone, p.Outcome.Why, tone)
		}
	}
	b := &builder{conv: read(t, strings.Replace(sample, `"reason":"stop"`, `"reason":"context"`, 1)), d: agent.OpenAIDialect{}, safe: mark, provider: "openai", parallel: 1}
	p, _ := b.build(context.Background(), "t.jsonl")
	if !strings.Contains(p.Outcome.Why, "--context-limit") {
		t.Errorf("a context stop says %q", p.Outcome.Why)
	}
	out := render(t, read(t, strings.Replace(sample, `"reason":"stop"`, `"reason":"context"`, 1)))
	if !strings.Contains(out, `<section class="outcome warn"`) || !strings.Contains(out, `<p class="why">The context limit`) {
		t.Error("the page draws a context stop otherwise than as a warning with its reason")
	}
}

// The tokens chart spreads its bars over its whole width, however few.
func TestChartUsesItsWidth(t *testing.T) {
	for _, n := range []int{1, 2, 3, 40} {
		c := &chartView{}
		for i := range n {
			c.Bars = append(c.Bars, chartBar{InH: float64(100 * (i + 1)), OutH: 10})
		}
		c.scale()
		last := c.Bars[len(c.Bars)-1]
		if used := float64(last.X+8) / float64(c.Width); used < 0.8 {
			t.Errorf("%d bars fill %.0f%% of the chart's width", n, used*100)
		}
	}
}

// stopAfter cancels its context at its first write, as an interrupt that
// comes while the page is written.
type stopAfter struct {
	bytes.Buffer
	cancel context.CancelCauseFunc
}

var errStop = errors.New("stopped")

func (s *stopAfter) Write(p []byte) (int, error) {
	s.cancel(errStop)
	return s.Buffer.Write(p)
}

// Render stops at an interrupt: before the page is laid out, or while it
// is written, with the interrupt's cause.
func TestRenderStopsWhenCancelled(t *testing.T) {
	conv := read(t, sample)
	opts := Options{Name: "t.jsonl", Dialect: agent.OpenAIDialect{}, Safe: mark}
	ctx, cancel := context.WithCancelCause(context.Background())
	w := &stopAfter{cancel: cancel}
	if err := Render(ctx, w, conv, opts); !errors.Is(err, errStop) {
		t.Fatalf("Render interrupted while writing returned %v", err)
	}
	var whole bytes.Buffer
	if err := Render(context.Background(), &whole, conv, opts); err != nil {
		t.Fatal(err)
	}
	if w.Len() >= whole.Len() {
		t.Errorf("the page was written whole (%d bytes) after the interrupt", w.Len())
	}
	var none bytes.Buffer
	if err := Render(ctx, &none, conv, opts); !errors.Is(err, errStop) || none.Len() != 0 {
		t.Errorf("Render after the interrupt: %v, %d bytes", err, none.Len())
	}
}

// The first line of a long text is cut without converting the whole of it:
// a result of one line of megabytes costs the page what it shows of it.
func TestFirstLineOfALongLine(t *testing.T) {
	long := "\xff" + strings.Repeat("é", 1<<20) + "\nsecond"
	if got, want := firstLine(long, 4), "\ufffdéé…"; got != want {
		t.Fatalf("firstLine = %q, want %q", got, want)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	firstLine(long, 160)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("the first line of a %d-byte line cost %d bytes", len(long), n)
	}
}
