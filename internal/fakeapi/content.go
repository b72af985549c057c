package fakeapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The checks of a request's tool definitions and images that the real APIs
// make beside the grammar of the conversation, each with the API's error
// text.

var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// imageTypes are the image types both APIs take, by the name the bytes
// sniff to.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// checkOpenAITools checks Chat Completions tool definitions.
func checkOpenAITools(tools []json.RawMessage) (msg, param string) {
	for i, raw := range tools {
		var t struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		_ = json.Unmarshal(raw, &t)
		f := t.Function
		if !toolNamePattern.MatchString(f.Name) {
			return fmt.Sprintf("Invalid 'tools[%d].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", i), fmt.Sprintf("tools[%d].function.name", i)
		}
		if n := utf8.RuneCountInString(f.Description); n > 1024 {
			return fmt.Sprintf("Invalid 'tools[%d].function.description': string too long. Expected a string with maximum length 1024, but got a string with length %d instead.", i, n), fmt.Sprintf("tools[%d].function.description", i)
		}
		if len(f.Parameters) == 0 {
			continue
		}
		var schema map[string]json.RawMessage
		_ = json.Unmarshal(f.Parameters, &schema)
		if string(schema["type"]) != `"object"` {
			return fmt.Sprintf(`Invalid schema for function '%s': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`, f.Name), fmt.Sprintf("tools[%d].function.parameters", i)
		}
		if _, ok := schema["properties"]; !ok {
			return fmt.Sprintf("Invalid schema for function '%s': In context=(), object schema missing properties.", f.Name), fmt.Sprintf("tools[%d].function.parameters", i)
		}
		var v any
		_ = json.Unmarshal(f.Parameters, &v)
		if path := emptyAdditional(v, nil); path != nil {
			return fmt.Sprintf("Invalid schema for function '%s': In context=(%s), schema must have a 'type' key.", f.Name, strings.Join(path, ", ")), fmt.Sprintf("tools[%d].function.parameters", i)
		}
	}
	return "", ""
}

// checkAnthropicTools checks Messages tool definitions.
func checkAnthropicTools(tools []json.RawMessage) string {
	for i, raw := range tools {
		var t struct {
			Name        string                     `json:"name"`
			InputSchema map[string]json.RawMessage `json:"input_schema"`
		}
		_ = json.Unmarshal(raw, &t)
		if !toolNamePattern.MatchString(t.Name) {
			return fmt.Sprintf("tools.%d.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i)
		}
		if string(t.InputSchema["type"]) != `"object"` {
			return fmt.Sprintf("tools.%d.custom.input_schema.type: Input should be 'object'", i)
		}
		for _, k := range []string{"oneOf", "allOf", "anyOf"} {
			if _, ok := t.InputSchema[k]; ok {
				return fmt.Sprintf("tools.%d.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level", i)
			}
		}
	}
	return ""
}

// checkOpenAIImages checks the images of a Chat Completions conversation:
// only a user message takes them, as a data: URL of an image of a type the
// API takes.
func checkOpenAIImages(msgs []json.RawMessage) (msg, param string) {
	for i, raw := range msgs {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &m)
		var parts []struct {
			Type     string `json:"type"`
			ImageURL *struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if json.Unmarshal(m.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if p.Type != "image_url" {
				continue
			}
			if m.Role != "user" {
				return fmt.Sprintf("Invalid 'messages[%d]'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", i, m.Role), fmt.Sprintf("messages[%d]", i)
			}
			if p.ImageURL == nil {
				return fmt.Sprintf("Missing required parameter: 'messages[%d].content[0].image_url'.", i), fmt.Sprintf("messages[%d]", i)
			}
			rest, ok := strings.CutPrefix(p.ImageURL.URL, "data:")
			if !ok {
				continue // a URL the API fetches itself
			}
			_, data, _ := strings.Cut(rest, ";base64,")
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				return "Invalid base64 image_url.", fmt.Sprintf("messages[%d]", i)
			}
			if !imageTypes[http.DetectContentType(b)] {
				return "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", fmt.Sprintf("messages[%d]", i)
			}
		}
	}
	return "", ""
}

// checkResponsesImages checks the images of a Responses item list: the
// parts of a function_call_output's list output and of a user message's
// content, each image a data: URL of an image of a type the API takes.
func checkResponsesImages(items []json.RawMessage) *grammarError {
	type part struct {
		Type     string  `json:"type"`
		ImageURL *string `json:"image_url"`
		FileID   *string `json:"file_id"`
	}
	check := func(where string, p part) *grammarError {
		if p.ImageURL == nil {
			if p.FileID == nil {
				return &grammarError{msg: fmt.Sprintf("Missing required parameter: '%s.image_url'.", where), param: where + ".image_url"}
			}
			return nil
		}
		rest, ok := strings.CutPrefix(*p.ImageURL, "data:")
		if !ok {
			return nil // a URL the API fetches itself
		}
		_, data, _ := strings.Cut(rest, ";base64,")
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return &grammarError{msg: "Invalid base64 image_url.", param: where + ".image_url"}
		}
		if !imageTypes[http.DetectContentType(b)] {
			return &grammarError{msg: "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", param: where + ".image_url"}
		}
		return nil
	}
	for i, raw := range items {
		var it struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Output  json.RawMessage `json:"output"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &it)
		field, list := "content", it.Content
		if it.Type == "function_call_output" {
			field, list = "output", it.Output
		}
		var parts []part
		if json.Unmarshal(list, &parts) != nil {
			continue
		}
		for j, p := range parts {
			where := fmt.Sprintf("input[%d].%s[%d]", i, field, j)
			switch {
			case p.Type == "input_image":
				if field == "content" && it.Role == "assistant" {
					return &grammarError{msg: "Invalid value: 'input_image'. Supported values are: 'output_text' and 'refusal'.", param: where + ".type"}
				}
				if e := check(where, p); e != nil {
					return e
				}
			case field == "output" && p.Type != "input_text" && p.Type != "input_file":
				return &grammarError{msg: fmt.Sprintf("Invalid value: '%s'. Supported values are: 'input_text', 'input_image', and 'input_file'.", p.Type), param: where + ".type"}
			}
		}
	}
	return nil
}

// checkAnthropicImages checks the image blocks of a Messages conversation,
// in tool_result content too: base64 data of a type the API takes, whose
// bytes are what the type says.
func checkAnthropicImages(msgs []json.RawMessage) string {
	type image struct {
		Type   string `json:"type"`
		Source *struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
		Content json.RawMessage `json:"content"`
	}
	check := func(where string, b image) string {
		if b.Source == nil {
			return where + ".source: Field required"
		}
		if b.Source.Type != "base64" {
			return ""
		}
		if !imageTypes[b.Source.MediaType] {
			return where + ".source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'"
		}
		data, err := base64.StdEncoding.DecodeString(b.Source.Data)
		if err != nil {
			return where + ".source.base64.data: Invalid base64 data"
		}
		if got := http.DetectContentType(data); got != b.Source.MediaType {
			return where + ": Image does not match the provided media type " + b.Source.MediaType
		}
		return ""
	}
	for i, raw := range msgs {
		var m struct {
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(raw, &m)
		var blocks []image
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for j, b := range blocks {
			if b.Type == "image" {
				if msg := check(fmt.Sprintf("messages.%d.content.%d.image", i, j), b); msg != "" {
					return msg
				}
			}
			var inner []image
			if b.Type != "tool_result" || json.Unmarshal(b.Content, &inner) != nil {
				continue
			}
			for k, ib := range inner {
				if ib.Type == "image" {
					if msg := check(fmt.Sprintf("messages.%d.content.%d.content.%d.image", i, j, k), ib); msg != "" {
						return msg
					}
				}
			}
		}
	}
	return ""
}

// emptyAdditional finds an "additionalProperties": {} in a schema, which
// Chat Completions refuses, and returns its context as the API writes it:
// 'properties', 'queryBody', 'additionalProperties'.
func emptyAdditional(v any, path []string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if a, ok := m["additionalProperties"].(map[string]any); ok && len(a) == 0 {
		return append(path, "'additionalProperties'")
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			if found := emptyAdditional(p, append(append([]string{}, path...), "'properties'", "'"+name+"'")); found != nil {
				return found
			}
		}
	}
	return nil
}
