package agent

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/wire"
)

// AnthropicDialect is the Messages message grammar.
type AnthropicDialect struct{}

var _ Dialect = AnthropicDialect{}

// Name is "anthropic".
func (d AnthropicDialect) Name() string { return string(d.Shape()) }

// Shape is wire.Messages.
func (AnthropicDialect) Shape() wire.Shape { return wire.Messages }

// UserMessage is a user message with one text block, as
// anthropic.NewUserMessage(anthropic.NewTextBlock(text)).
func (AnthropicDialect) UserMessage(text string) Message {
	b, _ := json.Marshal(antUserMessage{Content: []any{antTextBlock{Text: text, Type: "text"}}, Role: "user"})
	return b
}

// antUserMessage has the fields of anthropic.NewUserMessage's message, in
// the order the SDK writes them; so have the blocks below theirs
// (TextBlockParam, ToolResultBlockParam, ImageBlockParam with a base64
// source), none of the optional fields agentloop leaves unset written.
type antUserMessage struct {
	Content []any  `json:"content"`
	Role    string `json:"role"`
}

type antTextBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type antResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error,omitempty"`
	Content   []any  `json:"content,omitempty"`
	Type      string `json:"type"`
}

type antImageBlock struct {
	Source struct {
		Data      string `json:"data"`
		MediaType string `json:"media_type"`
		Type      string `json:"type"`
	} `json:"source"`
	Type string `json:"type"`
}

// ResultMessages writes one user message whose content is a tool_result
// block per call, in call order. Failures carry is_error and a non-empty
// text; an empty success leaves the content out (an empty text block is
// refused). A result's images follow its text inside its tool_result, as
// image blocks; one the API would refuse is described in the text instead.
func (AnthropicDialect) ResultMessages(results []CallResult) ([]ResultMessage, error) {
	if len(results) == 0 {
		return nil, nil
	}
	blocks := make([]any, len(results))
	idx := make([]int, len(results))
	for i, r := range results {
		b := antResultBlock{ToolUseID: r.Call.ID, Type: "tool_result"}
		content := r.Result.Content
		var images []any
		for _, im := range r.Result.Images {
			t, why := sendable(im)
			if why != "" {
				content = withLine(content, notShown(im, why))
				continue
			}
			image := antImageBlock{Type: "image"}
			image.Source.Data, image.Source.MediaType, image.Source.Type = base64.StdEncoding.EncodeToString(im.Data), t, "base64"
			images = append(images, image)
		}
		if r.Result.IsError {
			b.IsError = true
			if strings.TrimSpace(content) == "" {
				content = "the tool failed without a message"
			}
		}
		if strings.TrimSpace(content) != "" {
			b.Content = []any{antTextBlock{Text: content, Type: "text"}}
		}
		b.Content = append(b.Content, images...)
		blocks[i] = b
		idx[i] = i
	}
	msg, err := json.Marshal(antUserMessage{Content: blocks, Role: "user"})
	if err != nil {
		return nil, err
	}
	return []ResultMessage{{Message: msg, Results: idx}}, nil
}

// antMessage holds the fields of a Messages message the loop reads.
type antMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type antBlock struct {
	Type      string          `json:"type"`
	Source    *antImageSource `json:"source"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// antImageSource is an image block's source.
type antImageSource struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// recordedImage reads an image block's source back.
func recordedImage(src *antImageSource) Image {
	if src == nil {
		return Image{}
	}
	data, _ := base64.StdEncoding.DecodeString(src.Data)
	return Image{MIMEType: src.MediaType, Data: data}
}

func antBlocks(content json.RawMessage) ([]antBlock, string) {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return nil, s
	}
	var blocks []antBlock
	_ = json.Unmarshal(content, &blocks)
	return blocks, ""
}

// ParseAssistant reads text and tool_use blocks from an assistant message.
func (AnthropicDialect) ParseAssistant(msg Message) (*Turn, error) {
	var m antMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return nil, fmt.Errorf("assistant message is not a JSON object: %w", err)
	}
	if m.Role != "assistant" {
		return nil, fmt.Errorf("message has role %q, want assistant", m.Role)
	}
	blocks, text := antBlocks(m.Content)
	t := &Turn{Messages: []Message{msg}, Stop: StopEnd}
	var b strings.Builder
	b.WriteString(text)
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			b.WriteString(bl.Text)
		case "tool_use":
			args := []byte(bl.Input)
			if len(args) == 0 {
				args = []byte("{}")
			}
			t.Calls = append(t.Calls, Call{ID: bl.ID, Name: bl.Name, Arguments: args})
		}
	}
	t.Text = b.String()
	if len(t.Calls) > 0 {
		t.Stop = StopToolUse
	}
	return t, nil
}

// ParseResults reads the tool_result blocks of a user message.
func (AnthropicDialect) ParseResults(msg Message) []RecordedResult {
	var m antMessage
	if json.Unmarshal(msg, &m) != nil || m.Role != "user" {
		return nil
	}
	blocks, _ := antBlocks(m.Content)
	var out []RecordedResult
	for _, bl := range blocks {
		if bl.Type != "tool_result" {
			continue
		}
		r := RecordedResult{CallID: bl.ToolUseID, IsError: bl.IsError}
		inner, text := antBlocks(bl.Content)
		for _, ib := range inner {
			switch ib.Type {
			case "text":
				text += ib.Text
			case "image":
				// An image reads as its label, so that a replay that gets
				// another image, or none, sees a difference.
				text = withLine(text, "[image: "+imageLabel(recordedImage(ib.Source))+"]")
			}
		}
		r.Content, r.Text = text, text
		out = append(out, r)
	}
	return out
}

// ResultContents locates the content of each tool_result block of a user
// message.
func (AnthropicDialect) ResultContents(msg Message) []ResultContent {
	var role string
	var content span
	err := objectFields(msg, 0, func(key []byte, v span) bool {
		switch string(key) {
		case `"role"`:
			role, _ = stringValue(msg, v)
		case `"content"`:
			content = v
		}
		return true
	})
	if err != nil || role != "user" || content.end == 0 || msg[content.start] != '[' {
		return nil
	}
	var out []ResultContent
	_ = arrayElems(msg, content.start, func(block span) {
		var typ, id string
		var c span
		_ = objectFields(msg, block.start, func(key []byte, v span) bool {
			switch string(key) {
			case `"type"`:
				typ, _ = stringValue(msg, v)
			case `"tool_use_id"`:
				id, _ = unquote(msg[v.start:v.end])
			case `"content"`:
				c = v
			}
			return true
		})
		if typ == "tool_result" {
			out = append(out, ResultContent{CallID: id, Start: c.start, End: c.end})
		}
	})
	return out
}

// ItemTurns is false: a turn is one assistant message.
func (AnthropicDialect) ItemTurns() bool { return false }

// Role is the message's role.
func (AnthropicDialect) Role(msg Message) string { return messageRole(msg) }

// antTool is a custom tool definition; the schema stays raw so the
// properties keep their order.
type antTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type cacheControl struct {
	Type string `json:"type"`
}

// ToolDefs writes {"name","description","input_schema"} definitions; the
// last carries cache_control, which caches the whole tools array. One the
// API would refuse is a *ToolDefError.
func (AnthropicDialect) ToolDefs(defs []ToolSpec) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(defs))
	for i, d := range defs {
		if p := checkSpec(specRules{}, d); p != "" {
			return nil, &ToolDefError{Tool: d.Name, Problem: p}
		}
		t := antTool{Name: d.Name, Description: d.Description, InputSchema: d.Parameters}
		if len(t.InputSchema) == 0 {
			t.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if i == len(defs)-1 {
			t.CacheControl = &cacheControl{Type: "ephemeral"}
		}
		b, err := marshalNoEscape(t)
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", d.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
