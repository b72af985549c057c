package agent

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

// A 1×1 PNG.
var pixel, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")

// Each provider puts an image where its API lets the model see it; an
// image it cannot send (bytes of no image type, too large) is described
// instead, since the API would refuse the whole request.
func TestImagesPerProvider(t *testing.T) {
	results := []CallResult{
		{Call: Call{ID: "call_1", Name: "shot"}, Result: ToolResult{Content: "a pixel", Images: []Image{{MIMEType: "image/png", Data: pixel}}}},
		{Call: Call{ID: "call_2", Name: "fake"}, Result: ToolResult{Images: []Image{
			{MIMEType: "image/png", Data: []byte("not a png")},
			{MIMEType: "image/jpeg", Data: append([]byte{0xff, 0xd8, 0xff}, make([]byte, MaxImageBytes)...)},
		}}},
		{Call: Call{ID: "call_3", Name: "plain"}, Result: ToolResult{Content: "text only"}},
	}
	notPNG := "[image not shown (image/png, 9 bytes): its bytes are not a PNG, JPEG, GIF or WebP image]"
	tooLarge := "[image not shown (image/jpeg, 3145731 bytes): it is larger than the 3 MiB an image may be]"

	t.Run("anthropic", func(t *testing.T) {
		d := AnthropicDialect{}
		msgs, err := d.ResultMessages(results)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%d messages, %v", len(msgs), err)
		}
		var m struct {
			Content []struct {
				Content []struct {
					Type   string `json:"type"`
					Text   string `json:"text"`
					Source struct {
						MediaType string `json:"media_type"`
						Data      string `json:"data"`
					} `json:"source"`
				} `json:"content"`
			} `json:"content"`
		}
		if err := json.Unmarshal(msgs[0].Message, &m); err != nil {
			t.Fatal(err)
		}
		first := m.Content[0].Content
		if len(first) != 2 || first[0].Text != "a pixel" || first[1].Type != "image" || first[1].Source.MediaType != "image/png" {
			t.Errorf("first result: %+v", first)
		}
		second := m.Content[1].Content
		if len(second) != 1 || second[0].Text != notPNG+"\n"+tooLarge {
			t.Errorf("second result: %+v", second)
		}
		rs := d.ParseResults(msgs[0].Message)
		if rs[0].Content != "a pixel\n[image: image/png, 69 bytes]" {
			t.Errorf("read back: %q", rs[0].Content)
		}
		if err := fakeapi.CheckAnthropicMessages(conversation(t, d, results, msgs)); err != nil {
			t.Error(err)
		}
	})
	t.Run("openai", func(t *testing.T) {
		d := OpenAIDialect{}
		msgs, err := d.ResultMessages(results)
		if err != nil || len(msgs) != 4 {
			t.Fatalf("%d messages, %v", len(msgs), err)
		}
		if rs := d.ParseResults(msgs[0].Message); rs[0].Content != "a pixel\n[image: image/png, 69 bytes; it follows in the user message after the tool results, as a tool message takes text only]" {
			t.Errorf("tool message: %q", rs[0].Content)
		}
		if rs := d.ParseResults(msgs[1].Message); rs[0].Content != notPNG+"\n"+tooLarge {
			t.Errorf("tool message: %q", rs[0].Content)
		}
		images := string(msgs[3].Message)
		if len(msgs[3].Results) != 0 || !strings.Contains(images, `"role":"user"`) || !strings.Contains(images, "Image 1 of the result of tool call call_1 (shot):") ||
			!strings.Contains(images, "data:image/png;base64,iVBORw0KGgo") || strings.Count(images, "image_url") != 2 {
			t.Errorf("user message: %s", images)
		}
		if err := fakeapi.CheckOpenAIMessages(conversation(t, d, results, msgs)); err != nil {
			t.Error(err)
		}
	})
	t.Run("responses", func(t *testing.T) {
		d := ResponsesDialect{}
		msgs, err := d.ResultMessages(results)
		if err != nil || len(msgs) != 3 {
			t.Fatalf("%d messages, %v", len(msgs), err)
		}
		var it struct {
			Output []struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL string `json:"image_url"`
			} `json:"output"`
		}
		if err := json.Unmarshal(msgs[0].Message, &it); err != nil {
			t.Fatalf("%s: %v", msgs[0].Message, err)
		}
		if len(it.Output) != 2 || it.Output[0].Type != "input_text" || it.Output[0].Text != "a pixel" ||
			it.Output[1].Type != "input_image" || !strings.HasPrefix(it.Output[1].ImageURL, "data:image/png;base64,iVBORw0KGgo") {
			t.Errorf("first result: %s", msgs[0].Message)
		}
		if rs := d.ParseResults(msgs[0].Message); rs[0].Content != "a pixel\n[image: image/png, 69 bytes]" {
			t.Errorf("read back: %q", rs[0].Content)
		}
		// Nothing sendable: the output stays a string.
		if rs := d.ParseResults(msgs[1].Message); rs[0].Content != notPNG+"\n"+tooLarge || !strings.Contains(string(msgs[1].Message), `"output":"[image not shown`) {
			t.Errorf("second result: %s", msgs[1].Message)
		}
		if rs := d.ParseResults(msgs[2].Message); rs[0].Content != "text only" {
			t.Errorf("third result: %q", rs[0].Content)
		}
		if err := fakeapi.CheckResponsesItems(conversation(t, d, results, msgs)); err != nil {
			t.Error(err)
		}
	})
	t.Run("responses error", func(t *testing.T) {
		d := ResponsesDialect{}
		msgs, err := d.ResultMessages([]CallResult{{Call: Call{ID: "c", Name: "shot"}, Result: ToolResult{Content: "failed", IsError: true, Images: []Image{{MIMEType: "image/png", Data: pixel}}}}})
		if err != nil {
			t.Fatal(err)
		}
		rs := d.ParseResults(msgs[0].Message)
		if !rs[0].IsError || rs[0].Content != `{"error":"failed"}`+"\n[image: image/png, 69 bytes]" {
			t.Errorf("read back: %+v", rs[0])
		}
	})
}

// conversation is a prompt, a turn calling the results' calls, and the
// messages answering them.
func conversation(t *testing.T, d Dialect, results []CallResult, answer []ResultMessage) []json.RawMessage {
	t.Helper()
	msgs := []json.RawMessage{d.UserMessage("go")}
	var turn []byte
	switch d.Name() {
	case "responses":
		for _, r := range results {
			msgs = append(msgs, []byte(`{"type":"function_call","call_id":"`+r.Call.ID+`","name":"`+r.Call.Name+`","arguments":"{}"}`))
		}
		for _, m := range answer {
			msgs = append(msgs, m.Message)
		}
		return msgs
	case "anthropic":
		var blocks []string
		for _, r := range results {
			blocks = append(blocks, `{"type":"tool_use","id":"`+r.Call.ID+`","name":"`+r.Call.Name+`","input":{}}`)
		}
		turn = []byte(`{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`)
	default:
		var calls []string
		for _, r := range results {
			calls = append(calls, `{"id":"`+r.Call.ID+`","type":"function","function":{"name":"`+r.Call.Name+`","arguments":"{}"}}`)
		}
		turn = []byte(`{"role":"assistant","content":null,"tool_calls":[` + strings.Join(calls, ",") + `]}`)
	}
	msgs = append(msgs, turn)
	for _, m := range answer {
		msgs = append(msgs, m.Message)
	}
	return msgs
}

func TestCheckSpec(t *testing.T) {
	obj := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)
	tests := []struct {
		api  string
		spec ToolSpec
		want string
	}{
		{"openai", ToolSpec{Name: "ok", Parameters: obj}, ""},
		{"openai", ToolSpec{Name: "a.b", Parameters: obj}, "the name is not one the APIs take"},
		{"anthropic", ToolSpec{Name: strings.Repeat("n", 65)}, "the name is not one the APIs take"},
		{"openai", ToolSpec{Name: "d", Description: strings.Repeat("é", 1025)}, "the description has 1025 characters; the OpenAI API takes at most 1024"},
		{"anthropic", ToolSpec{Name: "d", Description: strings.Repeat("é", 1025)}, ""},
		{"openai", ToolSpec{Name: "t", Parameters: json.RawMessage(`{"properties":{}}`)}, `the input schema has no type; the APIs take only an object schema ("type": "object")`},
		{"anthropic", ToolSpec{Name: "t", Parameters: json.RawMessage(`{"type":"string"}`)}, `the input schema has type "string"`},
		{"openai", ToolSpec{Name: "t", Parameters: json.RawMessage(`[]`)}, "the input schema is not a JSON object"},
		{"anthropic", ToolSpec{Name: "t", Parameters: json.RawMessage(`{"type":"object","oneOf":[]}`)}, "the input schema has oneOf at the top"},
		{"openai", ToolSpec{Name: "t", Parameters: json.RawMessage(`{"type":"object","anyOf":[]}`)}, ""},
		{"openai", ToolSpec{Name: "t", Parameters: json.RawMessage(`{"type":"object","properties":{"p":"object"}}`)}, `the input schema's property "p" is "object", not a schema`},
	}
	for _, tt := range tests {
		got := ""
		_, err := DialectFor(tt.api).ToolDefs([]ToolSpec{tt.spec})
		var te *ToolDefError
		if errors.As(err, &te) {
			got = te.Problem
		} else if err != nil {
			t.Fatalf("%s %s: %v", tt.api, tt.spec.Name, err)
		}
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s %s: %q, want %q", tt.api, tt.spec.Name, got, tt.want)
		}
	}
}

func TestWithProperties(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"object"}`: `{"type":"object","properties":{}}`,
		` { } `:             `{"properties":{}}`,
		`{"type":"object","properties":{"a":{}}}`: `{"type":"object","properties":{"a":{}}}`,
		``: ``,
	} {
		if got := string(withProperties(json.RawMessage(in))); got != want {
			t.Errorf("withProperties(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestAnySchemas(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"object","properties":{"q":{"type":"object","additionalProperties":{}}}}`:       `{"properties":{"q":{"additionalProperties":true,"type":"object"}},"type":"object"}`,
		`{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}}}`: `{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}}}`,
		`{"type":"object","additionalProperties":false}`:                                         `{"type":"object","additionalProperties":false}`,
	} {
		if got := string(anySchemas(json.RawMessage(in))); got != want {
			t.Errorf("anySchemas(%s) = %s, want %s", in, got, want)
		}
	}
}

// ImagesText describes the pictures of a Chat Completions images message
// by type and size, never by their bytes; a URL that is no data: URL
// has neither.
func TestImagesText(t *testing.T) {
	url := dataURL("image/png", pixel)
	for in, want := range map[string]string{
		`[{"type":"text","text":"Image 1 of the result of tool call c1 (draw):"},{"type":"image_url","image_url":{"url":"` + url + `"}}]`: "Image 1 of the result of tool call c1 (draw):\n[image: image/png, 69 bytes]",
		`[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]`:                                                          "[image: image, 0 bytes]",
		`"just text"`: "",
		``:            "",
	} {
		if got := ImagesText([]byte(in)); got != want {
			t.Errorf("ImagesText(%.60s) = %q, want %q", in, got, want)
		}
	}
}
