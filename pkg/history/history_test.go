package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// run describes a transcript to write.
type run struct {
	id, parentID, command string
	provider              string
	start                 time.Time
	prompt                string
	answer                string
	steps                 int // tool-calling steps before the answer
	toolOutput            int // bytes of each tool result
	end                   string
	copied                []string // user prompts of a parent conversation, copied first
}

// write writes r as a transcript in the shape the run command writes.
func (r run) write(t testing.TB, path string) {
	t.Helper()
	w, err := transcript.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	provider := r.provider
	if provider == "" {
		provider = "openai"
	}
	command := r.command
	if command == "" {
		command = "run"
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteHeader(transcript.Header{ID: r.id, Time: r.start, Command: command, Provider: provider, Model: "m1",
		ParentID: r.parentID, Parent: map[bool]string{true: "parent.jsonl"}[r.parentID != ""], MaxSteps: 10}))
	at := r.start
	next := func() time.Time { at = at.Add(time.Second); return at }
	user := func(text string) json.RawMessage {
		if provider == "anthropic" {
			return mustJSON(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}})
		}
		return mustJSON(map[string]any{"role": "user", "content": text})
	}
	step := 0
	for _, p := range r.copied {
		step++
		must(w.WriteMessage(transcript.Message{Step: step - 1, Time: r.start.Add(-time.Hour), Message: user(p)}))
		must(w.WriteMessage(transcript.Message{Step: step, Time: r.start.Add(-time.Hour), Message: mustJSON(map[string]any{"role": "assistant", "content": "old answer to " + p})}))
	}
	must(w.WriteMessage(transcript.Message{Step: step, Time: next(), Message: user(r.prompt)}))
	for range r.steps {
		step++
		id := "call_" + string(rune('a'+step))
		must(w.WriteMessage(transcript.Message{Step: step, Time: next(), LatencyMS: 500, Usage: &transcript.Usage{InputTokens: 100, OutputTokens: 10},
			Message: mustJSON(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "get", "arguments": "{}"}}}})}))
		must(w.WriteMessage(transcript.Message{Step: step, Time: next(), Message: mustJSON(map[string]any{"role": "tool", "tool_call_id": id, "content": strings.Repeat("x", r.toolOutput)}),
			Results: []transcript.Result{{CallID: id, Name: "get", DurationMS: 20}}}))
	}
	if r.answer != "" {
		step++
		must(w.WriteMessage(transcript.Message{Step: step, Time: next(), Usage: &transcript.Usage{InputTokens: 100, OutputTokens: 10}, FinishReason: "stop",
			Message: mustJSON(map[string]any{"role": "assistant", "content": r.answer})}))
	}
	if r.end != "" {
		must(w.WriteEnd(transcript.End{Time: next(), Reason: r.end, Steps: step, Usage: transcript.Usage{InputTokens: 100 * int64(step), OutputTokens: 10 * int64(step)}}))
	}
	must(w.Close())
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	type want struct {
		state, prompt, answer, problem string
		steps                          int
		tokens                         int64
	}
	tests := []struct {
		name  string
		setup func(path string)
		opts  Options
		want  want
	}{
		{"a finished run", func(p string) {
			run{id: "a1", start: t0, prompt: "What is the weather in Paris?\nThanks", answer: "Sunny.", steps: 2, end: "stop"}.write(t, p)
		}, Options{}, want{state: "stop", prompt: "What is the weather in Paris?\nThanks", steps: 3, tokens: 330}},
		{"the answer is read when asked for", func(p string) {
			run{id: "a1", start: t0, prompt: "q", answer: "Sunny.", steps: 2, end: "stop"}.write(t, p)
		}, Options{Answers: true}, want{state: "stop", prompt: "q", answer: "Sunny.", steps: 3, tokens: 330}},
		{"an Anthropic run", func(p string) {
			run{id: "a1", start: t0, provider: "anthropic", prompt: "bonjour", answer: "salut", end: "stop"}.write(t, p)
		}, Options{Answers: true}, want{state: "stop", prompt: "bonjour", answer: "salut", steps: 1, tokens: 110}},
		{"a run that stopped at its step budget", func(p string) {
			run{id: "a1", start: t0, prompt: "q", steps: 3, end: "max_steps"}.write(t, p)
		}, Options{Answers: true}, want{state: "max_steps", prompt: "q", steps: 3, tokens: 330}},
		{"a run with no end record", func(p string) {
			run{id: "a1", start: t0, prompt: "q", steps: 4}.write(t, p)
		}, Options{}, want{state: StateUnfinished, prompt: "q", steps: 4}},
		{"a torn last line", func(p string) {
			run{id: "a1", start: t0, prompt: "q", steps: 2}.write(t, p)
			appendTo(t, p, `{"type":"message","seq":9,"step":3,"message":{"role":"assis`)
		}, Options{}, want{state: StateTorn, prompt: "q", steps: 2}},
		{"a torn header", func(p string) {
			writeFile(t, p, `{"type":"header","version":1,"id":"x","provider":"open`)
		}, Options{}, want{state: StateTorn, problem: "the header is cut off"}},
		{"a continued run: the prompt is its new message", func(p string) {
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: []string{"first question", "second"}, prompt: "and in Tokyo?", answer: "Rainy.", steps: 3, toolOutput: 40 << 10, end: "stop"}.write(t, p)
		}, Options{Answers: true}, want{state: "stop", prompt: "and in Tokyo?", answer: "Rainy.", steps: 6, tokens: 660}},
		{"a continued run that was interrupted before an answer", func(p string) {
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: []string{"first"}, prompt: "and then?", steps: 1, end: "interrupted"}.write(t, p)
		}, Options{Answers: true}, want{state: "interrupted", prompt: "and then?", steps: 2, tokens: 220}},
		{"a continued run whose records have no times: read back from the end", func(p string) {
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: []string{"first"}, prompt: "and then?", answer: "Then this.", end: "stop"}.write(t, p)
			data, _ := os.ReadFile(p)
			writeFile(t, p, regexp.MustCompile(`"time":"[^"]*",`).ReplaceAllString(string(data), ""))
		}, Options{Answers: true}, want{state: "stop", prompt: "and then?", answer: "Then this.", steps: 2, tokens: 220}},
		{"a continued run without times whose results had pictures: they are no prompt", func(p string) {
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: []string{"first"}, prompt: "and draw it?", steps: 1}.write(t, p)
			data, _ := os.ReadFile(p)
			writeFile(t, p, regexp.MustCompile(`"time":"[^"]*",`).ReplaceAllString(string(data), ""))
			appendTo(t, p, `{"type":"message","seq":90,"step":2,"message":{"role":"user","content":[{"type":"text","text":"Image 1 of the result of tool call call_9 (draw):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},"images_of":["call_9"]}
{"type":"message","seq":91,"step":3,"message":{"role":"assistant","content":"A square."},"finish_reason":"stop"}
{"type":"end","reason":"stop","steps":3,"usage":{"input_tokens":0,"output_tokens":0}}
`)
		}, Options{Answers: true}, want{state: "stop", prompt: "and draw it?", answer: "A square.", steps: 3}},
		{"a continuation of a file that is no transcript (bare messages): the prompt is its new message", func(p string) {
			writeFile(t, p, `{"type":"header","version":1,"id":"c1","time":"2026-03-01T10:00:00Z","command":"continue","provider":"openai","model":"m","parent":"msgs.jsonl"}
{"type":"message","seq":1,"step":0,"time":"2026-03-01T10:00:00.1Z","message":{"role":"user","content":"hi"}}
{"type":"message","seq":2,"step":1,"time":"2026-03-01T10:00:00.2Z","message":{"role":"assistant","content":"hello"}}
{"type":"message","seq":3,"step":1,"time":"2026-03-01T10:00:00.3Z","message":{"role":"user","content":"and more?"}}
{"type":"message","seq":4,"step":2,"time":"2026-03-01T10:00:01Z","message":{"role":"assistant","content":"More."},"usage":{"input_tokens":10,"output_tokens":2},"finish_reason":"stop"}
{"type":"end","time":"2026-03-01T10:00:01.1Z","reason":"stop","steps":2,"usage":{"input_tokens":10,"output_tokens":2}}
`)
		}, Options{Answers: true}, want{state: "stop", prompt: "and more?", answer: "More.", steps: 2, tokens: 12}},
		{"a continued run with a large parent and no answer yet", func(p string) {
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: slices.Repeat([]string{strings.Repeat("long question ", 2000)}, 40), prompt: "and then?", steps: 1}.write(t, p)
		}, Options{Answers: true}, want{state: StateUnfinished, prompt: "and then?", steps: 41}},
		{"a prompt longer than a chunk", func(p string) {
			run{id: "a1", start: t0, prompt: strings.Repeat("long ", 30000), answer: "ok", end: "stop"}.write(t, p)
		}, Options{}, want{state: "stop", prompt: strings.Repeat("long ", 30000), steps: 1, tokens: 110}},
		{"an end record longer than a chunk", func(p string) {
			run{id: "a1", start: t0, prompt: "q", answer: "a"}.write(t, p)
			appendTo(t, p, string(mustJSON(transcript.End{Type: "end", Reason: "error", Error: strings.Repeat("e", 100<<10), Steps: 1}))+"\n")
		}, Options{Answers: true}, want{state: "error", prompt: "q", answer: "a", steps: 1}},
		{"blank lines and CRLF at the end", func(p string) {
			run{id: "a1", start: t0, prompt: "q", answer: "a", end: "stop"}.write(t, p)
			data, _ := os.ReadFile(p)
			writeFile(t, p, "\xef\xbb\xbf"+strings.ReplaceAll(string(data), "\n", "\r\n")+"\r\n\n")
		}, Options{Answers: true}, want{state: "stop", prompt: "q", answer: "a", steps: 1, tokens: 110}},
		{"an empty file", func(p string) { writeFile(t, p, "") }, Options{}, want{state: StateForeign, problem: "empty file"}},
		{"bare messages", func(p string) {
			writeFile(t, p, `{"role":"user","content":"hi"}`+"\n")
		}, Options{}, want{state: StateForeign, problem: "the first line is a bare message, not a header"}},
		{"not JSON", func(p string) { writeFile(t, p, "\x00\x01binary\xff") }, Options{}, want{state: StateForeign, problem: "the first line is not JSON"}},
		{"JSON that is not an object", func(p string) { writeFile(t, p, "[1,2,3]\n") }, Options{}, want{state: StateForeign, problem: "the first line is a JSON array, not a header"}},
		{"a JSON string", func(p string) { writeFile(t, p, "\"text\"\n") }, Options{}, want{state: StateForeign, problem: "the first line is a JSON string, not a header"}},
		{"another version", func(p string) {
			writeFile(t, p, `{"type":"header","version":7,"id":"x"}`+"\n")
		}, Options{}, want{state: StateForeign, problem: "format version 7"}},
		{"a header written by hand, its fields in another order", func(p string) {
			writeFile(t, p, `{"id":"hand","version":1,"type":"header","time":"2026-03-01T10:00:00Z","provider":"openai","model":"m"}`+"\n"+
				`{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"by hand"}}`+"\n")
		}, Options{}, want{state: StateUnfinished, prompt: "by hand"}},
		{"a message first", func(p string) {
			writeFile(t, p, `{"type":"message","seq":1}`+"\n")
		}, Options{}, want{state: StateForeign, problem: `a "message" record, not a header`}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("x", i+1)+".jsonl")
			tt.setup(path)
			e := Read(path, tt.opts)
			if e == nil {
				t.Fatal("Read returned nil")
			}
			got := want{state: e.State(), prompt: e.Prompt, answer: e.Answer, steps: e.Steps(), tokens: e.Tokens()}
			if tt.want.problem != "" {
				if !strings.Contains(e.Problem, tt.want.problem) {
					t.Errorf("problem %q, want it to say %q", e.Problem, tt.want.problem)
				}
			} else if e.Problem != "" {
				t.Errorf("unexpected problem %q", e.Problem)
			}
			got.problem = tt.want.problem
			if got != tt.want {
				t.Errorf("got  %.300v\nwant %.300v", got, tt.want)
			}
		})
	}
}

// short keeps a failure message readable when a field is long.
func short(v any) string {
	s, _ := json.Marshal(v)
	if len(s) > 300 {
		return string(s[:300]) + "…"
	}
	return string(s)
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, path, data string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

func TestReadLargeHeader(t *testing.T) {
	// Many tools make a header line longer than the first read.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := transcript.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	for i := range 400 {
		tools = append(tools, mustJSON(map[string]any{"type": "function", "function": map[string]any{"name": "tool" + strings.Repeat("x", i%50), "description": strings.Repeat("d", 200)}}))
	}
	_ = w.WriteHeader(transcript.Header{ID: "big", Time: t0, Provider: "openai", Model: "m", Tools: tools})
	_ = w.WriteMessage(transcript.Message{Message: mustJSON(map[string]any{"role": "user", "content": "hello"})})
	_ = w.WriteEnd(transcript.End{Reason: "stop"})
	_ = w.Close()
	e := Read(path, Options{})
	if e.Problem != "" || e.ID() != "big" || e.Prompt != "hello" || e.State() != "stop" {
		t.Fatalf("got problem %q id %q prompt %q state %q", e.Problem, e.ID(), e.Prompt, e.State())
	}
}

func TestBackLines(t *testing.T) {
	long := strings.Repeat("y", 3*tailChunk+7)
	tests := []string{
		"", "\n", "a", "a\n", "a\nb", "a\nb\n", "\n\na\n\n", "a\r\nb\r\n",
		"one\n" + long + "\nthree\n", long, long + "\n" + long,
		strings.Repeat("line\n", 20000),
	}
	for _, data := range tests {
		t.Run(short(data), func(t *testing.T) {
			for _, head := range []int{0, len(data)} {
				r := &fileReader{f: strings.NewReader(data), size: int64(len(data))}
				if head > 0 {
					r.buf = []byte(data) // the whole file read from the head
				}
				b := newBackLines(r)
				var got []string
				for {
					line, complete, err := b.prev()
					if err != nil {
						break
					}
					if len(got) == 0 && complete != strings.HasSuffix(data, "\n") {
						t.Errorf("last line complete=%v for %q", complete, short(data))
					}
					got = append(got, string(line))
				}
				var want []string
				lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
				if data == "" {
					lines = nil
				}
				for i := len(lines) - 1; i >= 0; i-- {
					want = append(want, strings.TrimSuffix(lines[i], "\r"))
				}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("head=%d: got %d lines %s, want %d lines %s", head, len(got), short(got), len(want), short(want))
				}
			}
		})
	}
}

func TestBackLinesMemory(t *testing.T) {
	// Reading a long way back holds the line it is on, not what it passed.
	var buf bytes.Buffer
	for range 2000 {
		buf.WriteString(strings.Repeat("z", 1000) + "\n")
	}
	r := &fileReader{f: bytes.NewReader(buf.Bytes()), size: int64(buf.Len())}
	b := newBackLines(r)
	n := 0
	for {
		if _, _, err := b.prev(); err != nil {
			break
		}
		n++
		if len(b.win) > 4*tailChunk {
			t.Fatalf("window of %d bytes after %d lines", len(b.win), n)
		}
	}
	if n != 2000 {
		t.Fatalf("read %d lines, want 2000", n)
	}
}

func TestScan(t *testing.T) {
	dir := t.TempDir()
	run{id: "old", start: t0, prompt: "first", answer: "1", end: "stop"}.write(t, filepath.Join(dir, "b.jsonl"))
	run{id: "new", start: t0.Add(time.Hour), prompt: "second", answer: "2", end: "stop"}.write(t, filepath.Join(dir, "a.jsonl"))
	writeFile(t, filepath.Join(dir, "notes.txt"), "not a transcript\n")
	writeFile(t, filepath.Join(dir, ".hidden.jsonl"), "x")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	// notes.txt gets an mtime between the two runs' times.
	if err := os.Chtimes(filepath.Join(dir, "notes.txt"), t0.Add(30*time.Minute), t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	entries, err := Scan(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, filepath.Base(e.Path)+":"+e.State())
	}
	if want := "a.jsonl:stop notes.txt:foreign b.jsonl:stop"; strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", strings.Join(got, " "), want)
	}

	missing, err := Scan(filepath.Join(dir, "nope"), Options{})
	if err != nil || len(missing) != 0 {
		t.Fatalf("a missing folder: %v, %d entries", err, len(missing))
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "locked.jsonl")
	run{id: "x", start: t0, prompt: "q", end: "stop"}.write(t, p)
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	e := Read(p, Options{})
	if e.State() != StateForeign || !strings.Contains(e.Problem, "permission denied") {
		t.Fatalf("state %q problem %q", e.State(), e.Problem)
	}
}

func entry(id, parent, command string, at time.Time) *Entry {
	return &Entry{Path: id + ".jsonl", Header: &transcript.Header{ID: id, ParentID: parent, Command: command, Time: at}}
}

func TestThreads(t *testing.T) {
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	entries := []*Entry{
		entry("a", "", "run", at(0)),
		entry("b", "a", CommandContinue, at(5)),
		entry("c", "b", CommandContinue, at(9)),
		entry("d", "", "run", at(7)),
		entry("e", "a", CommandContinue, at(6)),    // a second branch from a
		entry("f", "gone", CommandContinue, at(1)), // its parent was pruned
		entry("g", "d", "replay", at(8)),           // a replay is a run of its own
		{Path: "junk.txt", ModTime: at(3)},
	}
	Sort(entries)
	var got []string
	for _, th := range Threads(entries) {
		var runs []string
		for _, r := range th {
			name := r.ID()
			if name == "" {
				name = r.Path
			}
			runs = append(runs, strings.Repeat(">", r.Depth)+name)
		}
		got = append(got, strings.Join(runs, " "))
	}
	want := []string{"a >b >>c >e", "g", "d", "junk.txt", ">f"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestThreadsCycle(t *testing.T) {
	entries := []*Entry{entry("a", "b", CommandContinue, t0), entry("b", "a", CommandContinue, t0.Add(time.Minute))}
	n := 0
	for _, th := range Threads(entries) {
		n += len(th)
	}
	if n != 2 {
		t.Fatalf("%d runs in the threads, want 2", n)
	}
}

func TestFind(t *testing.T) {
	entries := []*Entry{
		entry("a1b2c3", "", "run", t0),
		entry("a1ffff", "", "run", t0.Add(time.Minute)),
		entry("a1", "", "run", t0.Add(-time.Minute)),
		{Path: "foreign", ModTime: t0.Add(time.Hour)},
	}
	tests := []struct{ ref, want, err string }{
		{"last", "a1ffff", ""},
		{"", "a1ffff", ""},
		{"a1b", "a1b2c3", ""},
		{"A1B2C3", "a1b2c3", ""},
		{"a1", "a1", ""}, // an exact id wins over the ids it starts
		{"a1f", "a1ffff", ""},
		{"a1b2c3d", "", `no run has an id starting "a1b2c3d"`},
		{"zz", "", "no run has an id"},
	}
	for _, tt := range tests {
		e, err := Find(entries, tt.ref)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Find(%q): err %v, want %q", tt.ref, err, tt.err)
			}
		case err != nil:
			t.Errorf("Find(%q): %v", tt.ref, err)
		case e.ID() != tt.want:
			t.Errorf("Find(%q) = %s, want %s", tt.ref, e.ID(), tt.want)
		}
	}
	if _, err := Find(entries[:2], "a1"); err == nil || !strings.Contains(err.Error(), "ambiguous") || !strings.Contains(err.Error(), "a1b2c3") {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if _, err := Find(nil, "last"); err == nil || err.Error() != "no runs yet" {
		t.Errorf("no runs: %v", err)
	}
}

// A transcript copied into the folder under another name has its
// original's id: neither the id nor a prefix of it may pick one of the
// two, and the error does not ask for more of an id that cannot tell
// them apart.
func TestFindCopies(t *testing.T) {
	copied := entry("a1b2c3", "", "run", t0)
	copied.Path = "backup.jsonl"
	entries := []*Entry{entry("a1b2c3", "", "run", t0), copied, entry("ffff", "", "run", t0)}
	for _, ref := range []string{"a1b2c3", "A1B2", "a1"} {
		_, err := Find(entries, ref)
		want := fmt.Sprintf("id %q is ambiguous: 2 transcripts have the id a1b2c3 (copies of one run): a1b2c3.jsonl, backup.jsonl; give the path", ref)
		if err == nil || err.Error() != want {
			t.Errorf("Find(%q): %v\nwant %s", ref, err, want)
		}
	}
	if e, err := Find(entries, "ffff"); err != nil || e.ID() != "ffff" {
		t.Errorf("Find(ffff) = %v, %v", e, err)
	}
}

func TestOlderAndRemove(t *testing.T) {
	dir := t.TempDir()
	paths := map[string]string{}
	for i, id := range []string{"old1", "old2", "new"} {
		p := filepath.Join(dir, id+".jsonl")
		start := t0.Add(-time.Duration(40-i*10) * 24 * time.Hour)
		if id == "new" {
			start = t0
		}
		run{id: id, start: start, prompt: "q", end: "stop"}.write(t, p)
		paths[id] = p
	}
	foreign := filepath.Join(dir, "notes.txt")
	writeFile(t, foreign, "mine")
	old := time.Now().Add(-400 * 24 * time.Hour)
	_ = os.Chtimes(foreign, old, old)

	entries, err := Scan(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sel := Older(entries, t0.Add(-25*24*time.Hour))
	var ids []string
	for _, e := range sel {
		ids = append(ids, e.ID())
	}
	if strings.Join(ids, ",") != "old1,old2" {
		t.Fatalf("selected %v, want old1,old2 (oldest first, never the foreign file)", ids)
	}
	n, freed, err := Remove(sel)
	if err != nil || n != 2 || freed != sel[0].Size+sel[1].Size {
		t.Fatalf("Remove: %d %d %v", n, freed, err)
	}
	for id, p := range paths {
		_, err := os.Stat(p)
		if gone := os.IsNotExist(err); gone != (id != "new") {
			t.Errorf("%s: gone=%v", id, gone)
		}
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("the foreign file was removed")
	}
}

// A run that started long ago but has no end record and was written to
// since the cutoff may still be going: pruning keeps it. Once its last
// write is as old as the cutoff, it goes like any other.
func TestOlderKeepsRunsStillWritten(t *testing.T) {
	start := t0.Add(-40 * 24 * time.Hour)
	cutoff := t0.Add(-24 * time.Hour)
	going := &Entry{Path: "going.jsonl", ModTime: t0, Header: &transcript.Header{ID: "going", Time: start}}
	killed := &Entry{Path: "killed.jsonl", ModTime: start.Add(time.Hour), Header: &transcript.Header{ID: "killed", Time: start}}
	ended := &Entry{Path: "ended.jsonl", ModTime: t0, Header: &transcript.Header{ID: "ended", Time: start}, End: &transcript.End{Reason: "stop"}}
	var ids []string
	for _, e := range Older([]*Entry{going, killed, ended}, cutoff) {
		ids = append(ids, e.ID())
	}
	if got := strings.Join(ids, ","); got != "killed,ended" {
		t.Errorf("Older = %s, want killed,ended (never the run still written)", got)
	}
}

func TestParseAgeAndSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	ages := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"30d", 30 * 24 * time.Hour, false},
		{"2w", 14 * 24 * time.Hour, false},
		{"36h", 36 * time.Hour, false},
		{"90min", 90 * time.Minute, false},
		{"1h30min", 90 * time.Minute, false},
		{"1h30m", 90 * time.Minute, false}, // m after h is minutes to anyone
		{"3mo", 90 * 24 * time.Hour, false},
		{"45s", 45 * time.Second, false},
		{"0d", 0, false},
		{"1.5mo", 0, true},
		{"-3d", 0, true},
		{"3.5d", 0, true},
		{"thirty days", 0, true},
		{"-1h", 0, true},
	}
	for _, a := range ages {
		got, err := ParseAge(a.in)
		if (err != nil) != a.err || got != a.want {
			t.Errorf("ParseAge(%q) = %v, %v", a.in, got, err)
		}
	}
	since := []struct {
		in   string
		want time.Time
	}{
		{"7d", now.Add(-7 * 24 * time.Hour)},
		{"2026-03-01", time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-03-01T08:00:00+02:00", time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC)},
	}
	for _, s := range since {
		got, err := ParseSince(s.in, now)
		if err != nil || !got.Equal(s.want) {
			t.Errorf("ParseSince(%q) = %v, %v", s.in, got, err)
		}
	}
	if _, err := ParseSince("yesterday", now); err == nil {
		t.Error("ParseSince(yesterday) accepted")
	}
	if got, err := ParseSince("90min", now); err != nil || !got.Equal(now.Add(-90*time.Minute)) {
		t.Errorf("ParseSince(90min) = %v, %v", got, err)
	}
}

// A number of "m" alone is minutes to Go and months to many: the age that
// log --since and log prune --older-than both read refuses it, saying how
// to write either.
func TestParseAgeRefusesBareM(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for _, in := range []string{"5m", "90m", "0.5m", " 6m "} {
		want := fmt.Sprintf("%q is ambiguous: \"m\" could be minutes or months; write %smin for minutes or %smo for months", strings.TrimSpace(in), strings.TrimSuffix(strings.TrimSpace(in), "m"), strings.TrimSuffix(strings.TrimSpace(in), "m"))
		if d, err := ParseAge(in); err == nil || err.Error() != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %s", in, d, err, want)
		}
		if at, err := ParseSince(in, now); err == nil || err.Error() != want {
			t.Errorf("ParseSince(%q) = %v, %v; want %s", in, at, err, want)
		}
	}
}

func TestMatches(t *testing.T) {
	e := &Entry{Prompt: "Weather in PARIS", Answer: "It is sunny"}
	for q, want := range map[string]bool{"paris": true, "SUNNY": true, "tokyo": false, "in paris": true} {
		if e.Matches(q) != want {
			t.Errorf("Matches(%q) = %v", q, !want)
		}
	}
}

// The tool definitions, MCP servers and system prompt of a header are
// passed over exactly, whatever their strings hold, and a header that is
// not JSON, or whose tools are not an array, is refused.
func TestHeaderFieldsPastTools(t *testing.T) {
	tests := []struct {
		in   string
		want transcript.Header // nil Tools, empty System, always
		ok   bool
	}{
		{`{"type":"header","tools":[{"a":"]"}],"system":"s"}`, transcript.Header{Type: "header"}, true},
		{`{"system":"\"tools\":[1]","tools":[[1,{"x":"\\"}]],"id":"x"}`, transcript.Header{ID: "x"}, true},
		{`{"tools_dirs":["a"],"id":"x"}`, transcript.Header{ToolsDirs: []string{"a"}, ID: "x"}, true},
		{`{"x":{"tools":[1]},"tools":[2],"model":"m"}`, transcript.Header{Model: "m"}, true},
		{`{"tools":"not an array"}`, transcript.Header{}, false},
		{`{"tools":[1,2`, transcript.Header{}, false},
	}
	for _, tt := range tests {
		h, err := decodeHeaderFields([]byte(tt.in))
		if (err == nil) != tt.ok || err == nil && !reflect.DeepEqual(*h, tt.want) {
			t.Errorf("decodeHeaderFields(%s) = %+v, %v; want %+v, ok %v", tt.in, h, err, tt.want, tt.ok)
		}
	}
}

// countingReader counts the reads made of a file.
type countingReader struct {
	r     io.ReaderAt
	reads int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.r.ReadAt(p, off)
}

func TestContinuedPromptReads(t *testing.T) {
	// The prompt of a continued run is found by its records' times in a few
	// reads, however many records it copied and added and however long
	// they are.
	dir := t.TempDir()
	tests := []struct {
		name     string
		copied   []string
		steps    int
		output   int
		maxReads int
	}{
		{"few short records", []string{"first"}, 1, 10, 5},
		{"many short records", slices.Repeat([]string{"question"}, 600), 600, 100, 15},
		{"long copied records", slices.Repeat([]string{strings.Repeat("long question ", 2000)}, 12), 100, 100, 25},
		{"long records after the prompt", slices.Repeat([]string{"q"}, 200), 12, 30 << 10, 25},
		{"long records everywhere", slices.Repeat([]string{strings.Repeat("long question ", 2000)}, 12), 12, 30 << 10, 25},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.Repeat("c", i+1)+".jsonl")
			run{id: "c1", parentID: "a1", command: CommandContinue, start: t0, copied: tt.copied, prompt: "and in Tokyo?",
				answer: "Rainy.", steps: tt.steps, toolOutput: tt.output, end: "stop"}.write(t, path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f := &countingReader{r: bytes.NewReader(data)}
			r, release := newFileReader(f, int64(len(data)))
			defer release()
			e := &Entry{}
			if err := e.read(r, Options{}); err != nil {
				t.Fatal(err)
			}
			if e.Prompt != "and in Tokyo?" || e.State() != "stop" {
				t.Errorf("prompt %q, state %q", e.Prompt, e.State())
			}
			t.Logf("%d reads of %d bytes", f.reads, len(data))
			if f.reads > tt.maxReads {
				t.Errorf("%d reads of a file of %d bytes, want at most %d", f.reads, len(data), tt.maxReads)
			}
		})
	}
}
