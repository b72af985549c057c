// Package benchgen writes large, realistic agentloop transcripts and
// Claude Code session logs for benchmarks: prompts of a few hundred bytes,
// tool results of 200 B to 20 KB (log-uniform), turns of one to four
// parallel calls, and text that mixes ASCII, accented and CJK letters, emoji
// and characters JSON must escape. The output is a function of the
// arguments only, so runs compare.
package benchgen

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Write writes one log of about size bytes in the given shape: an agentloop
// transcript ("openai" or "anthropic") or a Claude Code session
// ("claude-code").
func Write(w io.Writer, shape string, size int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{r: rand.New(rand.NewPCG(seed, 2)), anthropic: shape == "anthropic", w: bw}
	if err := writeShape(g, shape, size); err != nil {
		return err
	}
	return bw.Flush()
}

type gen struct {
	r         *rand.Rand
	anthropic bool
	w         *bufio.Writer
	written   int64
	seq       int
	step      int
	t         time.Time
}

var words = []string{
	"weather", "Paris", "naïve", "café", "東京", "データ", "😀", "résumé", "quote \"this\"",
	"tab\there", "line\nbreak", "back\\slash", "<html>", "& co", "forecast", "temperature", "rain",
	"the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "file", "path", "/usr/local/bin",
	"error", "ok", "200", "3.14", "null", "true", "Zürich", "São Paulo", "Москва", "🌧️",
}

var tools = []string{"get_weather", "read_file", "run_tests", "search_docs", "list_dir"}

func (g *gen) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[g.r.IntN(len(words))])
	}
	return b.String()
}

func (g *gen) id(prefix string, n int) string {
	const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte(prefix)
	for range n {
		b = append(b, alnum[g.r.IntN(len(alnum))])
	}
	return string(b)
}

// resultSize is log-uniform between 200 B and 20 KB.
func (g *gen) resultSize() int {
	return int(200 * math.Exp(g.r.Float64()*math.Log(100)))
}

func (g *gen) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	g.w.Write(b)
	g.w.WriteByte('\n')
	g.written += int64(len(b)) + 1
}

func (g *gen) now() time.Time {
	g.t = g.t.Add(time.Duration(g.r.IntN(3000)) * time.Millisecond)
	return g.t
}

func (g *gen) message(msg any, results []transcript.Result, usage *transcript.Usage, finish string) {
	g.seq++
	raw, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	g.emit(transcript.Message{Type: transcript.TypeMessage, Seq: g.seq, Step: g.step, Time: g.now(), Message: raw,
		Results: results, Usage: usage, FinishReason: finish})
}

type call struct{ id, name, args string }

func (g *gen) calls() []call {
	n := 1 + g.r.IntN(4)
	cs := make([]call, n)
	for i := range cs {
		name := tools[g.r.IntN(len(tools))]
		args, _ := json.Marshal(map[string]any{"city": g.text(12), "query": g.text(40 + g.r.IntN(120)), "limit": g.r.IntN(50), "verbose": g.r.IntN(2) == 0})
		id := g.id("call_", 24)
		if g.anthropic {
			id = g.id("toolu_01", 22)
		}
		cs[i] = call{id: id, name: name, args: string(args)}
	}
	return cs
}

func (g *gen) write(size int64) {
	g.t = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	provider := "openai"
	var defs []json.RawMessage
	for _, t := range tools {
		params := `{"type":"object","properties":{"city":{"type":"string"},"query":{"type":"string"},"limit":{"type":"integer"},"verbose":{"type":"boolean"}},"required":["city"]}`
		if g.anthropic {
			defs = append(defs, json.RawMessage(`{"name":"`+t+`","description":"Tool `+t+`.","input_schema":`+params+`}`))
		} else {
			defs = append(defs, json.RawMessage(`{"type":"function","function":{"name":"`+t+`","description":"Tool `+t+`.","parameters":`+params+`}}`))
		}
	}
	if g.anthropic {
		provider = "anthropic"
	}
	g.emit(transcript.Header{Type: transcript.TypeHeader, Version: transcript.Version, ID: "bench", Time: g.t, Provider: provider,
		Model: "bench-model", Tools: defs, System: g.text(300), MaxSteps: 1 << 30})
	g.user(g.text(200 + g.r.IntN(400)))
	for g.written < size {
		g.step++
		cs := g.calls()
		usage := &transcript.Usage{InputTokens: int64(g.r.IntN(100000)), OutputTokens: int64(g.r.IntN(2000))}
		if g.anthropic {
			g.anthropicTurn(cs, usage)
		} else {
			g.openaiTurn(cs, usage)
		}
		if !g.anthropic && g.r.IntN(8) == 0 {
			g.user(g.text(200 + g.r.IntN(400)))
		}
	}
	g.step++
	if g.anthropic {
		g.message(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": g.text(300)}}}, nil, nil, "end_turn")
	} else {
		g.message(map[string]any{"role": "assistant", "content": g.text(300)}, nil, nil, "stop")
	}
	g.emit(transcript.End{Type: transcript.TypeEnd, Time: g.now(), Reason: transcript.ReasonStop, Steps: g.step})
}

func (g *gen) user(text string) {
	if g.anthropic {
		g.message(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}, nil, nil, "")
		return
	}
	g.message(map[string]any{"role": "user", "content": text}, nil, nil, "")
}

type oaiCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (g *gen) openaiTurn(cs []call, usage *transcript.Usage) {
	var tcs []oaiCall
	for _, c := range cs {
		var tc oaiCall
		tc.ID, tc.Type = c.id, "function"
		tc.Function.Name, tc.Function.Arguments = c.name, c.args
		tcs = append(tcs, tc)
	}
	g.message(map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}, nil, usage, "tool_calls")
	for _, c := range cs {
		out := g.text(g.resultSize())
		g.message(map[string]any{"role": "tool", "tool_call_id": c.id, "content": out},
			[]transcript.Result{{CallID: c.id, Name: c.name, DurationMS: int64(g.r.IntN(900))}}, nil, "")
	}
}

func (g *gen) anthropicTurn(cs []call, usage *transcript.Usage) {
	var blocks []any
	if g.r.IntN(2) == 0 {
		blocks = append(blocks, map[string]any{"type": "text", "text": g.text(100)})
	}
	for _, c := range cs {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)})
	}
	g.message(map[string]any{"role": "assistant", "content": blocks}, nil, usage, "tool_use")
	var results []any
	var rs []transcript.Result
	for _, c := range cs {
		isErr := g.r.IntN(10) == 0
		results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c.id, "content": g.text(g.resultSize()), "is_error": isErr})
		rs = append(rs, transcript.Result{CallID: c.id, Name: c.name, IsError: isErr, ExitCode: map[bool]int{true: 1}[isErr]})
	}
	if g.r.IntN(8) == 0 {
		// A user note after the results, in the same message, as the rules want.
		results = append(results, map[string]any{"type": "text", "text": g.text(200 + g.r.IntN(400))})
	}
	g.message(map[string]any{"role": "user", "content": results}, rs, nil, "")
}
