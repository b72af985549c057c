package transcript

import (
	"encoding/json"
	"strings"

	"github.com/agentloop/agentloop/pkg/wire"
)

// MessageText reads the role and the text of a message of any of the wire
// shapes: a content string, or the text of its text parts ("text",
// "input_text", "output_text") run together, as the answer is printed. Parts that are not text (images,
// tool calls, tool results) give none, so a user message that only answers
// tool calls has no text. A message that is not a JSON object has neither.
func MessageText(msg json.RawMessage) (role, text string) {
	var m struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return "", ""
	}
	return m.Role, ContentText(m.Content)
}

// ContentText is the text of a message's "content", as MessageText reads
// it.
func ContentText(content json.RawMessage) string {
	var t Text
	_ = t.UnmarshalJSON(content)
	return t.Text
}

// Text decodes a message's "content" straight to its text, as MessageText
// reads it, without holding the content: a reader going through many
// large tool results keeps none of them.
type Text struct{ Text string }

// UnmarshalJSON reads a content string, or the text parts of an array.
// Content of any other form has no text, which is not an error.
func (t *Text) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0 || b[0] == 'n':
		return nil
	case b[0] == '"':
		return json.Unmarshal(b, &t.Text)
	case b[0] != '[':
		return nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(b, &parts) != nil {
		return nil
	}
	var s strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			s.WriteString(p.Text)
		}
	}
	t.Text = s.String()
	return nil
}

// TotalInput is every input token of a request, whatever the provider
// counts in input_tokens: OpenAI's prompt_tokens include the cached ones,
// Anthropic's input_tokens leave out those read from and written to the
// cache.
func (u Usage) TotalInput(provider string) int64 {
	if wire.Shape(provider).CacheApart() {
		return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	}
	return u.InputTokens
}

// Total is every token of a request or a run, input and output.
func (u Usage) Total(provider string) int64 {
	return u.TotalInput(provider) + u.OutputTokens
}
