package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// fuzzProvider is a model whose turns are decoded from fuzz input: tool
// calls with ids that may be empty or repeated, names that may be unknown
// or empty, arguments that may be anything; final answers, truncated and
// refused turns, paused turns and API errors. It checks every request it
// receives with the API's own pairing rules.
type fuzzProvider struct {
	agent.Dialect
	data  []byte
	turns int
	used  []string // ids of earlier turns
	check func([]json.RawMessage) error
	// violations are the requests that broke the API's rules.
	violations []string
}

func (p *fuzzProvider) Model() string { return "fuzz" }

func (p *fuzzProvider) next() byte {
	if len(p.data) == 0 {
		return 0
	}
	b := p.data[0]
	p.data = p.data[1:]
	return b
}

// text takes up to n bytes of input as a string (any bytes: the SDKs hand
// the loop valid UTF-8, and so does this).
func (p *fuzzProvider) text(n int) string {
	n = min(n, len(p.data))
	s := strings.ToValidUTF8(string(p.data[:n]), "?")
	p.data = p.data[n:]
	return s
}

func (p *fuzzProvider) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	if err := p.check(req.Messages); err != nil {
		p.violations = append(p.violations, fmt.Sprintf("request %d: %v", p.turns+1, err))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.turns++
	anthropic := p.Name() == "anthropic"
	kind := p.next()
	if len(p.data) == 0 {
		kind = 5 // out of input: answer
	}
	text := ""
	if kind&0x80 != 0 || kind%8 == 5 {
		text = "t" + p.text(int(p.next()%16))
	}
	stop := agent.StopToolUse
	ncalls := 1 + int(p.next()%4)
	switch kind % 8 {
	case 5:
		stop, ncalls = agent.StopEnd, 0
	case 6:
		stop = agent.StopMaxTokens
		if kind&0x40 != 0 {
			ncalls = 0
		}
	case 7:
		if anthropic && kind&0x40 != 0 {
			stop, ncalls, text = agent.StopPause, 0, "paused "+text
		} else {
			// A refusal says so; it may come with a call, not run.
			stop, ncalls, text = agent.StopRefusal, 0, "refused "+text
			if kind&0x20 != 0 {
				ncalls = 1
			}
		}
	case 4:
		if kind&0x40 != 0 {
			return nil, &agent.ProviderError{Provider: p.Name(), Status: 500, Message: "fuzzed failure"}
		}
	}
	type call = struct{ id, name, args string }
	var calls []call
	for i := range ncalls {
		c := call{id: fmt.Sprintf("call_%d_%d", p.turns, i)}
		switch b := p.next(); b % 8 {
		case 0:
			c.id = ""
		case 1:
			if i > 0 {
				c.id = calls[i-1].id // the same id twice in one turn
			}
		case 2:
			// An id of an earlier turn: OpenAI accepts it, Anthropic
			// (whose ids are unique per request) never sends one.
			if len(p.used) > 0 && !anthropic {
				c.id = p.used[int(b/8)%len(p.used)]
			}
		}
		c.name = []string{"echo", "fail", "nope", "panic", "", "echo"}[p.next()%6]
		switch p.next() % 6 {
		case 0:
			c.args = `{}`
		case 1:
			c.args = `{"a":1,"b":[true,null]}`
		case 2:
			c.args = "not json"
		case 3:
			c.args = ""
		case 4:
			c.args = `[1]`
		default:
			s, _ := json.Marshal(p.text(int(p.next() % 32)))
			c.args = `{"s":` + string(s) + `}`
		}
		calls = append(calls, c)
	}
	for _, c := range calls {
		if c.id != "" {
			p.used = append(p.used, c.id)
		}
	}

	if p.Name() == "responses" {
		return p.responsesTurn(kind, stop, text, calls)
	}
	var msg []byte
	if anthropic {
		var content []any
		if text != "" {
			content = append(content, map[string]any{"type": "text", "text": text})
		}
		for _, c := range calls {
			input := json.RawMessage(c.args)
			var obj map[string]any
			if json.Unmarshal(input, &obj) != nil || obj == nil {
				input = json.RawMessage(`{}`) // the API sends objects only
			}
			content = append(content, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": input})
		}
		msg, _ = json.Marshal(map[string]any{"role": "assistant", "content": content})
	} else {
		m := map[string]any{"role": "assistant", "content": nil}
		switch {
		case stop == agent.StopRefusal && ncalls == 0:
			m["refusal"] = text // as the API sends a refusal: content null
		case text != "":
			m["content"] = text
		}
		var tcs []any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		if len(tcs) > 0 {
			m["tool_calls"] = tcs
		}
		msg, _ = json.Marshal(m)
	}
	turn, err := p.ParseAssistant(msg)
	if err != nil {
		return nil, &agent.ProviderError{Provider: p.Name(), Message: err.Error()}
	}
	turn.Stop, turn.FinishReason = stop, string(stop)
	if stop == agent.StopRefusal {
		turn.Text = text
	}
	turn.Usage = transcript.Usage{InputTokens: 1, OutputTokens: 1}
	return turn, nil
}

// responsesTurn is a turn of output items: maybe a reasoning item, the
// text (or refusal) as a message, the calls.
func (p *fuzzProvider) responsesTurn(kind byte, stop agent.StopReason, text string, calls []struct{ id, name, args string }) (*agent.Turn, error) {
	var items []agent.Message
	add := func(v any) {
		b, _ := json.Marshal(v)
		items = append(items, b)
	}
	if kind&0x10 != 0 {
		add(map[string]any{"type": "reasoning", "id": fmt.Sprintf("rs_%d", p.turns), "summary": []any{}, "encrypted_content": "gAAAAAB" + fmt.Sprint(p.turns)})
	}
	switch {
	case stop == agent.StopRefusal:
		add(map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "refusal", "refusal": text}}})
	case text != "":
		add(map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}})
	}
	for _, c := range calls {
		add(map[string]any{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args})
	}
	if len(items) == 0 || (len(items) == 1 && kind&0x10 != 0 && stop != agent.StopMaxTokens) {
		// The API sends no empty completed response; one cut off in its
		// reasoning is what it is.
		add(map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "t"}}})
	}
	turn, err := agent.ParseTurn(p, items)
	if err != nil {
		return nil, &agent.ProviderError{Provider: p.Name(), Message: err.Error()}
	}
	if stop != agent.StopToolUse || len(calls) > 0 {
		turn.Stop = stop
	}
	turn.FinishReason = string(stop)
	turn.Usage = transcript.Usage{InputTokens: 1, OutputTokens: 1}
	return turn, nil
}

// fuzzExec answers calls without processes: echo, fail, panic, and the
// unknown rest.
type fuzzExec struct{}

func (fuzzExec) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	switch name {
	case "echo":
		return agent.ToolResult{Content: string(args)}
	case "fail":
		return agent.ToolResult{IsError: true, Kind: wire.KindExit, ExitCode: 1, Content: "tool exited with code 1"}
	case "panic":
		panic("fuzzed executor panic")
	}
	return agent.ToolResult{IsError: true, Kind: wire.KindUnknownTool, ExitCode: -1, Content: fmt.Sprintf("unknown tool %q", name)}
}

// FuzzLoop drives the loop with a fuzzed model. Whatever the model does,
// the loop never panics, always ends, never sends a request the API's
// pairing rules refuse (an unanswered, duplicated or orphan call id), and
// leaves a transcript that validates.
func FuzzLoop(f *testing.F) {
	f.Add([]byte{0, 1, 3, 0, 5, 5})
	f.Add([]byte{1, 3, 0, 0, 0, 1, 1, 1, 9, 2, 2, 5, 5, 1})
	f.Add([]byte{0x80, 4, 'h', 'e', 'y', '!', 3, 8, 1, 3, 1, 0, 5})
	f.Add([]byte{0x81, 0, 0, 0, 1, 0, 2, 0, 0x46, 0x47, 5})
	f.Add([]byte{0x86, 3, 'a', 'b', 'c', 3, 0, 0, 1, 3, 3, 2, 5, 0x27, 0x47})
	f.Add([]byte("\x00\x03\x02\x04\x05\x00\x02\x00\x01\x03\x01\x02\x00\x04\x07"))
	f.Add([]byte{0x84, 0x90, 2, 0, 0, 0, 1, 2, 1, 0x97, 0x26, 1, 2, 0, 3, 5})
	f.Add([]byte{0x82, 0x96, 1, 0, 0, 0, 0x17, 0x20, 1, 0, 0, 0, 0x15})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		mode := data[0]
		var p *fuzzProvider
		switch {
		case mode&1 != 0:
			p = &fuzzProvider{Dialect: agent.AnthropicDialect{}, check: fakeapi.CheckAnthropicMessages}
		case mode&0x80 != 0:
			p = &fuzzProvider{Dialect: agent.ResponsesDialect{}, check: fakeapi.CheckResponsesItems}
		default:
			p = &fuzzProvider{Dialect: agent.OpenAIDialect{}, check: fakeapi.CheckOpenAIMessages}
		}
		p.data = data[1:]
		var buf bytes.Buffer
		w := transcript.NewWriter(&buf, nil)
		if err := w.WriteHeader(transcript.Header{Provider: p.Name(), Model: "fuzz"}); err != nil {
			t.Fatal(err)
		}
		loop := &agent.Loop{Provider: p, Tools: fuzzExec{}, Transcript: w, MaxSteps: 1 + int(mode>>1)%6, Parallel: 1 + int(mode>>4)%4}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := loop.Prompt(ctx, "go")
		if ctx.Err() != nil {
			t.Fatalf("the loop did not end")
		}
		if len(p.violations) > 0 {
			t.Fatalf("the loop sent requests the API refuses:\n%s\ntranscript:\n%s", strings.Join(p.violations, "\n"), buf.Bytes())
		}
		var pe *agent.ProviderError
		if err != nil && !errors.As(err, &pe) {
			t.Fatalf("err = %v, want nil or a *ProviderError", err)
		}
		if out.Steps > loop.MaxSteps {
			t.Fatalf("%d steps with --max-steps %d", out.Steps, loop.MaxSteps)
		}
		// Every call the conversation holds is answered: it could be sent
		// on (but for a final answer, which ends it and is never sent).
		msgs := out.Messages
		if spans := agent.Turns(p, msgs); len(spans) > 0 && spans[len(spans)-1].End == len(msgs) {
			if tu, err := agent.ParseTurn(p, msgs[spans[len(spans)-1].Start:]); err == nil && len(tu.Calls) == 0 {
				msgs = msgs[:spans[len(spans)-1].Start]
			}
		}
		if err := p.check(msgs); err != nil {
			t.Fatalf("the conversation it ended with: %v\n%s", err, buf.Bytes())
		}
		var errs []string
		if _, verr := transcript.Validate("fuzz", bytes.NewReader(buf.Bytes()), transcript.Options{}, func(f transcript.Finding) {
			if f.Severity == transcript.Error {
				errs = append(errs, f.String())
			}
		}); verr != nil || len(errs) > 0 {
			t.Fatalf("the transcript does not validate: %v %s\n%s", verr, strings.Join(errs, "\n"), buf.Bytes())
		}
	})
}
