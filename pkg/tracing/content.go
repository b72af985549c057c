package tracing

import (
	"encoding/json"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// callArguments are the arguments of the tool calls a message makes, by
// call id, as the model wrote them: Chat Completions' tool_calls, a
// Responses function_call item, Anthropic's tool_use blocks.
func callArguments(provider string, msg json.RawMessage) map[string]string {
	var m struct {
		// Chat Completions.
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		// Responses.
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Arguments string `json:"arguments"`
		// Anthropic.
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	out := map[string]string{}
	for _, c := range m.ToolCalls {
		out[c.ID] = c.Function.Arguments
	}
	if m.Type == "function_call" && m.CallID != "" {
		out[m.CallID] = m.Arguments
	}
	if wire.Shape(provider) == wire.Messages {
		var blocks []struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Input json.RawMessage `json:"input"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_use" {
					out[b.ID] = string(b.Input)
				}
			}
		}
	}
	return out
}

// resultTexts are the texts of the tool results a message carries, by call
// id: a Chat Completions tool message, a Responses function_call_output
// item, Anthropic's tool_result blocks.
func resultTexts(provider string, msg json.RawMessage) map[string]string {
	var m struct {
		ToolCallID string          `json:"tool_call_id"`
		Content    json.RawMessage `json:"content"`
		CallID     string          `json:"call_id"`
		Output     json.RawMessage `json:"output"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return nil
	}
	out := map[string]string{}
	switch {
	case m.ToolCallID != "":
		out[m.ToolCallID] = transcript.ContentText(m.Content)
	case m.CallID != "" && m.Output != nil:
		out[m.CallID] = transcript.ContentText(m.Output)
	case wire.Shape(provider) == wire.Messages:
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					out[b.ToolUseID] = transcript.ContentText(b.Content)
				}
			}
		}
	}
	return out
}
