package transcript

import (
	"encoding/json"
	"strings"
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
	if len(m.Content) == 0 || m.Content[0] == 'n' {
		return m.Role, ""
	}
	if m.Content[0] == '"' {
		var s string
		_ = json.Unmarshal(m.Content, &s)
		return m.Role, s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) != nil {
		return m.Role, ""
	}
	var texts []string
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
	}
	return m.Role, strings.Join(texts, "")
}

// TotalInput is every input token of a request, whatever the provider
// counts in input_tokens: OpenAI's prompt_tokens include the cached ones,
// Anthropic's input_tokens leave out those read from and written to the
// cache.
func (u Usage) TotalInput(provider string) int64 {
	if provider == "anthropic" {
		return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
	}
	return u.InputTokens
}

// Total is every token of a request or a run, input and output.
func (u Usage) Total(provider string) int64 {
	return u.TotalInput(provider) + u.OutputTokens
}
