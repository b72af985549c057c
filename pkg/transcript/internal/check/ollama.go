package check

import (
	"bytes"
	"fmt"
)

// Ollama's native /api/chat (api.ChatRequest in ollama/ollama
// api/types.go): messages of role system, user, assistant or tool whose
// content is a string; an assistant's tool_calls are
// [{"function": {"name", "arguments": OBJECT}}], an id only in newer
// versions; a tool message names the tool it answers in tool_name (newer
// versions carry tool_call_id too). Ollama decodes the request into those
// types, so what does not fit them is refused with a 400 ("json: cannot
// unmarshal string into Go struct field
// ChatRequest.messages.tool_calls.function.arguments of type
// api.ToolCallFunctionArguments"); the pairing it does not check: the
// model's chat template renders each tool message after the calls it
// answers, in order, so a call without its tool message is a call the
// model never sees answered. The results are matched by tool_call_id
// where there is one, else by tool_name, else by order.

// addOllama checks a message of an /api/chat request.
func (c *conv) addOllama(m *Msg) {
	switch m.content {
	case KindAbsent, KindNull, KindString:
	default:
		c.report(m.line, m.index, "invalid-message", nil,
			"content is %s; Ollama wants a string (\"json: cannot unmarshal %s into Go struct field ChatRequest.messages.content of type string\")",
			KindName(m.content), goKind(m.content))
	}
	role := bytes.ToLower(m.role) // as Ollama reads it
	switch string(role) {
	case "tool":
		c.ollamaTool(m)
	case "assistant":
		c.closeBlock(m)
		c.ollamaAssistant(m)
	case "user", "system":
		c.closeBlock(m)
	default:
		c.closeBlock(m)
		if !m.hasRole {
			c.report(m.line, m.index, "invalid-message", nil, "message has no role")
			return
		}
		c.reportSev(m.line, m.index, Warning, "invalid-message", nil,
			"%s: Ollama passes it to the model's chat template, which may drop the message", m.unknownRole("system, user, assistant or tool"))
	}
}

// goKind names a JSON kind as encoding/json's errors do.
func goKind(k byte) string {
	switch k {
	case KindArray:
		return "array"
	case KindObject:
		return "object"
	case KindNumber:
		return "number"
	case KindBool:
		return "bool"
	}
	return "string"
}

func (c *conv) ollamaAssistant(m *Msg) {
	switch m.toolCalls {
	case KindAbsent, KindNull:
		return
	case KindArray:
	default:
		c.report(m.line, m.index, "invalid-message", nil, "tool_calls is %s; want an array", KindName(m.toolCalls))
		return
	}
	for i := range m.calls {
		tc := &m.calls[i]
		// A call without an id is named by its place in the message.
		label := fmt.Appendf(nil, "tool_calls[%d]", i)
		id := label
		if tc.hasID && tc.idK == KindString && len(tc.id) > 0 {
			id, label = tc.id, tc.id
		}
		if tc.notObject || tc.function != KindObject {
			what := "is not an object"
			if !tc.notObject {
				what = "has no function object"
			}
			c.report(m.line, m.index, "invalid-tool-call", []string{string(label)}, "call %s %s", label, what)
			c.v.stats.ToolCalls++
			continue
		}
		if !tc.hasName || len(tc.name) == 0 {
			c.reportSev(m.line, m.index, Warning, "invalid-tool-call", []string{string(label)},
				"call %s has no function.name: the model's template shows a call to no tool", label)
		} else {
			c.checkCallKnown(m, label, tc.name)
		}
		switch tc.argsK {
		case KindAbsent, KindNull:
		case KindObject:
			c.checkArgs(m, label, tc.name, tc.args)
		default:
			c.report(m.line, m.index, "arguments-not-object", []string{string(label)},
				"arguments of call %s are %s; Ollama wants a JSON object (\"json: cannot unmarshal %s into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments\")",
				label, KindName(tc.argsK), goKind(tc.argsK))
		}
		h := c.hash(id)
		if tc.hasID {
			c.noteID(m, id, h, m.index)
		}
		c.addPending(m, id, tc.name, h)
	}
	c.blockOpen = len(m.calls) > 0
}

// ollamaTool pairs a tool message with a call of the assistant message
// before: by tool_call_id, else by tool_name, else the first call not yet
// answered.
func (c *conv) ollamaTool(m *Msg) {
	if !c.blockOpen {
		if !c.resync {
			c.report(m.line, m.index, "orphan-result", nil,
				"tool message after no assistant message with tool_calls: the model's template shows a result of no call")
		}
		return
	}
	var p *pend
	switch {
	case m.toolCallIDK == KindString && len(m.toolCallID) > 0:
		id := m.toolCallID
		if p = c.answer(c.hash(id)); p == nil {
			c.report(m.line, m.index, "unknown-result-id", []string{string(id)},
				"tool message for %s, which the assistant message before did not call", id)
			return
		}
	case len(m.toolName) > 0:
		for i := range c.pending {
			q := &c.pending[i]
			if bytes.Equal(q.name, m.toolName) && (p == nil || p.answered && !q.answered) {
				p = q
			}
		}
		if p == nil {
			c.report(m.line, m.index, "unknown-result-id", nil,
				"tool message for tool %s, which the assistant message before did not call", m.toolName)
			return
		}
	default:
		for i := range c.pending {
			if !c.pending[i].answered {
				p = &c.pending[i]
				break
			}
		}
		if p == nil {
			c.report(m.line, m.index, "orphan-result", nil,
				"tool message beyond the %d %s of the assistant message before: it answers no call", len(c.pending), plural(len(c.pending), "call", "calls"))
			return
		}
	}
	if p.answered {
		c.report(m.line, m.index, "duplicate-result", []string{string(p.id)},
			"a second tool message for %s (%s)", p.id, p.name)
		return
	}
	p.answered = true
}
