package agent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/tools"
)

// stepServer answers a conversation whose last message is the prompt with
// one tool call, and one whose last message is a tool result with the
// answer: every run is two steps.
func stepServer(b *testing.B) *httptest.Server {
	call := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"echo","arguments":"{\"text\":\"hello\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`)
	answer := []byte(`{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"done"},"finish_reason":"stop"}],"usage":{"prompt_tokens":70,"completion_tokens":2,"total_tokens":72}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(body), `"role":"tool"`) {
			w.Write(answer)
		} else {
			w.Write(call)
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

type echoTool struct{}

func (echoTool) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	return agent.ToolResult{Content: "hello"}
}

func benchLoop(b *testing.B, ex agent.Executor, defs []json.RawMessage) {
	srv := stepServer(b)
	p, err := openai.NewChat(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
	if err != nil {
		b.Fatal(err)
	}
	l := &agent.Loop{Provider: p, Tools: ex, ToolDefs: defs}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		out, err := l.Prompt(ctx, "say hello")
		if err != nil || out.Answer != "done" {
			b.Fatalf("%v %+v", err, out)
		}
	}
	// Each run is two steps (a call, then the answer).
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N), "ns/step")
}

// BenchmarkLoopStep is one model call to an in-process server and one
// trivial tool answered in-process: agentloop's own cost per step, the
// SDK's HTTP round trip included, no tool process.
func BenchmarkLoopStep(b *testing.B) {
	benchLoop(b, echoTool{}, nil)
}

// BenchmarkLoopStepWithTool is the same step with a real tool process
// (a shell script that exits 0), for scale.
func BenchmarkLoopStepWithTool(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "echo.sh"), []byte("#!/bin/sh\necho hello\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "echo.yaml"), []byte("name: echo\ndescription: Says hello.\nparameters:\n  text: {type: string}\nrun: echo.sh\n"), 0o644)
	reg, err := tools.Load([]string{dir}, tools.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defs, err := agent.OpenAIDialect{}.ToolDefs(scriptSpecs(reg))
	if err != nil {
		b.Fatal(err)
	}
	benchLoop(b, scriptTools{reg}, defs)
}

// BenchmarkHTTPRoundTrip is a bare POST of a similar body to the same
// server: the floor under a step.
func BenchmarkHTTPRoundTrip(b *testing.B) {
	srv := stepServer(b)
	body := `{"model":"m","messages":[{"role":"user","content":"say hello"}]}`
	c := srv.Client()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkParallelCalls is one turn of 8 calls of a tool that sleeps half a
// second: the calls run at once, so a turn takes little more than 0.5 s.
func BenchmarkParallelCalls(b *testing.B) {
	var calls []string
	for i := range 8 {
		calls = append(calls, `{"id":"call_`+string(rune('a'+i))+`","type":"function","function":{"name":"nap","arguments":"{}"}}`)
	}
	turn := []byte(`{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[` + strings.Join(calls, ",") + `]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	answer := []byte(`{"id":"c2","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"rested"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(string(body), `"role":"tool"`) {
			w.Write(answer)
		} else {
			w.Write(turn)
		}
	}))
	defer srv.Close()
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "nap.sh"), []byte("#!/bin/sh\nsleep 0.5\necho rested\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "nap.yaml"), []byte("name: nap\ndescription: Sleeps half a second.\nparameters: {}\nrun: nap.sh\n"), 0o644)
	reg, err := tools.Load([]string{dir}, tools.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p, _ := openai.NewChat(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
	l := &agent.Loop{Provider: p, Tools: scriptTools{reg}}
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if out, err := l.Prompt(context.Background(), "rest"); err != nil || out.Answer != "rested" {
			b.Fatalf("%v %+v", err, out)
		}
	}
	b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/turn")
}

// scriptTools runs script tools for the loop, as cmd wires them.
type scriptTools struct{ reg *tools.Registry }

func (s scriptTools) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	r := s.reg.Call(ctx, name, callID, args)
	return agent.ToolResult{Content: r.Content, IsError: r.IsError, Kind: r.Kind, ExitCode: r.ExitCode, Duration: r.Duration, Truncated: r.Truncated}
}

func scriptSpecs(reg *tools.Registry) []agent.ToolSpec {
	var specs []agent.ToolSpec
	for _, d := range reg.Definitions() {
		specs = append(specs, agent.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict})
	}
	return specs
}
