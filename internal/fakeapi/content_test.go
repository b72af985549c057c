package fakeapi

import (
	"encoding/json"
	"strings"
	"testing"
)

const png1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

func raws(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

func TestContentChecks(t *testing.T) {
	img := func(url string) string {
		return `{"type":"image_url","image_url":{"url":"` + url + `"}}`
	}
	oai := []struct{ msgs, want string }{
		{`[{"role":"user","content":[` + img("data:image/png;base64,"+png1) + `]}]`, ""},
		{`[{"role":"tool","tool_call_id":"c","content":[` + img("data:image/png;base64,"+png1) + `]}]`, "Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."},
		{`[{"role":"user","content":[` + img("data:image/png;base64,aGVsbG8=") + `]}]`, "You uploaded an unsupported image."},
		{`[{"role":"user","content":[` + img("data:image/png;base64,%%%") + `]}]`, "Invalid base64 image_url."},
	}
	for _, tt := range oai {
		var msgs []json.RawMessage
		_ = json.Unmarshal([]byte(tt.msgs), &msgs)
		got, _ := checkOpenAIImages(msgs)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("openai %s: %q, want %q", tt.msgs, got, tt.want)
		}
	}
	out := func(parts string) string {
		return `[{"type":"function_call","call_id":"c","name":"n","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":[` + parts + `]}]`
	}
	rimg := func(url string) string { return `{"type":"input_image","image_url":"` + url + `"}` }
	resp := []struct{ items, want string }{
		{out(`{"type":"input_text","text":"a"},` + rimg("data:image/png;base64,"+png1)), ""},
		{out(rimg("data:image/png;base64,aGVsbG8=")), "You uploaded an unsupported image."},
		{out(rimg("data:image/png;base64,%%%")), "Invalid base64 image_url."},
		{out(`{"type":"input_image"}`), "Missing required parameter: 'input[1].output[0].image_url'."},
		{out(`{"type":"output_text","text":"a"}`), "Invalid value: 'output_text'. Supported values are: 'input_text', 'input_image', and 'input_file'."},
		{`[{"role":"user","content":[` + rimg("data:image/png;base64,aGVsbG8=") + `]}]`, "You uploaded an unsupported image."},
	}
	for _, tt := range resp {
		var items []json.RawMessage
		_ = json.Unmarshal([]byte(tt.items), &items)
		got := ""
		if err := CheckResponsesItems(items); err != nil {
			got = err.Error()
		}
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("responses %s: %q, want %q", tt.items, got, tt.want)
		}
	}
	ant := []struct{ media, data, want string }{
		{"image/png", png1, ""},
		{"image/jpeg", png1, "messages.0.content.0.content.0.image: Image does not match the provided media type image/jpeg"},
		{"image/svg+xml", png1, "media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"},
	}
	for _, tt := range ant {
		msgs := raws(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"` + tt.media + `","data":"` + tt.data + `"}}]}]}`)
		got := checkAnthropicImages(msgs)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("anthropic %s: %q, want %q", tt.media, got, tt.want)
		}
	}
}

func TestToolChecks(t *testing.T) {
	long := strings.Repeat("x", 1025)
	oai := []struct{ tool, want string }{
		{`{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{}}}}`, ""},
		{`{"type":"function","function":{"name":"a","description":"` + long + `"}}`, "Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 1025 instead."},
		{`{"type":"function","function":{"name":"a","parameters":{"properties":{}}}}`, `Invalid schema for function 'a': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`},
		{`{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}`, "Invalid schema for function 'a': In context=(), object schema missing properties."},
		{`{"type":"function","function":{"name":"a.b"}}`, "string does not match pattern"},
		{`{"type":"function","function":{"name":"s","parameters":{"type":"object","properties":{"q":{"type":"object","additionalProperties":{}}}}}}`,
			"Invalid schema for function 's': In context=('properties', 'q', 'additionalProperties'), schema must have a 'type' key."},
	}
	for _, tt := range oai {
		got, _ := checkOpenAITools(raws(tt.tool))
		if got != tt.want && !(tt.want != "" && strings.Contains(got, tt.want)) {
			t.Errorf("openai %s: %q, want %q", tt.tool, got, tt.want)
		}
	}
	for tool, want := range map[string]string{
		`{"type":"function","name":"a","strict":false}`:   "",
		`{"type":"function","name":"a.b","strict":false}`: "Invalid 'tools[0].name': string does not match pattern.",
	} {
		got := ""
		if e := checkResponsesTools(raws(tool)); e != nil {
			got = e.msg
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("responses %s: %q, want %q", tool, got, want)
		}
	}
	ant := []struct{ tool, want string }{
		{`{"name":"a","input_schema":{"type":"object"}}`, ""},
		{`{"name":"a","input_schema":{"type":"object","anyOf":[]}}`, "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"},
		{`{"name":"a","input_schema":{"type":"array"}}`, "tools.0.custom.input_schema.type: Input should be 'object'"},
	}
	for _, tt := range ant {
		if got := checkAnthropicTools(raws(tt.tool)); got != tt.want {
			t.Errorf("anthropic %s: %q, want %q", tt.tool, got, tt.want)
		}
	}
}
