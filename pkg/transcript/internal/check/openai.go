package check

import (
	"slices"
	"unicode/utf8"
)

// OpenAI Chat Completions: rules 1–13 of transcript-rules.md.

// maxCallID is the Chat Completions limit on a tool call id (rule 8).
const maxCallID = 40

func (c *conv) addOpenAI(m *Msg) {
	if !m.hasRole {
		c.report(m.line, m.index, "invalid-message", nil, "message has no role")
		c.closeBlock(m)
		return
	}
	role := m.role
	if m.nameK != KindAbsent && string(role) != "tool" && string(role) != "function" {
		if m.nameK != KindString || !validName(m.name, 0) {
			c.report(m.line, m.index, "invalid-message-name", nil, "name %q does not match ^[a-zA-Z0-9_-]+$", m.name)
		}
	}
	switch string(role) {
	case "assistant":
		c.closeBlock(m)
		c.openAIAssistant(m)
	case "tool":
		c.openAITool(m)
	case "user", "system", "developer":
		c.closeBlock(m)
		if m.content == KindAbsent || m.content == KindNull {
			c.report(m.line, m.index, "missing-content", nil, "%s message has no content", role)
		} else if m.content != KindString && m.content != KindArray {
			c.report(m.line, m.index, "invalid-message", nil, "content of a %s message is %s; want a string or an array of parts", role, KindName(m.content))
		}
	case "function":
		// The legacy function-calling protocol pairs by name, not id.
		c.closeBlock(m)
	default:
		c.closeBlock(m)
		c.report(m.line, m.index, "invalid-message", nil, "%s", m.unknownRole("system, developer, user, assistant or tool"))
	}
}

// closeBlock ends the run of tool messages after an assistant turn: any
// call not answered by now never will be, where the API is concerned.
func (c *conv) closeBlock(m *Msg) {
	c.resync = false
	if !c.blockOpen {
		return
	}
	c.blockOpen = false
	var ids []string
	c.missed = c.missed[:0]
	for i := range c.pending {
		if !c.pending[i].answered {
			ids = append(ids, string(c.pending[i].id))
			c.missed = append(c.missed, c.pending[i].hash)
		}
	}
	if len(ids) > 0 {
		what := "a tool message"
		if c.shape == shapeResponses {
			what = "a function_call_output"
		}
		c.report(m.line, m.index, "unanswered-call", ids, "%s %s no answer: %s %s before %s",
			describePending(c.pending, c.where), plural(len(ids), "has", "have"), plural(len(ids), "it needs", "each needs"), what, c.where(m.line, m.index))
	}
	c.pending = c.pending[:0]
}

func (c *conv) openAIAssistant(m *Msg) {
	hasCalls := m.toolCalls == KindArray && len(m.calls) > 0
	switch m.content {
	case KindAbsent, KindNull:
		// A refused turn comes back from the API with content null beside
		// its refusal, and goes back as it came.
		if !hasCalls && !m.functionCall && !m.refusal {
			c.report(m.line, m.index, "missing-content", nil, "assistant message has neither content nor tool_calls")
		}
	case KindString, KindArray:
		if hasCalls && m.content == KindString && m.blankString && !c.flat {
			// (Inspect AI writes "" where the API had no text.)
			c.report(m.line, m.index, "empty-content", nil, `content "" beside tool_calls: some gateways refuse empty text; leave content null`)
		} else if hasCalls && m.contentText {
			c.report(m.line, m.index, "content-with-tool-calls", nil, "text content beside tool_calls: accepted by OpenAI, refused by some providers (Mistral)")
		}
	default:
		c.report(m.line, m.index, "invalid-message", nil, "content is %s; want a string, an array of parts or null", KindName(m.content))
	}
	if m.toolCalls != KindAbsent && m.toolCalls != KindNull && m.toolCalls != KindArray {
		c.report(m.line, m.index, "invalid-message", nil, "tool_calls is %s; want an array", KindName(m.toolCalls))
		return
	}
	if !hasCalls {
		return
	}
	c.blockOpen = true
	for i := range m.calls {
		c.openAICall(m, i, &m.calls[i])
	}
}

func (c *conv) openAICall(m *Msg, i int, tc *call) {
	if tc.notObject {
		c.report(m.line, m.index, "invalid-tool-call", nil, "tool_calls[%d] is not an object", i)
		return
	}
	id := tc.id
	switch {
	case !tc.hasID || tc.idK != KindString:
		c.report(m.line, m.index, "invalid-tool-call", nil, "tool_calls[%d] has no string id", i)
		id = nil
	case len(id) == 0:
		c.report(m.line, m.index, "invalid-tool-call", nil, "tool_calls[%d] has an empty id", i)
	}
	if n := utf8.RuneCount(id); n > maxCallID {
		sev := Warning
		target := "OpenAI's limit; other endpoints accept longer ids"
		if c.openAI {
			sev, target = Error, "api.openai.com refuses it"
		}
		c.reportSev(m.line, m.index, sev, "call-id-too-long", []string{string(id)},
			"call id %s is %d characters, over the %d allowed by OpenAI (%s)", id, n, maxCallID, target)
	}
	label := id
	if label == nil {
		label = []byte("tool_calls[" + itoa(i) + "]")
	}
	if tc.flat {
		c.flatCall(m, id, label, tc)
		return
	}
	switch {
	case !tc.hasType:
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, `call %s has no type (want "function")`, label)
	case string(tc.typ) != "function" && string(tc.typ) != "custom":
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, `call %s has type %q (want "function")`, label, tc.typ)
	}
	if tc.function != KindObject {
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "call %s has no function object", label)
	} else if !tc.hasName {
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "call %s has no function.name", label)
	} else {
		c.checkCallName(m, label, tc.name)
		c.openAIArgs(m, label, tc)
	}
	if id != nil {
		h := c.hash(id)
		c.noteID(m, id, h, m.index)
		c.addPending(m, id, tc.name, h)
	} else {
		c.v.stats.ToolCalls++
	}
}

// flatCall checks a call in Inspect AI's shape: "function" is the name and
// "arguments" the object Inspect parsed the model's arguments into.
func (c *conv) flatCall(m *Msg, id, label []byte, tc *call) {
	c.checkCallName(m, label, tc.name)
	switch {
	case !tc.hasArgs:
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "call %s has no arguments", label)
	case tc.argsK == KindObject:
		c.checkArgs(m, label, tc.name, tc.args)
	default:
		c.report(m.line, m.index, "arguments-not-object", []string{string(id)},
			"arguments of call %s are %s, not an object", label, KindName(tc.argsK))
	}
	if id != nil {
		h := c.hash(id)
		c.noteID(m, id, h, m.index)
		c.addPending(m, id, tc.name, h)
	} else {
		c.v.stats.ToolCalls++
	}
}

func (c *conv) openAIArgs(m *Msg, id []byte, tc *call) {
	if tc.custom {
		return // custom tools take free text
	}
	switch {
	case !tc.hasArgs:
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "call %s has no function.arguments", id)
	case tc.argsK != KindString:
		c.report(m.line, m.index, "arguments-not-string", []string{string(id)},
			"arguments of call %s are %s; the API wants the JSON encoded as a string", id, KindName(tc.argsK))
	default:
		switch k := c.v.argsKind(tc.args); k {
		case KindInvalid:
			c.report(m.line, m.index, "arguments-not-json", []string{string(id)}, "arguments of call %s are not valid JSON", id)
		case KindObject:
			c.checkArgs(m, id, tc.name, tc.args)
		default:
			c.report(m.line, m.index, "arguments-not-object", []string{string(id)},
				"arguments of call %s decode to %s, not an object (double-encoded?)", id, KindName(k))
		}
	}
}

func (c *conv) openAITool(m *Msg) {
	if m.nameK != KindAbsent {
		c.report(m.line, m.index, "tool-message-name", nil, "name on a tool message: accepted by OpenAI, refused by some providers (xAI)")
	}
	c.toolContent(m)
	switch m.toolCallIDK {
	case KindAbsent:
		c.report(m.line, m.index, "missing-tool-call-id", nil, "tool message has no tool_call_id")
		return
	case KindString:
	default:
		c.report(m.line, m.index, "invalid-message", nil, "tool_call_id is %s; want a string", KindName(m.toolCallIDK))
		return
	}
	id := m.toolCallID
	c.result(m, id, "tool message")
}

// toolContent checks the content of a tool message: a string or an array
// of text parts (rule 11).
func (c *conv) toolContent(m *Msg) {
	switch m.content {
	case KindAbsent, KindNull:
		c.report(m.line, m.index, "missing-content", nil, "tool message has no content")
	case KindString:
	case KindArray:
		for i := range m.blocks {
			b := &m.blocks[i]
			switch {
			case b.notObject:
				c.report(m.line, m.index, "invalid-message", nil, "content[%d] of a tool message is not an object; want a text part", i)
			case b.typ == nil:
				c.report(m.line, m.index, "invalid-message", nil, "content[%d] of a tool message has no type; want a text part", i)
			case string(b.typ) == "image_url" || string(b.typ) == "input_audio" || string(b.typ) == "file":
				// OpenAI refused images in tool messages ("Image URLs are
				// only allowed for messages with role 'user'", OpenHands
				// #7700) and newer models take them (openai-openapi#523);
				// OpenRouter and Ollama answered such a request 200.
				c.reportSev(m.line, m.index, Warning, "invalid-message", nil,
					"content[%d] of a tool message is a part of type %s: accepted by some models and endpoints, refused by others (\"Image URLs are only allowed for messages with role 'user'\"); a user message after the tool messages carries it everywhere", i, b.typ)
			case string(b.typ) != "text":
				c.report(m.line, m.index, "invalid-message", nil, "content[%d] of a tool message is a %s part; a tool message takes text parts only", i, b.typ)
			default:
				continue
			}
			return
		}
	default:
		c.report(m.line, m.index, "invalid-message", nil, "content of a tool message is %s; want a string or an array of text parts", KindName(m.content))
	}
}

// result pairs a tool result (OpenAI tool message, Responses output) with
// the pending calls.
func (c *conv) result(m *Msg, id []byte, what string) {
	h := c.hash(id)
	// A call of the open block comes first: its id may also be that of an
	// earlier call reported unanswered, which this result does not answer.
	if c.blockOpen {
		if p := c.answer(h); p != nil {
			if p.answered {
				c.report(m.line, m.index, "duplicate-result", []string{string(id)},
					"%s answers %s (%s) a second time", what, id, p.name)
				return
			}
			p.answered = true
			return
		}
	}
	if slices.Contains(c.missed, h) {
		return // reported as unanswered where it was missing
	}
	if c.resync {
		return
	}
	prev, seen := c.ids[h]
	switch {
	case !c.blockOpen && seen:
		c.report(m.line, m.index, "orphan-result", []string{string(id)},
			"%s for %s does not follow the assistant message that called it (%s): results must come right after their call",
			what, id, c.where(int(prev.line), int(prev.index)))
	case !c.blockOpen:
		c.report(m.line, m.index, "orphan-result", []string{string(id)},
			"%s for %s follows no message with tool calls", what, id)
	case seen:
		c.report(m.line, m.index, "unknown-result-id", []string{string(id)},
			"%s answers %s, a call of an earlier turn (%s), not of the assistant message before it", what, id, c.where(int(prev.line), int(prev.index)))
	default:
		c.report(m.line, m.index, "unknown-result-id", []string{string(id)},
			"%s answers %s, which the assistant message before it did not call", what, id)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	return string(b[n:])
}
