package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/replay"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// tools is an Executor whose tools answer from a table; it counts the calls
// it ran.
type tools struct {
	mu    sync.Mutex
	fns   map[string]func() agent.ToolResult
	calls []string
}

func (f *tools) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	f.mu.Lock()
	f.calls = append(f.calls, callID)
	f.mu.Unlock()
	fn, ok := f.fns[name]
	if !ok {
		return agent.ToolResult{IsError: true, Kind: wire.KindUnknownTool, ExitCode: -1, Content: fmt.Sprintf("unknown tool %q", name)}
	}
	return fn()
}

func ok(s string) func() agent.ToolResult {
	return func() agent.ToolResult { return agent.ToolResult{Content: s} }
}

// conversation writes an OpenAI transcript: a prompt, one turn calling
// each call given, their results, and a final answer.
type call struct {
	id, name string
	content  string
	isError  bool
	kind     string
}

func conversation(t *testing.T, calls []call, answer string) *transcript.Conversation {
	t.Helper()
	var b bytes.Buffer
	w := transcript.NewWriter(&b, nil)
	if err := w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	d := agent.OpenAIDialect{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteMessage(transcript.Message{Message: d.UserMessage("go")}))
	var tc []map[string]any
	for _, c := range calls {
		tc = append(tc, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": "{}"}})
	}
	turn, _ := json.Marshal(map[string]any{"role": "assistant", "content": nil, "tool_calls": tc})
	must(w.WriteMessage(transcript.Message{Step: 1, Message: turn, FinishReason: "tool_calls"}))
	var results []agent.CallResult
	for _, c := range calls {
		results = append(results, agent.CallResult{Call: agent.Call{ID: c.id, Name: c.name},
			Result: agent.ToolResult{Content: c.content, IsError: c.isError, Kind: c.kind}})
	}
	msgs, err := d.ResultMessages(results)
	must(err)
	for i, m := range msgs {
		c := calls[i]
		must(w.WriteMessage(transcript.Message{Step: 1, Message: m.Message, Results: []transcript.Result{
			{CallID: c.id, Name: c.name, IsError: c.isError, Error: c.kind}}}))
	}
	final, _ := json.Marshal(map[string]any{"role": "assistant", "content": answer})
	must(w.WriteMessage(transcript.Message{Step: 2, Message: final, FinishReason: "stop"}))
	must(w.WriteEnd(transcript.End{Reason: wire.ReasonStop, Steps: 2}))
	convs, err := transcript.ReadConversations(&b)
	must(err)
	return convs[0]
}

func statuses(rows []replay.Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, r.ID+":"+string(r.Status))
	}
	return strings.Join(s, " ")
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		calls    []call
		fns      map[string]func() agent.ToolResult
		loaded   func(string) bool
		ignore   []*regexp.Regexp
		want     string
		ran      string // the call ids the tools ran
		diverged bool
	}{
		{name: "same", calls: []call{{id: "a", name: "echo", content: "hi"}}, fns: map[string]func() agent.ToolResult{"echo": ok("hi")},
			want: "a:same", ran: "a"},
		{name: "different", calls: []call{{id: "a", name: "echo", content: "hi"}}, fns: map[string]func() agent.ToolResult{"echo": ok("bye")},
			want: "a:DIFFERENT", ran: "a", diverged: true},
		{name: "ignored difference", calls: []call{{id: "a", name: "clock", content: "12:00:01"}}, fns: map[string]func() agent.ToolResult{"clock": ok("12:59:59")},
			ignore: []*regexp.Regexp{regexp.MustCompile(`\d\d:\d\d:\d\d`)}, want: "a:same", ran: "a"},
		{name: "now an error", calls: []call{{id: "a", name: "echo", content: "hi"}},
			fns: map[string]func() agent.ToolResult{"echo": func() agent.ToolResult {
				return agent.ToolResult{IsError: true, Kind: wire.KindExit, Content: "exit 1"}
			}},
			want: "a:now an error", ran: "a", diverged: true},
		{name: "missing tool", calls: []call{{id: "a", name: "gone", content: "hi"}}, loaded: func(string) bool { return false },
			want: "a:missing tool", ran: "a", diverged: true},
		{name: "skipped for want of approval", calls: []call{{id: "a", name: "rm", content: "removed"}},
			fns:  map[string]func() agent.ToolResult{"rm": func() agent.ToolResult { return agent.ToolResult{IsError: true, Kind: wire.KindSkipped} }},
			want: "a:skipped", ran: "a"},
		{name: "denied in the recording is not run", calls: []call{
			{id: "a", name: "rm", content: "not run: the user declined this call to rm", isError: true, kind: wire.KindDenied},
			{id: "b", name: "rm", content: "not replayed: rm needs a person's approval", isError: true, kind: wire.KindSkipped},
			{id: "c", name: "echo", content: "hi"},
		}, fns: map[string]func() agent.ToolResult{"rm": ok("removed"), "echo": ok("hi")},
			want: "a:not run b:not run c:same", ran: "c"},
		{name: "a recorded failure that ran is run", calls: []call{{id: "a", name: "rm", content: "exit 1", isError: true, kind: wire.KindExit}},
			fns: map[string]func() agent.ToolResult{"rm": func() agent.ToolResult {
				return agent.ToolResult{IsError: true, Kind: wire.KindExit, Content: "exit 1"}
			}},
			want: "a:same", ran: "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv := conversation(t, tt.calls, "done")
			ex := &tools{fns: tt.fns}
			res, err := replay.Run(context.Background(), conv, replay.Options{Tools: ex, Loaded: tt.loaded, Ignore: tt.ignore, Parallel: 1})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(res.Rows); got != tt.want {
				t.Errorf("rows %s, want %s", got, tt.want)
			}
			if got := strings.Join(ex.calls, " "); got != tt.ran {
				t.Errorf("ran %q, want %q", got, tt.ran)
			}
			if res.Diverged() != tt.diverged {
				t.Errorf("diverged %v, want %v", res.Diverged(), tt.diverged)
			}
			if res.Answer != "done" {
				t.Errorf("answer %q", res.Answer)
			}
			for _, r := range res.Rows {
				if (len(r.Diff) > 0) != r.Status.Diverged() {
					t.Errorf("%s: %s with diff %q", r.ID, r.Status, r.Diff)
				}
				if r.Status == replay.NotRun && !wire.NotRun(r.Recorded) {
					t.Errorf("%s: not run, recorded as %q", r.ID, r.Recorded)
				}
			}
		})
	}
}

// The rows follow the order the calls were made, whatever order they
// finish in, and a diff shows the recorded and the fresh text.
func TestRunRowsInCallOrder(t *testing.T) {
	var calls []call
	fns := map[string]func() agent.ToolResult{}
	for i := range 6 {
		name := fmt.Sprintf("t%d", i)
		calls = append(calls, call{id: fmt.Sprintf("c%d", i), name: name, content: "old"})
		fns[name] = ok("new")
	}
	res, err := replay.Run(context.Background(), conversation(t, calls, "done"), replay.Options{Tools: &tools{fns: fns}, Parallel: 6})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Rows {
		if r.Index != i || r.Step != 1 || r.ID != fmt.Sprintf("c%d", i) {
			t.Errorf("row %d: %+v", i, r)
		}
		if !bytes.Contains(r.Diff, []byte("-old\n+new\n")) {
			t.Errorf("diff %q", r.Diff)
		}
	}
}

// With a transcript, the replay records every message and an end record,
// and the calls it did not run are answered as the recording answered
// them.
func TestRunRecords(t *testing.T) {
	conv := conversation(t, []call{
		{id: "a", name: "rm", content: "not run: the user declined this call to rm", isError: true, kind: wire.KindDenied},
		{id: "b", name: "echo", content: "hi"},
	}, "done")
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	if err := w.WriteHeader(transcript.Header{Command: "replay", Provider: "openai"}); err != nil {
		t.Fatal(err)
	}
	if _, err := replay.Run(context.Background(), conv, replay.Options{Tools: &tools{fns: map[string]func() agent.ToolResult{"echo": ok("hi")}}, Transcript: w}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`"error":"denied"`, `not run: the user declined this call to rm`, `"content":"hi"`, `"type":"end"`, `"reason":"stop"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the replay's transcript has no %s:\n%s", want, out)
		}
	}
	var findings []transcript.Finding
	if _, err := transcript.Validate("replay.jsonl", strings.NewReader(out), transcript.Options{}, func(f transcript.Finding) { findings = append(findings, f) }); err != nil || len(findings) > 0 {
		t.Errorf("the replay's transcript does not validate: %v %v", err, findings)
	}
}

// An interrupt stops the replay; its transcript ends "interrupted".
func TestRunInterrupted(t *testing.T) {
	conv := conversation(t, []call{{id: "a", name: "echo", content: "hi"}}, "done")
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	if err := w.WriteHeader(transcript.Header{Command: "replay", Provider: "openai"}); err != nil {
		t.Fatal(err)
	}
	ex := &tools{fns: map[string]func() agent.ToolResult{"echo": func() agent.ToolResult { cancel(stop); return agent.ToolResult{Content: "hi"} }}}
	_, err := replay.Run(ctx, conv, replay.Options{Tools: ex, Transcript: w})
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the cause", err)
	}
	if !strings.Contains(buf.String(), `"reason":"interrupted"`) {
		t.Errorf("end record:\n%s", buf.String())
	}
}

func TestStatusDiverged(t *testing.T) {
	for _, s := range replay.Statuses {
		want := s == replay.Different || s == replay.Missing || s == replay.NowError
		if s.Diverged() != want {
			t.Errorf("%s: Diverged %v", s, !want)
		}
	}
}

// A Responses recording: each turn is a run of output items (reasoning,
// text, calls) that the replay plays back whole; a user's follow-up between
// turns goes back in where it was; the calls of each turn are re-run under
// its step.
func TestRunResponsesTurns(t *testing.T) {
	d := agent.ResponsesDialect{}
	items := []struct {
		step    int
		msg     string
		finish  string
		results []transcript.Result
	}{
		{0, `{"role":"user","content":"go"}`, "", nil},
		{1, `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAAB1"}`, "", nil},
		{1, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]}`, "", nil},
		{1, `{"type":"function_call","call_id":"a","name":"echo","arguments":"{}"}`, "", nil},
		{1, `{"type":"function_call","call_id":"b","name":"echo","arguments":"{}"}`, "completed", nil},
		{1, `{"type":"function_call_output","call_id":"a","output":"hi"}`, "", []transcript.Result{{CallID: "a", Name: "echo"}}},
		{1, `{"type":"function_call_output","call_id":"b","output":"hi"}`, "", []transcript.Result{{CallID: "b", Name: "echo"}}},
		{2, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Both said hi."}]}`, "completed", nil},
		{2, `{"role":"user","content":"again?"}`, "", nil},
		{3, `{"type":"reasoning","id":"rs_3","summary":[],"encrypted_content":"gAAAAAB3"}`, "", nil},
		{3, `{"type":"function_call","call_id":"a","name":"echo","arguments":"{}"}`, "completed", nil},
		{3, `{"type":"function_call_output","call_id":"a","output":"bye"}`, "", []transcript.Result{{CallID: "a", Name: "echo"}}},
		{4, `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}`, "completed", nil},
	}
	var b bytes.Buffer
	w := transcript.NewWriter(&b, nil)
	if err := w.WriteHeader(transcript.Header{Provider: "responses", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if err := w.WriteMessage(transcript.Message{Step: it.step, Message: json.RawMessage(it.msg), FinishReason: it.finish, Results: it.results}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteEnd(transcript.End{Reason: wire.ReasonStop, Steps: 4}); err != nil {
		t.Fatal(err)
	}
	convs, err := transcript.ReadConversations(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	out := transcript.NewWriter(&rec, nil)
	ex := &tools{fns: map[string]func() agent.ToolResult{"echo": ok("hi")}}
	res, err := replay.Run(context.Background(), convs[0], replay.Options{Tools: ex, Parallel: 1, Transcript: out})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range res.Rows {
		rows = append(rows, fmt.Sprintf("%d:%s:%s", r.Step, r.ID, r.Status))
	}
	if got := strings.Join(rows, " "); got != "1:a:same 1:b:same 3:a:DIFFERENT" {
		t.Errorf("rows %s", got)
	}
	if res.Answer != "done" {
		t.Errorf("answer %q", res.Answer)
	}
	// The replay's own transcript holds the same items in the same order.
	replayed, err := transcript.ReadConversations(bytes.NewReader(rec.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(replayed[0].Messages); n != len(items) {
		t.Fatalf("the replay recorded %d items, want %d", n, len(items))
	}
	for i, m := range replayed[0].Messages {
		if d.Role(m.Message) != d.Role(json.RawMessage(items[i].msg)) || m.Step != items[i].step {
			t.Errorf("item %d: step %d %s, want step %d %s", i, m.Step, m.Message, items[i].step, items[i].msg)
		}
	}
}

// A recording that stopped while a turn ran: result records hold the calls
// that finished. Their fresh results are compared with the records; a call
// the record says was not run is not run now; a call with no result at all
// is run and reported as not recorded.
func TestRunRecordingWithResultRecords(t *testing.T) {
	var b bytes.Buffer
	w := transcript.NewWriter(&b, nil)
	if err := w.WriteHeader(transcript.Header{Provider: "anthropic", Model: "m"}); err != nil {
		t.Fatal(err)
	}
	d := agent.AnthropicDialect{}
	turn := `{"role":"assistant","content":[` +
		`{"type":"tool_use","id":"wait","name":"wait","input":{}},` +
		`{"type":"tool_use","id":"mark","name":"mark","input":{}},` +
		`{"type":"tool_use","id":"rm","name":"rm","input":{}}]}`
	for _, err := range []error{
		w.WriteMessage(transcript.Message{Message: d.UserMessage("go")}),
		w.WriteMessage(transcript.Message{Step: 1, Message: json.RawMessage(turn), FinishReason: "tool_use"}),
		w.WriteResult(transcript.CallResult{Step: 1, Result: transcript.Result{CallID: "mark", Name: "mark"}, Content: "marked"}),
		w.WriteResult(transcript.CallResult{Step: 1, Result: transcript.Result{CallID: "rm", Name: "rm", ExitCode: -1, IsError: true, Error: wire.KindDenied},
			Content: "not run: the user declined this call to rm"}),
		w.WriteEnd(transcript.End{Reason: wire.ReasonInterrupted, Steps: 1}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	convs, err := transcript.ReadConversations(&b)
	if err != nil {
		t.Fatal(err)
	}
	ex := &tools{fns: map[string]func() agent.ToolResult{"wait": ok("waited"), "mark": ok("marked"), "rm": ok("removed")}}
	res, err := replay.Run(context.Background(), convs[0], replay.Options{Tools: ex})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res.Rows); got != "wait:not recorded mark:same rm:not run" {
		t.Errorf("rows %s", got)
	}
	if got := strings.Join(ex.calls, " "); got != "wait mark" && got != "mark wait" {
		t.Errorf("ran %q, want wait and mark", got)
	}
	if res.Diverged() {
		t.Error("diverged")
	}
}

// A result with an image is compared by its text, which names each image
// by its type and size: on Chat Completions the image itself is in a user
// message after the tool messages, and that message is put back where it
// was.
func TestRunImages(t *testing.T) {
	image := func(n int) agent.ToolResult {
		return agent.ToolResult{Content: "a chart", Images: []agent.Image{{MIMEType: "image/png", Data: append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, n)...)}}}
	}
	var b bytes.Buffer
	w := transcript.NewWriter(&b, nil)
	d := agent.OpenAIDialect{}
	turn := json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"chart","arguments":"{}"}}]}`)
	final := json.RawMessage(`{"role":"assistant","content":"done"}`)
	msgs, err := d.ResultMessages([]agent.CallResult{{Call: agent.Call{ID: "a", Name: "chart"}, Result: image(10)}})
	if err != nil || len(msgs) != 2 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	for _, err := range []error{
		w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"}),
		w.WriteMessage(transcript.Message{Message: d.UserMessage("go")}),
		w.WriteMessage(transcript.Message{Step: 1, Message: turn, FinishReason: "tool_calls"}),
		w.WriteMessage(transcript.Message{Step: 1, Message: msgs[0].Message, Results: []transcript.Result{{CallID: "a", Name: "chart"}}}),
		w.WriteMessage(transcript.Message{Step: 1, Message: msgs[1].Message, ImagesOf: []string{"a"}}),
		w.WriteMessage(transcript.Message{Step: 2, Message: final, FinishReason: "stop"}),
		w.WriteEnd(transcript.End{Reason: wire.ReasonStop, Steps: 2}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		size int
		want string
	}{{10, "a:same"}, {11, "a:DIFFERENT"}} {
		convs, err := transcript.ReadConversations(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rec := transcript.NewWriter(&out, nil)
		_ = rec.WriteHeader(transcript.Header{Provider: "openai", Model: "m"})
		res, err := replay.Run(context.Background(), convs[0], replay.Options{
			Tools: &tools{fns: map[string]func() agent.ToolResult{"chart": func() agent.ToolResult { return image(tt.size) }}}, Transcript: rec,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(res.Rows); got != tt.want {
			t.Errorf("image of %d bytes: %s, want %s", tt.size, got, tt.want)
		}
		if n := strings.Count(out.String(), "data:image/png;base64,"); n != 1 {
			t.Errorf("the replay's transcript holds %d images, want 1:\n%s", n, out.String())
		}
	}
}

// The calls of a turn that ended the run as it began (a refusal, an answer
// cut off by the output token limit) were answered without running; the
// replay does not run them either, and still gives each its row.
func TestRunCallsOfAnEndingTurn(t *testing.T) {
	for _, tc := range []struct{ name, finish, end, kind, meta string }{
		{name: "refusal", finish: "refusal", end: "refusal", kind: wire.KindDeclined,
			meta: `,"results":[{"call_id":"a","name":"echo","is_error":true,"error":"declined"},{"call_id":"b","name":"echo","is_error":true,"error":"declined"}]`},
		{name: "max tokens", finish: "max_tokens", end: "max_tokens", kind: wire.KindDeclined,
			meta: `,"results":[{"call_id":"a","name":"echo","is_error":true,"error":"declined"},{"call_id":"b","name":"echo","is_error":true,"error":"declined"}]`},
		{name: "no metadata", finish: "max_tokens", end: "max_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"type":"header","version":1,"provider":"anthropic","model":"m"}
{"type":"message","seq":1,"step":0,"message":{"role":"user","content":[{"type":"text","text":"go"}]}}
{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"Let me."},{"type":"tool_use","id":"a","name":"echo","input":{}},{"type":"tool_use","id":"b","name":"echo","input":{}}]},"finish_reason":"` + tc.finish + `"}
{"type":"message","seq":3,"step":1,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":true,"content":"not run"},{"type":"tool_result","tool_use_id":"b","is_error":true,"content":"not run"}]}` + tc.meta + `}
{"type":"end","reason":"` + tc.end + `","steps":1}
`
			convs, err := transcript.ReadConversations(strings.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			f := &tools{fns: map[string]func() agent.ToolResult{"echo": ok("hi")}}
			res, err := replay.Run(context.Background(), convs[0], replay.Options{Tools: f})
			if err != nil {
				t.Fatal(err)
			}
			if got := statuses(res.Rows); got != "a:not run b:not run" {
				t.Errorf("rows %q, want both calls not run", got)
			}
			for _, r := range res.Rows {
				if r.Recorded != tc.kind || r.Step != 1 {
					t.Errorf("row %+v: want step 1, recorded kind %q", r, tc.kind)
				}
			}
			if res.Diverged() || len(f.calls) > 0 {
				t.Errorf("diverged %v, ran %v: nothing should run or diverge", res.Diverged(), f.calls)
			}
		})
	}
}

// A replay prints the answer the recorded run printed: the model's own, a
// refusal, one cut off by max_tokens, one a budget asked for; none when
// the run stopped without one.
func TestRunAnswerAsTheRunPrintedIt(t *testing.T) {
	const user = `{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"go"}}` + "\n"
	const calls = `{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":[{"type":"text","text":"Calling."},{"type":"tool_use","id":"a","name":"echo","input":{}}]},"finish_reason":"%s"}` + "\n" +
		`{"type":"message","seq":3,"step":1,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"hi"}]},"results":[{"call_id":"a","name":"echo","is_error":%s,"error":"%s"}]}` + "\n"
	const text = `{"type":"message","seq":4,"step":2,"message":{"role":"assistant","content":[{"type":"text","text":"%s"}]},"finish_reason":"%s"%s}` + "\n"
	const end = `{"type":"end","reason":"%s","steps":2}` + "\n"
	ran := fmt.Sprintf(calls, "tool_use", "false", "")
	for _, tc := range []struct{ name, body, want string }{
		{"answered", ran + fmt.Sprintf(text, "Done.", "end_turn", "") + fmt.Sprintf(end, "stop"), "Done."},
		{"refused", ran + fmt.Sprintf(text, "I won't.", "refusal", "") + fmt.Sprintf(end, "refusal"), "I won't."},
		{"cut off", ran + fmt.Sprintf(text, "The answer is", "max_tokens", "") + fmt.Sprintf(end, "max_tokens"), "The answer is"},
		{"cut off in a call", fmt.Sprintf(calls, "max_tokens", "true", "declined") + fmt.Sprintf(end, "max_tokens"), "Calling."},
		{"a budget's answer", ran + fmt.Sprintf(text, "So far: hi.", "end_turn", `,"tool_choice":"none"`) + fmt.Sprintf(end, "max_steps"), "So far: hi."},
		{"no answer asked for", ran + fmt.Sprintf(end, "max_steps"), ""},
		{"interrupted", ran + fmt.Sprintf(end, "interrupted"), ""},
		{"paused, killed before the end record", ran + fmt.Sprintf(text, "Searching.", "pause_turn", ""), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"type":"header","version":1,"provider":"anthropic","model":"m"}` + "\n" + user + tc.body
			convs, err := transcript.ReadConversations(strings.NewReader(src))
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Run(context.Background(), convs[0], replay.Options{Tools: &tools{fns: map[string]func() agent.ToolResult{"echo": ok("hi")}}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Answer != tc.want {
				t.Errorf("answer %q, want %q", res.Answer, tc.want)
			}
		})
	}
}

// The replayed answer is checked against the schema the header records:
// after a retry the recording put back, and for a run that gave up.
func TestRunAnswerAgainstTheRecordedSchema(t *testing.T) {
	const header = `{"type":"header","version":1,"provider":"openai","model":"m","answer_schema":{"schema":{"type":"object","properties":{"temp":{"type":"integer"}},"required":["temp"]},"mode":"native","retries":1}}` + "\n"
	const user = `{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"go"}}` + "\n"
	answer := func(seq, step int, text string) string {
		return fmt.Sprintf(`{"type":"message","seq":%d,"step":%d,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}`+"\n", seq, step, text)
	}
	const feedback = `{"type":"message","seq":3,"step":1,"message":{"role":"user","content":"Your answer did not match the JSON schema it must follow:\n- /temp: got string, want integer"}}` + "\n"
	for _, tc := range []struct {
		name, body string
		ok         bool
		problem    string
	}{
		{"right after a retry", answer(2, 1, `{"temp":"21"}`) + feedback + answer(4, 2, `{"temp":21}`) + `{"type":"end","reason":"stop","steps":2}` + "\n", true, ""},
		{"gave up", answer(2, 1, `{"temp":"21"}`) + feedback + answer(4, 2, `It is 21.`) + `{"type":"end","reason":"schema","steps":2}` + "\n", false, "the answer is not JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			convs, err := transcript.ReadConversations(strings.NewReader(header + user + tc.body))
			if err != nil {
				t.Fatal(err)
			}
			res, err := replay.Run(context.Background(), convs[0], replay.Options{Tools: &tools{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Schema == nil || res.Schema.OK != tc.ok {
				t.Fatalf("conformance %+v, want ok %v", res.Schema, tc.ok)
			}
			if !tc.ok && (len(res.Schema.Problems) != 1 || !strings.Contains(res.Schema.Problems[0], tc.problem)) {
				t.Errorf("problems %q, want one with %q", res.Schema.Problems, tc.problem)
			}
		})
	}
}
