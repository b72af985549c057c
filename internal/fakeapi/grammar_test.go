package fakeapi

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The fake servers must agree with the real APIs: every request the real
// API accepted passes their checks.
func TestGrammarAcceptsWhatTheRealAPIsAccepted(t *testing.T) {
	files := map[string]string{
		"pydantic-ai-openai.jsonl":    "openai-chat",
		"pydantic-ai-other.jsonl":     "openai-chat",
		"pydantic-ai-anthropic.jsonl": "anthropic-messages",
	}
	for file, api := range files {
		f, err := os.Open("../../testdata/corpus/" + file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		line, checked := 0, 0
		for sc.Scan() {
			line++
			var rec struct {
				API     string `json:"api"`
				Status  int    `json:"status"`
				Request struct {
					Messages []json.RawMessage `json:"messages"`
				} `json:"request"`
			}
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatalf("%s:%d: %v", file, line, err)
			}
			if rec.API != api || rec.Status != 200 || len(rec.Request.Messages) == 0 {
				continue
			}
			var msg string
			if api == "openai-chat" {
				msg, _ = checkOpenAIGrammar(rec.Request.Messages)
			} else {
				msg = checkAnthropicGrammar(rec.Request.Messages)
			}
			if msg != "" {
				t.Errorf("%s:%d: accepted by the real API, refused here: %s", file, line, msg)
			}
			checked++
		}
		f.Close()
		if checked == 0 {
			t.Errorf("%s: no records checked", file)
		}
	}
}

func msgs(t *testing.T, s string) []json.RawMessage {
	t.Helper()
	var m []json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenAIGrammarRejectsWithTheRealTexts(t *testing.T) {
	const asst = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	tests := []struct{ name, msgs, want string }{
		{"unanswered", `[{"role":"user","content":"q"},` + asst + `,{"role":"tool","tool_call_id":"call_1","content":"a"},{"role":"user","content":"x"}]`,
			"The following tool_call_ids did not have response messages: call_2"},
		{"unanswered at end", `[{"role":"user","content":"q"},` + asst + `]`, "did not have response messages: call_1, call_2"},
		{"orphan", `[{"role":"user","content":"q"},{"role":"tool","tool_call_id":"call_1","content":"a"}]`,
			"messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."},
		{"unknown id", `[{"role":"user","content":"q"},` + asst + `,{"role":"tool","tool_call_id":"call_9","content":"a"}]`,
			"'tool_call_id' of 'call_9' not found in 'tool_calls' of previous message."},
		{"duplicate", `[{"role":"user","content":"q"},` + asst + `,{"role":"tool","tool_call_id":"call_1","content":"a"},{"role":"tool","tool_call_id":"call_1","content":"a"}]`,
			"Duplicate value for 'tool_call_id' of 'call_1', in messages[2] and messages[3]."},
		{"no id", `[{"role":"user","content":"q"},` + asst + `,{"role":"tool","content":"a"}]`,
			"Missing parameter 'tool_call_id': messages with role 'tool' must have a 'tool_call_id'."},
		{"object arguments", `[{"role":"user","content":"q"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":{}}}]},{"role":"tool","tool_call_id":"c","content":"a"}]`,
			"expected a string, but got an object instead."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := checkOpenAIGrammar(msgs(t, tt.msgs))
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
	ok := `[{"role":"user","content":"q"},` + asst + `,{"role":"tool","tool_call_id":"call_2","content":"b"},{"role":"tool","tool_call_id":"call_1","content":"a"}]`
	if got, _ := checkOpenAIGrammar(msgs(t, ok)); got != "" {
		t.Errorf("results in any order are valid, got %q", got)
	}
}

func TestAnthropicGrammarRejectsWithTheRealTexts(t *testing.T) {
	const asst = `{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}},{"type":"tool_use","id":"toolu_2","name":"f","input":{}}]}`
	res := func(id string) string {
		return `{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}`
	}
	tests := []struct{ name, msgs, want string }{
		{"missing", `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[` + res("toolu_1") + `]}]`,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2."},
		{"text first", `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[{"type":"text","text":"x"},` + res("toolu_1") + `,` + res("toolu_2") + `]}]`,
			"ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2"},
		{"none", `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[{"type":"text","text":"x"}]}]`,
			"messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message."},
		{"unexpected id", `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[` + res("toolu_1") + `,` + res("toolu_2") + `,` + res("toolu_9") + `]}]`,
			"messages.2.content.2: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9."},
		{"orphan first", `[{"role":"user","content":[` + res("toolu_1") + `]}]`,
			"messages.0.content.0: unexpected `tool_use_id` found"},
		{"duplicate use", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}},{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[` + res("a") + `]}]`,
			"messages.1.content.1: tool_use ids must be unique"},
		{"duplicate result", `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[` + res("toolu_1") + `,` + res("toolu_2") + `,` + res("toolu_1") + `]}]`,
			"each tool_use must have a single result. Found multiple `tool_result` blocks with id: toolu_1"},
		{"empty content", `[{"role":"user","content":[]},{"role":"assistant","content":"a"}]`,
			"messages.0: all messages must have non-empty content except for the optional final assistant message"},
		{"empty text", `[{"role":"user","content":[{"type":"text","text":""}]}]`, "messages: text content blocks must be non-empty"},
		{"empty error", `[{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":true}]}]`,
			"messages.2.content.0.tool_result: content cannot be empty if `is_error` is true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkAnthropicGrammar(msgs(t, tt.msgs))
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to contain %q", got, tt.want)
			}
		})
	}
	ok := `[{"role":"user","content":"q"},` + asst + `,{"role":"user","content":[` + res("toolu_2") + `,` + res("toolu_1") + `,{"type":"text","text":"more"}]}]`
	if got := checkAnthropicGrammar(msgs(t, ok)); got != "" {
		t.Errorf("results first in any order, then text, is valid; got %q", got)
	}
}
