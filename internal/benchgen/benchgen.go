// Package benchgen writes large, realistic agentloop transcripts and
// Claude Code session logs for benchmarks: prompts of a few hundred bytes,
// tool results of 200 B to 20 KB (log-uniform), turns of one to four
// parallel calls, and text that mixes ASCII, accented and CJK letters, emoji
// and characters JSON must escape. The output is a function of the
// arguments only, so runs compare.
package benchgen

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Write writes one log of about size bytes in the given shape: an agentloop
// transcript ("openai" or "anthropic") or a Claude Code session
// ("claude-code").
func Write(w io.Writer, shape string, size int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{r: rand.New(rand.NewPCG(seed, 2)), anthropic: wire.Shape(shape) == wire.Messages, w: bw}
	if err := writeShape(g, shape, size); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteRun writes the transcript of a run of the given number of steps as
// agentloop records one ("openai" or "anthropic"): each model call with its
// latency and a token usage that grows with the conversation (most of it
// cached), each tool call with its duration, the calls of a turn running in
// parallel, the records' times following from those.
func WriteRun(w io.Writer, shape string, steps int, seed uint64) error {
	if s := wire.Shape(shape); s != wire.Chat && s != wire.Messages {
		return fmt.Errorf("shape %q: want openai or anthropic", shape)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &gen{r: rand.New(rand.NewPCG(seed, 2)), anthropic: wire.Shape(shape) == wire.Messages, w: bw}
	g.steps, g.timing = steps, true
	g.write(0)
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

	// size is the length to reach; steps, when set, the steps to write
	// instead.
	size  int64
	steps int
	// timing writes latencies, durations and growing usage.
	timing bool
	input  int64 // the last request's input tokens
	total  transcript.Usage
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
	if g.timing {
		// Times move with latencies and durations, not at random.
		g.t = g.t.Add(time.Millisecond)
		return g.t
	}
	g.t = g.t.Add(time.Duration(g.r.IntN(3000)) * time.Millisecond)
	return g.t
}

// logUniform is between lo and hi, log-uniform.
func (g *gen) logUniform(lo, hi float64) int64 {
	return int64(lo * math.Exp(g.r.Float64()*math.Log(hi/lo)))
}

// turnTiming is a model call's latency and usage, the clock moved past it.
func (g *gen) turnTiming(usage *transcript.Usage) int64 {
	if !g.timing {
		return 0
	}
	latency := g.logUniform(400, 6000)
	g.t = g.t.Add(time.Duration(latency) * time.Millisecond)
	in := g.written / 4
	usage.InputTokens = in
	if g.anthropic {
		// Anthropic counts the cached part apart from input_tokens.
		usage.CacheReadInputTokens = g.input * 9 / 10
		usage.InputTokens = in - usage.CacheReadInputTokens
	} else {
		usage.CacheReadInputTokens = g.input * 9 / 10
	}
	g.input = in
	g.total.Add(*usage)
	return latency
}

// callDurations are the durations of a turn's calls, the clock moved past
// the longest (they run in parallel).
func (g *gen) callDurations(n int) []int64 {
	ds := make([]int64, n)
	var long int64
	for i := range ds {
		ds[i] = g.logUniform(5, 4000)
		long = max(long, ds[i])
	}
	g.t = g.t.Add(time.Duration(long) * time.Millisecond)
	return ds
}

func (g *gen) message(msg any, results []transcript.Result, usage *transcript.Usage, finish string) {
	g.timedMessage(msg, results, usage, finish, 0)
}

func (g *gen) timedMessage(msg any, results []transcript.Result, usage *transcript.Usage, finish string, latency int64) {
	g.seq++
	raw, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	g.emit(transcript.Message{Type: transcript.TypeMessage, Seq: g.seq, Step: g.step, Time: g.now(), Message: raw,
		Results: results, Usage: usage, FinishReason: finish, LatencyMS: latency})
}

// resultRecords writes, for a turn of several calls, the result record of
// each as agentloop writes it the moment the call finishes: in the order
// they finished, at the time they did (the turn's calls started together,
// the clock is past the longest).
func (g *gen) resultRecords(cs []call, ds []int64, outs []string, errs []bool) {
	if len(cs) < 2 {
		return
	}
	start := g.t.Add(-time.Duration(slices.Max(ds)) * time.Millisecond)
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ds[a], ds[b]) })
	for _, i := range order {
		r := transcript.Result{CallID: cs[i].id, Name: cs[i].name, DurationMS: ds[i]}
		if errs != nil && errs[i] {
			r.IsError, r.ExitCode, r.Error = true, 1, wire.KindExit
		}
		g.emit(transcript.CallResult{Type: transcript.TypeResult, Step: g.step, Time: start.Add(time.Duration(ds[i]) * time.Millisecond),
			Result: r, Content: outs[i]})
	}
}

// more reports whether to write another tool-calling step.
func (g *gen) more() bool {
	if g.steps > 0 {
		return g.step < g.steps-1
	}
	return g.written < g.size
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
	g.size = size
	g.t = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	provider := string(wire.Chat)
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
		provider = string(wire.Messages)
	}
	h := transcript.Header{Type: transcript.TypeHeader, Version: transcript.Version, ID: "bench", Time: g.t, Provider: provider,
		Model: "bench-model", Tools: defs, System: g.text(300), MaxSteps: 1 << 30}
	if g.timing {
		h.Command, h.Parallel = "run", 8
	}
	g.emit(h)
	g.user(g.text(200 + g.r.IntN(400)))
	for g.more() {
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
	var usage *transcript.Usage
	var latency int64
	if g.timing {
		usage = &transcript.Usage{OutputTokens: int64(g.r.IntN(600))}
		latency = g.turnTiming(usage)
	}
	if g.anthropic {
		g.timedMessage(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": g.text(300)}}}, nil, usage, "end_turn", latency)
	} else {
		g.timedMessage(map[string]any{"role": "assistant", "content": g.text(300)}, nil, usage, "stop", latency)
	}
	g.emit(transcript.End{Type: transcript.TypeEnd, Time: g.now(), Reason: wire.ReasonStop, Steps: g.step, Usage: g.total})
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
	latency := g.turnTiming(usage)
	g.timedMessage(map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs}, nil, usage, "tool_calls", latency)
	var ds []int64
	var outs []string
	if g.timing {
		ds = g.callDurations(len(cs))
		for range cs {
			outs = append(outs, g.text(g.resultSize()))
		}
		g.resultRecords(cs, ds, outs, nil)
	}
	for i, c := range cs {
		var out string
		var d int64
		if g.timing {
			out, d = outs[i], ds[i]
		} else {
			out, d = g.text(g.resultSize()), int64(g.r.IntN(900))
		}
		g.message(map[string]any{"role": "tool", "tool_call_id": c.id, "content": out},
			[]transcript.Result{{CallID: c.id, Name: c.name, DurationMS: d}}, nil, "")
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
	latency := g.turnTiming(usage)
	g.timedMessage(map[string]any{"role": "assistant", "content": blocks}, nil, usage, "tool_use", latency)
	var ds []int64
	var outs []string
	var errs []bool
	if g.timing {
		ds = g.callDurations(len(cs))
		for range cs {
			errs = append(errs, g.r.IntN(10) == 0)
			outs = append(outs, g.text(g.resultSize()))
		}
		g.resultRecords(cs, ds, outs, errs)
	}
	var results []any
	var rs []transcript.Result
	for i, c := range cs {
		var isErr bool
		var out string
		if g.timing {
			isErr, out = errs[i], outs[i]
		} else {
			isErr = g.r.IntN(10) == 0
			out = g.text(g.resultSize())
		}
		results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c.id, "content": out, "is_error": isErr})
		r := transcript.Result{CallID: c.id, Name: c.name, IsError: isErr, ExitCode: map[bool]int{true: 1}[isErr]}
		if g.timing {
			r.DurationMS = ds[i]
			if isErr {
				r.Error = wire.KindExit
			}
		}
		rs = append(rs, r)
	}
	if g.r.IntN(8) == 0 {
		// A user note after the results, in the same message, as the rules want.
		results = append(results, map[string]any{"type": "text", "text": g.text(200 + g.r.IntN(400))})
	}
	g.message(map[string]any{"role": "user", "content": results}, rs, nil, "")
}

// WriteFolder writes n transcripts of about size bytes each into dir, as
// the transcript folder of a busy user holds them: OpenAI and Anthropic
// runs in turn, a minute apart, each with a prompt of its own; every tenth
// run continues the one before it; plus one file that is not a transcript
// and one whose last line was cut off. Only the header and the first
// message differ from file to file.
func WriteFolder(dir string, n int, size int64, seed uint64) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	type template struct {
		header transcript.Header
		rest   []byte
	}
	var tmpl [2]template
	for i, shape := range []string{string(wire.Chat), string(wire.Messages)} {
		var b bytes.Buffer
		if err := Write(&b, shape, size, seed+uint64(i)); err != nil {
			return err
		}
		data := b.Bytes()
		// The header, the first message, and the rest as it is.
		h, rest, _ := bytes.Cut(data, []byte("\n"))
		_, rest, _ = bytes.Cut(rest, []byte("\n"))
		if err := json.Unmarshal(h, &tmpl[i].header); err != nil {
			return err
		}
		tmpl[i].rest = rest
	}
	r := rand.New(rand.NewPCG(seed, 3))
	g := &gen{r: r}
	// Before the times of the template's records, which every run's
	// records must follow.
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	prev := ""
	for i := range n {
		t := tmpl[i%2]
		h := t.header
		h.ID = fmt.Sprintf("%016x", r.Uint64())
		h.Time = start.Add(time.Duration(i) * time.Minute)
		h.Command = "run"
		if i%10 == 9 {
			h.Command, h.ParentID, h.Parent = "continue", prev, "continued.jsonl"
		}
		prev = h.ID
		prompt := map[string]any{"role": "user", "content": fmt.Sprintf("Question %d: %s", i, g.text(80+r.IntN(200)))}
		if i%2 == 1 {
			prompt["content"] = []any{map[string]any{"type": "text", "text": prompt["content"]}}
		}
		rawPrompt, _ := json.Marshal(prompt)
		var b bytes.Buffer
		for _, rec := range []any{h, transcript.Message{Type: transcript.TypeMessage, Seq: 1, Time: h.Time, Message: rawPrompt}} {
			line, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		b.Write(t.rest)
		name := h.Time.Format("20060102T150405Z") + "-" + h.ID + ".jsonl"
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o600); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a transcript\n"), 0o600); err != nil {
		return err
	}
	torn := `{"type":"header","version":1,"id":"torn","time":"2025-06-01T00:00:30Z","provider":"openai","model":"m"}` + "\n" + `{"type":"message","seq":1,"step":0,"message":{"role":"us`
	return os.WriteFile(filepath.Join(dir, "20250601T000030Z-torn.jsonl"), []byte(torn), 0o600)
}
