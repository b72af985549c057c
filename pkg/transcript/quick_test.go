package transcript

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/wire"
)

// The quick decoders know the records' keys by heart: a field added to a
// record must be added to them too, or they would skip it.
func TestQuickKeysAreTheTags(t *testing.T) {
	for _, tc := range []struct {
		v    any
		keys []string
	}{{Header{}, headerKeys}, {End{}, endKeys}, {Usage{}, usageKeys}} {
		var tags []string
		rt := reflect.TypeOf(tc.v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			tags = append(tags, name)
		}
		if !reflect.DeepEqual(tags, tc.keys) {
			t.Errorf("%s: the quick decoder knows %v, the struct has %v", rt.Name(), tc.keys, tags)
		}
	}
}

// writerLines writes records of every kind and shape as the writer does and
// returns its lines.
func writerLines(t *testing.T) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, nil)
	tool := json.RawMessage(`{"type":"function","function":{"name":"get","description":"Gets \"it\".","parameters":{"type":"object"}}}`)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteHeader(Header{ID: "0123abcd", Time: time.Date(2026, 3, 1, 10, 0, 0, 123456789, time.UTC), Command: "continue",
		Provider: "anthropic", Model: "claude-x", BaseURL: "http://127.0.0.1:1/v1", ToolsDirs: []string{"/a", "tools.d"},
		Tools: []json.RawMessage{tool, tool}, System: "Be brief.\n\"Quote\" <b> & é 東京 😀\u2028", MaxSteps: 1 << 30, Parallel: 4,
		MaxTotalTokens: 400000, MaxCost: 0.1 + 0.2, Context: &ContextPolicy{Limit: 32000, Keep: 3, KeepTools: []string{"plan"}, ClearAtLeast: 6400, Editing: "client"},
		Parent: "/x/y.jsonl", ParentID: "ffff", Agentloop: "v1.2.3",
		MCPServers: []MCPServer{{Name: "fs", Transport: "stdio", Command: []string{"npx", "server"}, Tools: []string{"read"}}}}))
	must(w.WriteHeader(Header{Provider: "openai", Model: "m"}))
	for _, m := range []string{
		`{"role":"user","content":"What is \"it\"?\n\tTab \\ é 😀"}`,
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get","arguments":"{\"x\":1}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","content":"42"}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
		`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"yes","annotations":[]}]}`,
		`{"type":"function_call","call_id":"c1","name":"get","arguments":"{}"}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"x"},{"type":"tool_use","id":"t","name":"get","input":{"a":[1,2.5,-3e2,true,false,null]}}]}`,
	} {
		must(w.WriteMessage(Message{Step: 3, Message: json.RawMessage(m), Usage: &Usage{InputTokens: 10, OutputTokens: 2},
			LatencyMS: 120, FinishReason: "stop", Results: []Result{{CallID: "c1", Name: "get", ExitCode: -1, DurationMS: 5}}}))
	}
	must(w.WriteMessage(Message{Step: 3, Message: json.RawMessage(`{"role":"user","content":[{"type":"text","text":"Images of c1:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`),
		ImagesOf: []string{"c1"}}))
	must(w.WriteEnd(End{Reason: wire.ReasonError, Error: "provider: 429 \"slow down\"", Steps: 12,
		Usage: Usage{InputTokens: 1 << 40, OutputTokens: 5, CacheCreationInputTokens: 6, CacheReadInputTokens: 7, ReasoningTokens: 8}}))
	must(w.WriteEnd(End{Reason: wire.ReasonStop}))
	cost := 0.41
	must(w.WriteEnd(End{Reason: wire.ReasonBudget, Steps: 3, CostUSD: &cost}))
	return bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
}

// Every line the writer writes is read quickly, and as encoding/json reads
// it.
func TestQuickReadsWriterLines(t *testing.T) {
	for _, line := range writerLines(t) {
		var typ struct{ Type string }
		if err := json.Unmarshal(line, &typ); err != nil {
			t.Fatal(err)
		}
		switch typ.Type {
		case TypeHeader:
			got, ok := QuickHeader(line)
			var want Header
			if err := json.Unmarshal(line, &want); err != nil {
				t.Fatal(err)
			}
			want.Tools, want.MCPServers, want.System = nil, nil, ""
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("QuickHeader(%s) = %+v, %v; want %+v", line, got, ok, want)
			}
		case TypeEnd:
			got, ok := QuickEnd(line)
			var want End
			if err := json.Unmarshal(line, &want); err != nil {
				t.Fatal(err)
			}
			if !ok || !reflect.DeepEqual(got, want) {
				t.Errorf("QuickEnd(%s) = %+v, %v; want %+v", line, got, ok, want)
			}
		case TypeMessage:
			got, ok := QuickMessage(line)
			var m Message
			if err := json.Unmarshal(line, &m); err != nil {
				t.Fatal(err)
			}
			role, text := MessageText(m.Message)
			if want := (MessageLine{Step: m.Step, Role: role, Text: text, Images: len(m.ImagesOf) > 0}); !ok || got != want {
				t.Errorf("QuickMessage(%s) = %+v, %v; want %+v", line, got, ok, want)
			}
		}
	}
}

// Lines the quick decoders cannot be sure to read as encoding/json does
// are left to it.
func TestQuickGivesUp(t *testing.T) {
	header := func(fields string) string {
		return `{"type":"header","version":1,"id":"x","time":"2026-03-01T10:00:00Z",` + fields + `}`
	}
	tests := []struct {
		name, line string
		decode     func([]byte) bool
	}{
		{"a key in another case", header(`"Model":"m"`), quickHeaderOK},
		{"a key in another case, Unicode folding", header(`"tools_dirſ":["a"]`), quickHeaderOK},
		{"an escaped key", header(`"mod\u0065l":"m"`), quickHeaderOK},
		{"a key twice", header(`"model":"a","model":"b"`), quickHeaderOK},
		{"null for a string", header(`"model":null`), quickHeaderOK},
		{"tools that are null", header(`"tools":null`), quickHeaderOK},
		{"tools that are not a list", header(`"tools":{}`), quickHeaderOK},
		{"MCP servers that are not a list", header(`"mcp_servers":{}`), quickHeaderOK},
		{"a number for a string", header(`"model":7`), quickHeaderOK},
		{"a fraction for an int", header(`"max_steps":1.0`), quickHeaderOK},
		{"an exponent for an int", header(`"max_steps":1e3`), quickHeaderOK},
		{"an int too large", header(`"max_steps":12345678901234567890`), quickHeaderOK},
		{"invalid UTF-8 in a string", header("\"model\":\"a\xffb\""), quickHeaderOK},
		{"a system prompt that is not a string", header(`"system":["a"]`), quickHeaderOK},
		{"a system prompt that is null", header(`"system":null`), quickHeaderOK},
		{"invalid JSON in the system prompt", header(`"system":"a\x"`), quickHeaderOK},
		{"a time that does not parse", header(`"model":"m","time":"yesterday"`), quickHeaderOK},
		{"invalid JSON in the tools", header(`"tools":[1 2]`), quickHeaderOK},
		{"text after the object", header(``) + `x`, quickHeaderOK},
		{"a cut-off line", header(`"model":"m`), quickHeaderOK},
		{"not an object", `["header"]`, quickHeaderOK},
		{"null", `null`, quickHeaderOK},
		{"usage with a key in another case", `{"type":"end","reason":"stop","usage":{"Input_Tokens":1}}`, quickEndOK},
		{"usage that is null", `{"type":"end","reason":"stop","usage":null}`, quickEndOK},
		{"steps as a string", `{"type":"end","steps":"3"}`, quickEndOK},
		{"a message that is null", `{"type":"message","step":1,"message":null}`, quickMessageOK},
		{"a content part that is null", `{"type":"message","message":{"role":"user","content":[null]}}`, quickMessageOK},
		{"a content part's text as a number", `{"type":"message","message":{"role":"user","content":[{"type":"text","text":1}]}}`, quickMessageOK},
		{"a role in another case", `{"type":"message","message":{"Role":"user","content":"a"}}`, quickMessageOK},
		{"images_of that are null", `{"type":"message","message":{"role":"user","content":"a"},"images_of":null}`, quickMessageOK},
		{"images_of that are not strings", `{"type":"message","message":{"role":"user","content":"a"},"images_of":[1]}`, quickMessageOK},
		{"a step in another case", `{"type":"message","STEP":2,"message":{"role":"user","content":"a"}}`, quickMessageOK},
		{"nested too deeply", `{"type":"message","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, quickMessageOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.decode([]byte(tt.line)) {
				t.Errorf("read quickly: %.200s", tt.line)
			}
		})
	}
}

func quickHeaderOK(b []byte) bool  { _, ok := QuickHeader(b); return ok }
func quickEndOK(b []byte) bool     { _, ok := QuickEnd(b); return ok }
func quickMessageOK(b []byte) bool { _, ok := QuickMessage(b); return ok }

// Keys the records do not have are skipped, however they are written, and
// a content of another kind than a string or a list has no text (as Text
// reads it).
func TestQuickSkipsOtherKeys(t *testing.T) {
	m, ok := QuickMessage([]byte(` {"type":"message", "extra": [1, {"a": "\ud83d\ude00"}], "step" : 4, "message": {"role": "assistant", "content": {"text": "no"}, "extra": true}} `))
	if !ok || m != (MessageLine{Step: 4, Role: "assistant"}) {
		t.Errorf("got %+v, %v", m, ok)
	}
}
