package history

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// decodeSeeds are lines of every kind the writer writes, and lines it does
// not.
func decodeSeeds(t testing.TB) [][]byte {
	dir := t.TempDir()
	var seeds [][]byte
	for i, r := range []run{
		{id: "a1", start: t0, prompt: "What is \"it\"?\n\tTab é 😀", answer: "Sunny.", steps: 1, toolOutput: 30, end: "stop"},
		{id: "c1", parentID: "a1", command: CommandContinue, provider: "anthropic", start: t0, copied: []string{"first"}, prompt: "and then?", answer: "b", end: "interrupted"},
	} {
		p := filepath.Join(dir, strings.Repeat("x", i+1))
		r.write(t, p)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	}
	for _, s := range []string{
		`{"type":"header","version":1,"id":"x","time":"2026-03-01T10:00:00Z","provider":"openai","model":"m","tools":[{"a":"]"}],"tools_dirs":[]}`,
		`{"type":"header","version":1,"tools" :[1],"Model":"m","model":"n"}`,
		`{"id":"hand","version":1,"type":"header","time":"2026-03-01T10:00:00+02:00","provider":"openai","model":"m","max_steps":-0}`,
		`{"type":"header","tools":[1 2],"system":"\ud83d\ude00 \ud83d x"}`,
		`{"type":"end","time":"2026-03-01T10:00:00.5Z","reason":"stop","steps":3,"usage":{"input_tokens":1,"output_tokens":2,"reasoning_tokens":3}}`,
		`{"type":"end","reason":"error","error":"a\u0000b","usage":{"Input_tokens":1}}`,
		`{"type":"message","seq":1,"step":0,"message":{"role":"user","content":[{"type":"input_text","text":"a"},null,{"type":"text","text":"b"}]}}`,
		`{"type":"message","step":2,"message":{"role":"assistant","content":{"x":1}}}`,
		`{"type":"message","seq":4,"step":1,"message":{"role":"user","content":"Images of c1:"},"images_of":["c1"]}`,
		`{"type":"message","step":1,"message":{"role":"user","content":"x"},"images_of":[]}`,
		`{"type":"message","step":1.5,"message":{"role":"user","content":"x"}}`,
		"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"\xff\"}}",
		`{"type":"message","message":{"role":"user","content":"a"}} x`,
	} {
		seeds = append(seeds, []byte(s))
	}
	return seeds
}

// The quick decoders against encoding/json, the slow way they fall back
// on: whatever a quick decoder reads, the slow one reads the same.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkDecode(t, line)
	})
}

func checkDecode(t *testing.T, line []byte) {
	t.Helper()
	if h, ok := transcript.QuickHeader(line); ok {
		want, err := slowHeader(line)
		if err != nil {
			t.Fatalf("QuickHeader read %q, encoding/json says %v", line, err)
		}
		if !reflect.DeepEqual(&h, want) {
			t.Fatalf("QuickHeader(%q)\n = %+v\nwant %+v", line, h, *want)
		}
	}
	if e, ok := transcript.QuickEnd(line); ok {
		want, ok := slowEnd(line)
		if !ok {
			t.Fatalf("QuickEnd read %q, encoding/json does not", line)
		}
		if !reflect.DeepEqual(&e, want) {
			t.Fatalf("QuickEnd(%q)\n = %+v\nwant %+v", line, e, *want)
		}
	}
	if m, ok := transcript.QuickMessage(line); ok {
		want, ok := slowTail(line)
		if !ok {
			t.Fatalf("QuickMessage read %q, encoding/json does not", line)
		}
		if m != want {
			t.Fatalf("QuickMessage(%q)\n = %+v\nwant %+v", line, m, want)
		}
	}
}

// The seeds run as a test too, and the decoders the listing uses give the
// slow decoders' results, by the quick way or not.
func TestDecode(t *testing.T) {
	quick := 0
	for _, line := range decodeSeeds(t) {
		checkDecode(t, line)
		h1, err1 := decodeHeaderFields(line)
		h2, err2 := slowHeader(line)
		if !reflect.DeepEqual(h1, h2) || (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Errorf("decodeHeaderFields(%s) = %+v, %v; slow: %+v, %v", line, h1, err1, h2, err2)
		}
		e1, ok1 := decodeEnd(line)
		e2, ok2 := slowEnd(line)
		if !reflect.DeepEqual(e1, e2) || ok1 != ok2 {
			t.Errorf("decodeEnd(%s) = %+v, %v; slow: %+v, %v", line, e1, ok1, e2, ok2)
		}
		m1, ok1 := decodeTail(line)
		m2, ok2 := slowTail(line)
		if m1 != m2 || ok1 != ok2 {
			t.Errorf("decodeTail(%s) = %+v, %v; slow: %+v, %v", line, m1, ok1, m2, ok2)
		}
		if _, ok := transcript.QuickHeader(line); ok {
			quick++
		}
	}
	if quick < 2 {
		t.Errorf("%d headers read quickly, want the writer's two at least", quick)
	}
}

// A record is told by its type however it was written: as agentloop
// writes it, with white space around the colon, with "type" after other
// keys; a line that is not a record of the type is not taken for one.
func TestIsType(t *testing.T) {
	tests := []struct {
		line, typ string
		want      bool
	}{
		{`{"type":"end","reason":"stop"}`, "end", true},
		{`{"type":"endx","reason":"stop"}`, "end", false},
		{`{"type":"message","seq":1}`, "end", false},
		{`{"type": "end", "reason": "stop"}`, "end", true},
		{` { "type" :	"end" }`, "end", true},
		{`{"type": "message"}`, "end", false},
		{`{"time":"2026-03-01T10:00:00Z","type":"end"}`, "end", true},
		{`{"time":"2026-03-01T10:00:00Z","kind":"end"}`, "end", false},
		{`{"role":"user","content":"{\"type\":\"end\"}"}`, "end", false},
		{`{"type":"end"`, "end", true},
		{`not json`, "end", false},
		{`{"x":"` + strings.Repeat("a", maxTypeDecode) + `","type":"end"}`, "end", false},
	}
	for _, tt := range tests {
		if got := isType([]byte(tt.line), tt.typ); got != tt.want {
			t.Errorf("isType(%.60q, %q) = %v, want %v", tt.line, tt.typ, got, tt.want)
		}
	}
}
