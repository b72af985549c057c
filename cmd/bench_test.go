package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// writeLongTranscript records a run of n steps, each one call of the echo
// tool, then the answer.
func writeLongTranscript(b *testing.B, dir string, n int) string {
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"})
	w.WriteMessage(transcript.Message{Message: json.RawMessage(`{"role":"user","content":"echo a thousand times"}`)})
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%04d", i)
		w.WriteMessage(transcript.Message{Step: i, FinishReason: "tool_calls", Usage: &transcript.Usage{InputTokens: int64(100 * i), OutputTokens: 10},
			Message: json.RawMessage(`{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"echo","arguments":"{\"text\":\"hello\"}"}}]}`)})
		w.WriteMessage(transcript.Message{Step: i, Message: json.RawMessage(`{"role":"tool","tool_call_id":"` + id + `","content":"hello\n"}`),
			Results: []transcript.Result{{CallID: id, Name: "echo"}}})
	}
	w.WriteMessage(transcript.Message{Step: n + 1, FinishReason: "stop", Message: json.RawMessage(`{"role":"assistant","content":"done"}`)})
	w.WriteEnd(transcript.End{Reason: "stop", Steps: n + 1})
	path := filepath.Join(dir, "long.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReplay1000Steps replays a recorded run of 1,000 steps, each
// running a real tool process again, and compares every result.
func BenchmarkReplay1000Steps(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "tools.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "tools.d", "echo.yaml"), []byte("name: echo\ndescription: Says it back.\nparameters:\n  text: {type: string}\ncommand: [echo, hello]\n"), 0o644)
	file := writeLongTranscript(b, dir, 1000)
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		ios, _, out, errOut := iostreams.Test()
		ios.SetEnv(os.Getenv)
		if code := Execute(context.Background(), ios, []string{"replay", "--tools-dir", filepath.Join(dir, "tools.d"), file}); code != 0 {
			b.Fatalf("exit %d\n%s\n%s", code, out, errOut.String()[max(0, errOut.Len()-2000):])
		}
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/float64(1000*b.N), "µs/step")
}

// BenchmarkBatchItem runs a batch of 200 items of 3 steps each against an
// in-process server with no latency: agentloop's own cost per item.
func BenchmarkBatchItem(b *testing.B) {
	dir := b.TempDir()
	var in bytes.Buffer
	for i := range 200 {
		fmt.Fprintf(&in, "{\"id\": \"item-%d\", \"prompt\": \"item-%d\"}\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "in.jsonl"), in.Bytes(), 0o644)
	text := "answer to {{prompt}}"
	steps := []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "nothing", Arguments: `{}`}}},
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_2", Name: "nothing", Arguments: `{}`}}},
		{Text: &text},
	}
	b.ResetTimer()
	n := 0
	for b.Loop() {
		srv := fakeapi.NewOpenAIConversations(&fakeapi.Conversations{Steps: steps}, "")
		ios, _, out, errOut := iostreams.Test()
		ios.SetEnv(os.Getenv)
		n++
		args := []string{"batch", filepath.Join(dir, "in.jsonl"), "-d", filepath.Join(dir, fmt.Sprint("out", n)), "-j", "8", "--base-url", srv.BaseURL(), "--tools-dir", dir, "-q"}
		if code := Execute(context.Background(), ios, args); code != 0 {
			b.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		srv.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(200*b.N), "µs/item")
}

// writeLongAnswer records a run whose answer is size bytes of prose.
func writeLongAnswer(b *testing.B, dir string, size int) string {
	line := "All work and no play makes Jack a dull boy. "
	text := bytes.Repeat([]byte(line), size/len(line))
	for i := 2000; i < len(text); i += 2000 {
		text[i] = '\n'
	}
	content, _ := json.Marshal(map[string]string{"role": "assistant", "content": string(text)})
	var buf bytes.Buffer
	buf.WriteString(`{"type":"header","version":1,"id":"x","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}` + "\n")
	buf.WriteString(`{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"write at length"}}` + "\n")
	fmt.Fprintf(&buf, `{"type":"message","seq":2,"step":1,"time":"2026-01-01T00:00:00Z","message":%s,"finish_reason":"stop"}`+"\n", content)
	buf.WriteString(`{"type":"end","time":"2026-01-01T00:00:00Z","reason":"stop","steps":1,"usage":{"input_tokens":0,"output_tokens":0}}` + "\n")
	path := filepath.Join(dir, "answer.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReplayShowLongAnswer renders a run whose answer is 16 MiB, on a
// terminal 100 columns wide: wrapped, made safe, printed once.
func BenchmarkReplayShowLongAnswer(b *testing.B) {
	file := writeLongAnswer(b, b.TempDir(), 16<<20)
	b.SetBytes(16 << 20)
	for b.Loop() {
		ios, _, out, errOut := iostreams.Test()
		ios.SetTTY(false, true, true)
		ios.SetWidth(100)
		if err := runReplayShow(context.Background(), &ReplayOptions{IO: ios, File: file}); err != nil {
			b.Fatalf("%v\n%s", err, errOut)
		}
		if out.Len() < 16<<20 {
			b.Fatalf("%d bytes shown", out.Len())
		}
	}
}

// BenchmarkStartupCommand is the share of a start-up that is agentloop's
// own after package initialisation: building the command tree and
// answering --version or --help.
func BenchmarkStartupCommand(b *testing.B) {
	for _, args := range [][]string{{"--version"}, {"--help"}} {
		b.Run(args[0][2:], func(b *testing.B) {
			for b.Loop() {
				ios, _, _, _ := iostreams.Test()
				if code := Execute(context.Background(), ios, args); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
