package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/wire"
)

// ResponsesDialect is the Responses item grammar: a conversation is a list
// of input items, a turn the output items of one response.
type ResponsesDialect struct{}

var _ Dialect = ResponsesDialect{}

// Name is "responses".
func (d ResponsesDialect) Name() string { return string(d.Shape()) }

// Shape is wire.Responses.
func (ResponsesDialect) Shape() wire.Shape { return wire.Responses }

// UserMessage is {"content":text,"role":"user"}, as
// responses.ResponseInputItemParamOfMessage(text, "user").
func (ResponsesDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(oaiUserMessage{Content: text, Role: "user"})
	return b
}

// respCallOutput is a function_call_output item as the SDK writes
// responses.ResponseInputItemParamOfFunctionCallOutput with its call id
// set; Output is a string or a list of parts.
type respCallOutput struct {
	Output any    `json:"output"`
	CallID string `json:"call_id"`
	Type   string `json:"type"`
}

// respInputText and respInputImage are the parts of an output list
// (responses.ResponseInputTextContentParam, ResponseInputImageContentParam
// with an image URL and no detail).
type respInputText struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type respInputImage struct {
	ImageURL string `json:"image_url"`
	Type     string `json:"type"`
}

// ResultMessages writes one function_call_output item per call, in call
// order. A failed call's output is {"error": "..."}, as for Chat
// Completions. A result with images has a list for its output: the text as
// an input_text part, then each image as an input_image part (a data URL);
// an image the API would refuse is described in the text instead.
func (ResponsesDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	out := make([]ResultMessage, len(results))
	for i, r := range results {
		output := r.Result.Content
		var images []any
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				output = withLine(output, notShown(im, why))
				continue
			}
			images = append(images, respInputImage{ImageURL: dataURL(t, im.Data), Type: "input_image"})
		}
		if r.Result.IsError {
			b, err := json.Marshal(map[string]string{"error": output})
			if err != nil {
				return nil, err
			}
			output = string(b)
		}
		item := respCallOutput{Output: output, CallID: r.Call.ID, Type: "function_call_output"}
		if len(images) > 0 {
			var list []any
			if output != "" {
				list = append(list, respInputText{Text: output, Type: "input_text"})
			}
			item.Output = append(list, images...)
		}
		b, err := json.Marshal(item)
		if err != nil {
			return nil, err
		}
		out[i] = ResultMessage{Message: b, Results: []int{i}}
	}
	return out, nil
}

// respItem holds the fields of an item the loop reads.
type respItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Content   json.RawMessage `json:"content"`
}

// respPart is an element of a message's content or of an output list.
type respPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL string `json:"image_url"`
}

// ParseAssistant reads one output item: the text and refusal of a message,
// the call of a function_call; other items (reasoning, hosted tools) carry
// neither.
func (d ResponsesDialect) ParseAssistant(msg Message) (*Turn, error) {
	var it respItem
	if err := json.Unmarshal(msg, &it); err != nil {
		return nil, fmt.Errorf("item is not a JSON object: %w", err)
	}
	if role := d.Role(msg); role != "assistant" {
		return nil, fmt.Errorf("item of type %q and role %q is not an output item", it.Type, it.Role)
	}
	t := &Turn{Messages: []Message{msg}, Stop: StopEnd}
	switch it.Type {
	case "function_call":
		args := []byte(it.Arguments)
		var s string
		if json.Unmarshal(it.Arguments, &s) == nil {
			args = []byte(s)
		}
		t.Calls = []Call{{ID: it.CallID, Name: it.Name, Arguments: args}}
		t.Stop = StopToolUse
	case "message", "":
		text, refusal := respText(it.Content)
		t.Text = text
		if refusal != "" {
			t.Stop = StopRefusal
			if t.Text == "" {
				t.Text = refusal
			}
		}
	}
	return t, nil
}

// respText is a message content's text (a string, or its text parts
// joined) and refusal.
func respText(content json.RawMessage) (text, refusal string) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s, ""
	}
	var parts []respPart
	_ = json.Unmarshal(content, &parts)
	var b, r strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "output_text", "input_text", "text":
			b.WriteString(p.Text)
		case "refusal":
			r.WriteString(p.Refusal)
		}
	}
	return b.String(), r.String()
}

// ParseResults reads a function_call_output item's result.
func (ResponsesDialect) ParseResults(msg Message) []RecordedResult {
	var it respItem
	if json.Unmarshal(msg, &it) != nil || it.Type != "function_call_output" {
		return nil
	}
	content, _ := respText(it.Output)
	var e struct {
		Error *string `json:"error"`
	}
	isErr := strings.HasPrefix(content, `{"error":`) && json.Unmarshal([]byte(content), &e) == nil && e.Error != nil
	// An image reads as its label, so that a replay that gets another
	// image, or none, sees a difference.
	var parts []respPart
	_ = json.Unmarshal(it.Output, &parts)
	for _, p := range parts {
		if p.Type == "input_image" {
			content = withLine(content, "[image: "+imageLabel(imageFromDataURL(p.ImageURL))+"]")
		}
	}
	text := content
	if isErr {
		text = *e.Error
	}
	return []RecordedResult{{CallID: it.CallID, Content: content, Text: text, IsError: isErr}}
}

// Role is an item's role: its own for a message; "tool" for the outputs
// the client sends (function_call_output and the other *_output items);
// "assistant" for every other item, which only the model makes.
func (ResponsesDialect) Role(msg Message) string {
	var it struct {
		Type string `json:"type"`
		Role string `json:"role"`
	}
	if json.Unmarshal(msg, &it) != nil {
		return ""
	}
	switch {
	case it.Role != "":
		return it.Role
	case strings.HasSuffix(it.Type, "_output"):
		return "tool"
	case it.Type == "" || it.Type == "item_reference":
		return ""
	}
	return "assistant"
}

// ResultContents locates a function_call_output item's output.
func (ResponsesDialect) ResultContents(msg Message) []ResultContent {
	var typ, id string
	var output span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"type"`:
			typ, _ = stringValue(msg, v)
		case `"call_id"`:
			id, _ = unquote(msg[v.start:v.end])
		case `"output"`:
			output = v
		}
		return true
	})
	if err != nil || typ != "function_call_output" {
		return nil
	}
	return []ResultContent{{CallID: id, Start: output.start, End: output.end}}
}

// ItemTurns is true: a turn is the run of output items of one response.
func (ResponsesDialect) ItemTurns() bool { return true }

// respTool is a function tool definition; its parameters stay raw so the
// properties keep their order.
type respTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	// Strict is always sent: the Responses API makes function tools
	// strict unless told otherwise, and strict mode refuses optional
	// parameters.
	Strict bool `json:"strict"`
}

// ToolDefs writes {"type":"function","name",…,"strict"} definitions; one
// the API would refuse is a *ToolDefError. A schema is made the one Chat
// Completions takes (properties present, no empty additionalProperties
// schema): the two APIs check schemas alike.
func (ResponsesDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for _, d := range defs {
		if p := checkSpec(specRules{topLevelCombinators: true}, d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		t := respTool{Type: "function", Name: d.Name, Description: d.Description, Parameters: anySchemas(withProperties(d.Parameters)), Strict: d.Strict}
		if len(t.Parameters) == 0 {
			t.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
