package fakeapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
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
		{"empty final user string", `[{"role":"user","content":"q"},{"role":"assistant","content":"a"},{"role":"user","content":" "}]`,
			"messages.2: all messages must have non-empty content except for the optional final assistant message"},
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
	if got := checkAnthropicGrammar(msgs(t, `[{"role":"user","content":"q"},{"role":"assistant","content":""}]`)); got != "" {
		t.Errorf("an empty final assistant message is valid; got %q", got)
	}
}

// corpusResponses reads the Responses records of the corpus.
func corpusResponses(t *testing.T) []responsesRecord {
	t.Helper()
	f, err := os.Open("../../testdata/corpus/pydantic-ai-responses.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var recs []responsesRecord
	for line := 1; sc.Scan(); line++ {
		var rec responsesRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		rec.line = line
		recs = append(recs, rec)
	}
	return recs
}

type responsesRecord struct {
	line    int
	API     string  `json:"api"`
	Status  int     `json:"status"`
	Error   *string `json:"error"`
	Host    string  `json:"host"`
	Request struct {
		Model        string            `json:"model"`
		Input        json.RawMessage   `json:"input"`
		Store        *bool             `json:"store"`
		Tools        []json.RawMessage `json:"tools"`
		Previous     *string           `json:"previous_response_id"`
		Conversation json.RawMessage   `json:"conversation"`
	} `json:"request"`
}

// The fake Responses server agrees with the real API on the recorded
// traffic: every request accepted is accepted, and the grammar rejection
// the API recorded is rejected with its text.
func TestResponsesGrammarAgreesWithTheCorpus(t *testing.T) {
	accepted, rejected := 0, 0
	for _, rec := range corpusResponses(t) {
		if rec.API != "openai-responses" {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(rec.Request.Input, &items); err != nil {
			t.Fatalf("line %d: input: %v", rec.line, err)
		}
		store := rec.Request.Store == nil || *rec.Request.Store
		got := checkResponsesTools(rec.Request.Tools)
		if got == nil {
			got = checkResponsesItems(items, store, issued{earlier: rec.Request.Previous != nil || len(rec.Request.Conversation) > 0})
		}
		if got == nil {
			got = checkReasoningModel(rec.Request.Model, items)
		}
		switch {
		case rec.Status == 200:
			accepted++
			if got != nil {
				t.Errorf("line %d (%s): accepted by the real API, refused here: %s", rec.line, rec.Host, got.msg)
			}
		case rec.Host == "api.openai.com" && rec.Error != nil && strings.HasPrefix(*rec.Error, "Item '"):
			rejected++
			if got == nil || got.msg != *rec.Error {
				t.Errorf("line %d: the real API said %q; here %+v", rec.line, *rec.Error, got)
			}
		}
	}
	if accepted < 60 || rejected != 1 {
		t.Errorf("checked %d accepted and %d rejected records; the corpus holds 63 and 1", accepted, rejected)
	}
}

func TestResponsesGrammarRejectsWithTheRealTexts(t *testing.T) {
	const (
		user = `{"role":"user","content":"q"}`
		rs   = `{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABxyz"}`
		fc1  = `{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"}`
		fc2  = `{"type":"function_call","id":"fc_2","call_id":"call_2","name":"f","arguments":"{}"}`
		out1 = `{"type":"function_call_output","call_id":"call_1","output":"a"}`
		out2 = `{"type":"function_call_output","call_id":"call_2","output":"b"}`
	)
	made := issued{final: map[string]string{"rs_1": "gAAAAABxyz"}, reasoning: map[string]string{"fc_1": "rs_1", "fc_2": "rs_1"}}
	tests := []struct {
		name, items string
		store       bool
		is          issued
		want        string
	}{
		{"no output", `[` + user + `,` + rs + `,` + fc1 + `,` + fc2 + `,` + out2 + `]`, false, issued{},
			"No tool output found for function call call_1."},
		{"message before the output", `[` + user + `,` + fc1 + `,` + user + `,` + out1 + `]`, false, issued{},
			"No tool output found for function call call_1."},
		{"output without its call", `[` + user + `,` + out1 + `]`, false, issued{},
			"No tool call found for function call output with call_id call_1."},
		{"call without its reasoning", `[` + user + `,` + fc1 + `,` + fc2 + `,` + out1 + `,` + out2 + `]`, false, made,
			"Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'."},
		{"reasoning after its call", `[` + user + `,` + fc1 + `,` + rs + `,` + fc2 + `,` + out1 + `,` + out2 + `]`, false, made,
			"Item 'fc_1' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1'."},
		{"reasoning alone", `[` + user + `,` + rs + `,` + user + `]`, false, issued{},
			"Item 'rs_1' of type 'reasoning' was provided without its required following item."},
		{"reasoning at the end", `[` + user + `,` + rs + `]`, false, issued{},
			"Item 'rs_1' of type 'reasoning' was provided without its required following item."},
		{"reasoning without ciphertext", `[` + user + `,{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":null},` + fc1 + `,` + out1 + `]`, false, issued{},
			"Item with id 'rs_1' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."},
		{"another ciphertext", `[` + user + `,` + strings.Replace(rs, "xyz", "abc", 1) + `,` + fc1 + `,` + out1 + `]`, false, made,
			"The encrypted content gAAA...Babc could not be verified."},
		{"duplicate item", `[` + user + `,` + rs + `,` + rs + `,` + fc1 + `,` + out1 + `]`, false, issued{},
			"Duplicate item found with id rs_1. Remove duplicate items from your input and try again."},
		{"object arguments", `[` + user + `,{"type":"function_call","call_id":"c","name":"f","arguments":{}}]`, false, issued{},
			"Invalid type for 'input[1].arguments': expected a string, but got an object instead."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkResponsesItems(msgs(t, tt.items), tt.store, tt.is)
			if got == nil || got.msg != tt.want {
				t.Errorf("got %+v, want %q", got, tt.want)
			}
		})
	}
	ok := `[` + user + `,` + rs + `,` + fc1 + `,` + fc2 + `,` + out2 + `,` + out1 + `,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"x"}]}]`
	if got := checkResponsesItems(msgs(t, ok), false, made); got != nil {
		t.Errorf("outputs in any order after the calls are valid; got %q", got.msg)
	}
	// The official API pairs a call with its output by call_id: the
	// model's own message between them (output items [call, message]) is
	// accepted (DeepSeek's endpoint refuses it; pydantic-ai's profile for
	// OpenAI says the official one does not).
	msg := `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Checking.","annotations":[]}]}`
	textAfter := `[` + user + `,` + rs + `,` + fc1 + `,` + msg + `,` + out1 + `]`
	if got := checkResponsesItems(msgs(t, textAfter), false, made); got != nil {
		t.Errorf("the model's message between its call and the output is valid; got %q", got.msg)
	}
	stored := `[` + user + `,{"type":"reasoning","id":"rs_1","summary":[]},` + fc1 + `,` + out1 + `]`
	if got := checkResponsesItems(msgs(t, stored), true, issued{}); got != nil {
		t.Errorf("with store, a reasoning item without its ciphertext is looked up; got %q", got.msg)
	}
}

// The fake streams the events of a turn in the order the API sends them
// (as recorded from api.openai.com), and a reasoning item's ciphertext in
// three forms: cut short when the item is added, whole when it is done,
// whole with other bytes in the completed response.
func TestResponsesStreamEventSequence(t *testing.T) {
	summary, text := "Plan.", "Hi."
	s := NewResponses([]Step{{Reasoning: []Reasoning{{Summary: summary}}, Text: &text,
		ToolCalls: []ToolCall{{ID: "call_1", Name: "f", Arguments: `{"a":1}`}}}}, "")
	defer s.Close()
	res, err := http.Post(s.BaseURL()+"/responses", "application/json",
		strings.NewReader(`{"model":"o4-mini","stream":true,"store":false,"include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"q"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var types []string
	ciphers := map[string]string{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			Seq      int    `json:"sequence_number"`
			Item     *respInItem
			Response *struct {
				Output []respInItem `json:"output"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Seq != len(types) {
			t.Errorf("event %d has sequence_number %d", len(types), ev.Seq)
		}
		types = append(types, ev.Type)
		switch {
		case ev.Item != nil && ev.Item.Type == "reasoning":
			ciphers[strings.TrimPrefix(ev.Type, "response.output_item.")] = *ev.Item.EncryptedContent
		case ev.Type == "response.completed":
			ciphers["completed"] = *ev.Response.Output[0].EncryptedContent
		}
	}
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if strings.Join(types, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(types, "\n"), strings.Join(want, "\n"))
	}
	added, done, completed := ciphers["added"], ciphers["done"], ciphers["completed"]
	if len(added) >= len(done) || len(done) != len(completed) || done == completed || !strings.HasPrefix(done, "gAAAAA") {
		t.Errorf("ciphertexts: added %q, done %q, completed %q", added, done, completed)
	}
}

// Reasoning items go only to a reasoning model: OpenAI's other models
// (gpt-4o, gpt-4.1, …) refuse them with the real API's text, as after a
// conversation is resumed with such a model. Servers with other model
// names (DeepSeek's) take them, as the corpus records.
func TestResponsesReasoningItemsNeedAReasoningModel(t *testing.T) {
	text := "Hi."
	const input = `[{"role":"user","content":"q"},` +
		`{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABxyz"},` +
		`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"a","annotations":[]}]},` +
		`{"role":"user","content":"again"}]`
	tests := []struct {
		model string
		want  string // the error's text, or "" for an answer
	}{
		{"gpt-4.1", "Reasoning input items can only be provided to a reasoning or computer use model. Remove reasoning items from your input and try again."},
		{"gpt-4o-mini", "Reasoning input items can only be provided to a reasoning or computer use model. Remove reasoning items from your input and try again."},
		{"o4-mini", ""},
		{"gpt-5-mini", ""},
		{"deepseek-v4-flash", ""},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			s := NewResponses([]Step{{Text: &text}}, "")
			defer s.Close()
			res, err := http.Post(s.BaseURL()+"/responses", "application/json",
				strings.NewReader(`{"model":"`+tt.model+`","store":false,"input":`+input+`}`))
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			var body struct {
				Error *struct {
					Message string `json:"message"`
					Type    string `json:"type"`
				} `json:"error"`
			}
			if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && (res.StatusCode != 200 || body.Error != nil):
				t.Errorf("status %d, error %+v; want an answer", res.StatusCode, body.Error)
			case tt.want != "" && (res.StatusCode != 400 || body.Error == nil || body.Error.Message != tt.want || body.Error.Type != "invalid_request_error"):
				t.Errorf("status %d, error %+v; want 400 %q", res.StatusCode, body.Error, tt.want)
			}
		})
	}
}

// A reasoning item carries its ciphertext only when the request asks for
// it (include reasoning.encrypted_content); without it, under store false,
// the item cannot be sent back: the API looks it up by id and finds
// nothing.
func TestResponsesCiphertextOnlyWhenAsked(t *testing.T) {
	text := "Hi."
	s := NewResponses([]Step{{Reasoning: []Reasoning{{}}, Text: &text}, {Text: &text}}, "")
	defer s.Close()
	post := func(body string) (int, map[string]any) {
		t.Helper()
		res, err := http.Post(s.BaseURL()+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, out
	}
	const user = `{"role":"user","content":"q"}`
	status, resp := post(`{"model":"o4-mini","store":false,"input":[` + user + `]}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, resp)
	}
	output, _ := resp["output"].([]any)
	if len(output) != 2 {
		t.Fatalf("output %v", output)
	}
	rs := output[0].(map[string]any)
	if rs["type"] != "reasoning" || rs["encrypted_content"] != nil {
		t.Fatalf("without include, the reasoning item is %v; want encrypted_content null", rs)
	}
	items := []any{map[string]any{"role": "user", "content": "q"}, output[0], output[1], map[string]any{"role": "user", "content": "again"}}
	b, _ := json.Marshal(map[string]any{"model": "o4-mini", "store": false, "input": items})
	status, resp = post(string(b))
	e, _ := resp["error"].(map[string]any)
	want := fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.", rs["id"])
	if status != 400 || e == nil || e["message"] != want {
		t.Errorf("sent back: status %d, %v; want 400 %q", status, resp, want)
	}
}

// max_output_tokens below 16 is refused as the API refuses it; 16 is
// answered.
func TestResponsesMaxOutputTokensMinimum(t *testing.T) {
	text := "Hi."
	s := NewResponses([]Step{{Text: &text}}, "")
	defer s.Close()
	for _, tt := range []struct {
		n      int
		status int
		want   string
	}{
		{10, 400, "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead."},
		{16, 200, ""},
	} {
		body := fmt.Sprintf(`{"model":"gpt-5-mini","store":false,"max_output_tokens":%d,"input":[{"role":"user","content":"q"}]}`, tt.n)
		res, err := http.Post(s.BaseURL()+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Error *struct{ Message, Param, Code string }
		}
		err = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case res.StatusCode != tt.status:
			t.Errorf("max_output_tokens %d: status %d, %+v; want %d", tt.n, res.StatusCode, out.Error, tt.status)
		case tt.want != "" && (out.Error == nil || out.Error.Message != tt.want || out.Error.Param != "max_output_tokens" || out.Error.Code != "integer_below_min_value"):
			t.Errorf("max_output_tokens %d: error %+v; want %q", tt.n, out.Error, tt.want)
		}
	}
}
