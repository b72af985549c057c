package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/wire"
)

// The dialects write the messages agentloop makes itself (a prompt, tool
// results) as the SDKs' constructors would, byte for byte (each provider
// package's tests hold them to it), with no SDK: the loop, replay and
// validate know the wire shapes without linking one.

// OpenAIDialect is the Chat Completions message grammar.
type OpenAIDialect struct{}

var _ Dialect = OpenAIDialect{}

// Name is "openai".
func (d OpenAIDialect) Name() string { return string(d.Shape()) }

// Shape is wire.Chat.
func (OpenAIDialect) Shape() wire.Shape { return wire.Chat }

// UserMessage is {"role":"user","content":text}, as openai.UserMessage(text).
func (OpenAIDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(oaiUserMessage{Content: text, Role: "user"})
	return b
}

// oaiUserMessage has the fields of openai.UserMessage, in the order the
// SDK writes them; Content is a string or a list of parts.
type oaiUserMessage struct {
	Content any    `json:"content"`
	Role    string `json:"role"`
}

// oaiTextPart is openai.TextContentPart.
type oaiTextPart struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// oaiImagePart is openai.ImageContentPart with a URL and no detail.
type oaiImagePart struct {
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
	Type string `json:"type"`
}

// ResultMessages writes one tool message per call, in call order. A failed
// call's content is {"error": "..."} so the model can tell it from output.
//
// A tool message takes text only, so images go in one user message after
// the tool messages (the API accepts a user message there, and only there
// does it take images): each image after a line naming its call, and each
// call's text saying its images follow. That message answers no call.
func (OpenAIDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	out := make([]ResultMessage, 0, len(results)+1)
	var parts []any
	var withImages []int
	for i, r := range results {
		content := r.Result.Content
		shown := 0
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				content = withLine(content, notShown(im, why))
				continue
			}
			if shown++; shown == 1 {
				withImages = append(withImages, i)
			}
			content = withLine(content, fmt.Sprintf("[image: %s; it follows in the user message after the tool results, as a tool message takes text only]", imageLabel(im)))
			image := oaiImagePart{Type: "image_url"}
			image.ImageURL.URL = dataURL(t, im.Data)
			parts = append(parts,
				oaiTextPart{Text: fmt.Sprintf("Image %d of the result of tool call %s (%s):", shown, r.Call.ID, r.Call.Name), Type: "text"},
				image)
		}
		if r.Result.IsError {
			b, err := json.Marshal(map[string]string{"error": content})
			if err != nil {
				return nil, err
			}
			content = string(b)
		}
		b, err := toolMessage(content, r.Call.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, ResultMessage{Message: b, Results: []int{i}})
	}
	if len(parts) > 0 {
		b, err := json.Marshal(oaiUserMessage{Content: parts, Role: "user"})
		if err != nil {
			return nil, err
		}
		out = append(out, ResultMessage{Message: b, Images: withImages})
	}
	return out, nil
}

// oaiToolMessage has the fields of openai.ToolMessage(content, id) with a
// string content, in the order the SDK writes them.
type oaiToolMessage struct {
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	Role       string `json:"role"`
}

// toolMessage is json.Marshal(openai.ToolMessage(content, id)), byte for
// byte (FuzzToolMessage checks it), at a tenth of the cost: the SDK's
// union type marshals through its own reflection, and encoding/json then
// compacts and checks the output again, which for a run's results of some
// KiB each is a good part of the loop's own CPU.
func toolMessage(content, id string) ([]byte, error) {
	return json.Marshal(oaiToolMessage{Content: content, ToolCallID: id, Role: "tool"})
}

// oaiMessage holds the fields of a Chat Completions message the loop reads.
type oaiMessage struct {
	Role       string     `json:"role"`
	Content    oaiContent `json:"content"`
	ToolCallID string     `json:"tool_call_id"`
	Refusal    *string    `json:"refusal"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// ParseAssistant reads text and calls from an assistant message.
func (OpenAIDialect) ParseAssistant(msg Message) (*Turn, error) {
	var m oaiMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("assistant message is not a JSON object: %w", err)
	}
	if m.Role != "assistant" {
		return nil, fmt.Errorf("message has role %q, want assistant", m.Role)
	}
	t := &Turn{Messages: []Message{msg}, Text: string(m.Content), Stop: StopEnd}
	for _, tc := range m.ToolCalls {
		args := []byte(tc.Function.Arguments)
		var s string
		if json.Unmarshal(tc.Function.Arguments, &s) == nil {
			args = []byte(s)
		}
		t.Calls = append(t.Calls, Call{ID: tc.ID, Name: tc.Function.Name, Arguments: args})
	}
	if len(t.Calls) > 0 {
		t.Stop = StopToolUse
	}
	return t, nil
}

// ParseResults reads a tool message's result.
func (OpenAIDialect) ParseResults(msg Message) []RecordedResult {
	var m oaiMessage
	if json.Unmarshal(msg, &m) != nil || m.Role != "tool" {
		return nil
	}
	content := string(m.Content)
	var e struct {
		Error *string `json:"error"`
	}
	isErr := strings.HasPrefix(content, `{"error":`) && json.Unmarshal([]byte(content), &e) == nil && e.Error != nil
	text := content
	if isErr {
		text = *e.Error
	}
	return []RecordedResult{{CallID: m.ToolCallID, Content: content, Text: text, IsError: isErr}}
}

// ResultContents locates a tool message's content.
func (OpenAIDialect) ResultContents(msg Message) []ResultContent {
	var out []ResultContent
	var role, id string
	var content span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"role"`:
			role, _ = stringValue(msg, v)
		case `"tool_call_id"`:
			id, _ = unquote(msg[v.start:v.end])
		case `"content"`:
			content = v
		}
		return true
	})
	if err != nil || role != "tool" {
		return nil
	}
	return append(out, ResultContent{CallID: id, Start: content.start, End: content.end})
}

// ItemTurns is false: a turn is one assistant message.
func (OpenAIDialect) ItemTurns() bool { return false }

// Role is the message's role.
func (OpenAIDialect) Role(msg Message) string { return messageRole(msg) }

// oaiContent is a content read as its text as it is decoded, without a
// copy of its JSON: an answer can be hundreds of megabytes.
type oaiContent string

func (c *oaiContent) UnmarshalJSON(b []byte) error {
	*c = oaiContent(oaiText(b))
	return nil
}

// oaiText is a content's text: the string, or the text parts joined.
func oaiText(content json.RawMessage) string {
	if len(content) == 0 || string(content) == "null" {
		return ""
	}
	if s, ok := jsonString(content); ok {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// oaiTool is a function tool definition; its parameters stay raw so the
// properties keep their order.
type oaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
		Strict      bool            `json:"strict,omitempty"`
	} `json:"function"`
}

// ToolDefs writes {"type":"function","function":{…}} definitions; one the
// API would refuse is a *ToolDefError.
func (OpenAIDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for _, d := range defs {
		if p := checkSpec(specRules{maxDescription: maxOpenAIDescription, topLevelCombinators: true}, d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		var t oaiTool
		t.Type = "function"
		t.Function.Name = d.Name
		t.Function.Description = d.Description
		t.Function.Parameters = anySchemas(withProperties(d.Parameters))
		t.Function.Strict = d.Strict
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
