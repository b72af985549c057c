package check

import (
	"bytes"
	"fmt"
	"strings"
)

// Anthropic Messages: rules 14–28 of transcript-rules.md. Consecutive
// messages of one role are one turn to the API (rule 19), so pairing is
// checked on turns, not messages.

func (c *conv) addAnthropic(m *Msg) {
	var role string
	switch string(m.role) {
	case "system":
		// A provider extension that leaves the pairing around it alone.
		c.report(m.line, m.index, "system-in-messages", nil,
			"system message inside messages: accepted on Anthropic's beta endpoint only; use the top-level system field")
		return
	case "user":
		role = "user"
	case "assistant":
		role = "assistant"
	default:
		if !m.hasRole {
			c.report(m.line, m.index, "invalid-message", nil, "message has no role")
		} else {
			c.report(m.line, m.index, "invalid-message", nil, "%s", m.unknownRole("user or assistant"))
		}
		return
	}
	// No user or assistant message before this one: it is the first, as
	// system messages inside messages are passed over here as they are
	// for the pairing.
	if c.lastRole == "" && role != "user" {
		c.report(m.line, m.index, "first-not-user", nil, "the first message is from the %s; %s", role, c.firstNotUser())
	}
	if c.emptyLast != nil {
		// Not the last message after all; unless the log goes on with the
		// same message on this line.
		if !(m.continues && role == "assistant") {
			c.v.emitFinding(*c.emptyLast)
		}
		c.emptyLast = nil
	}
	c.settleBlank(m, role)
	// A log that writes one message over several lines (Claude Code: a line
	// a content block, and the results of its calls in between) marks the
	// lines after the first as continuing it.
	reopened := m.continues && role == "assistant" && c.lastRole == "user" && c.inUserTurn
	switch {
	case reopened:
		// More blocks of the assistant message before this user turn: its
		// calls join the ones the turn answers.
	case role == c.lastRole:
		if !m.continues {
			c.report(m.line, m.index, "role-order", nil, "second %s message in a row: %s", role, c.roleOrder())
		}
	default:
		if c.inUserTurn {
			c.closeUserTurn()
		}
		if role == "user" {
			c.inUserTurn = true
			c.resultPhase = true
			c.turnStart, c.turnIndex = m.line, m.index
		} else {
			c.pending = c.pending[:0]
		}
	}
	if !reopened {
		c.lastRole = role
	}

	switch m.content {
	case KindString:
		if m.blankString {
			c.emptyContent(m, role, "content is an empty string")
		}
		c.resultPhase = false
		if role == "assistant" && !m.continues {
			c.noteAssistant(m)
		}
		return
	case KindArray:
		if len(m.blocks) == 0 {
			c.emptyContent(m, role, "content is an empty array")
			if role == "assistant" {
				c.noteAssistant(m)
			}
			return
		}
	case KindAbsent, KindNull:
		c.report(m.line, m.index, "missing-content", nil, "%s message has no content", role)
		return
	default:
		c.report(m.line, m.index, "invalid-message", nil, "content is %s; want a string or an array of blocks", KindName(m.content))
		return
	}
	if role == "assistant" {
		c.anthropicAssistant(m)
	} else {
		c.anthropicUser(m)
	}
}

// emptyContent reports empty content, except on an assistant message that
// turns out to be the last (the prefill the API allows).
func (c *conv) emptyContent(m *Msg, role, what string) {
	if role == "assistant" {
		f := Finding{File: c.v.name, Line: m.line, Index: m.index, Path: c.path(m.index), Severity: c.severity("empty-content"),
			Code: "empty-content", Message: what + ": only a final assistant message may be empty"}
		c.emptyLast = &f
		return
	}
	c.report(m.line, m.index, "empty-content", nil, "%s: every message but a final assistant one needs content", what)
}

// blankText reports block i, a text block of whitespace only. The API
// refuses a message that says nothing else ("text content blocks must
// contain non-whitespace text"), but took one beside other blocks: a 200 for
// an assistant message [text " ", tool_use, tool_use] (simonw/llm-anthropic,
// tests/cassettes/test_anthropic/test_tools.yaml, interaction 1). An empty
// text block is refused wherever it is, beside tool_use blocks too
// ("messages: text content blocks must be non-empty", anthropics/claude-code
// #62396, #59812).
func (c *conv) blankText(m *Msg, i int) {
	if m.blocks[i].emptyText {
		c.reportSev(m.line, m.index, Error, "empty-content", nil,
			"content[%d]: empty text block: the Messages API refuses it wherever it is (\"text content blocks must be non-empty\")", i)
		return
	}
	if !m.onlyBlankText() {
		c.reportSev(m.line, m.index, Warning, "empty-content", nil,
			"content[%d]: text block of whitespace only beside other content: accepted by the Messages API, refused by some gateways", i)
		return
	}
	f := Finding{File: c.v.name, Line: m.line, Index: m.index, Path: c.path(m.index), Severity: c.severity("empty-content"),
		Code: "empty-content", Message: fmt.Sprintf("content[%d]: text block of whitespace only, and nothing else in the message", i)}
	if c.split && m.role != nil && string(m.role) == "assistant" {
		// The next line may hold the rest of this message.
		if c.heldBlank == nil {
			c.heldBlank = &f
		}
		return
	}
	c.v.emitFinding(f)
}

// settleBlank decides a blank-only assistant line held by blankText, once
// the line after it shows whether the message said more.
func (c *conv) settleBlank(m *Msg, role string) {
	f := c.heldBlank
	if f == nil {
		return
	}
	if m != nil && m.continues && role == "assistant" {
		if m.onlyBlankText() {
			return // still nothing but blanks: keep waiting
		}
		f.Severity = Warning
		f.Message = strings.Replace(f.Message, "and nothing else in the message", "beside other content: accepted by the Messages API, refused by some gateways", 1)
	}
	c.heldBlank = nil
	c.v.emitFinding(*f)
}

func (c *conv) noteAssistant(m *Msg) {
	c.haveAsst = true
	c.lastAsst.line, c.lastAsst.index = m.line, m.index
	c.lastAsst.toolUse, c.lastAsst.thinkingFirst = false, false
	if len(m.blocks) > 0 {
		t := string(m.blocks[0].typ)
		c.lastAsst.thinkingFirst = t == "thinking" || t == "redacted_thinking"
	}
}

func (c *conv) anthropicAssistant(m *Msg) {
	if !m.continues {
		c.noteAssistant(m)
	}
	afterToolUse := false
	for i := range m.blocks {
		b := &m.blocks[i]
		if !c.blockShape(m, i, b) {
			continue
		}
		t := b.typ
		switch {
		case string(t) == "tool_use":
			afterToolUse = true
			c.lastAsst.toolUse = true
			c.toolUse(m, i, b)
		case string(t) == "server_tool_use" || string(t) == "mcp_tool_use":
			if b.hasID {
				c.serverIDs[c.hash(b.id)] = struct{}{}
			}
		case string(t) == "tool_result":
			c.report(m.line, m.index, "misplaced-block", []string{string(b.toolUseID)},
				"content[%d]: tool_result in an assistant message; results go in the next user message", i)
		case bytes.HasSuffix(t, []byte("_tool_result")):
			if b.hasUseID {
				if _, ok := c.serverIDs[c.hash(b.toolUseID)]; !ok {
					c.report(m.line, m.index, "unknown-result-id", []string{string(b.toolUseID)},
						"content[%d]: %s for %s, which no server_tool_use before it called", i, t, b.toolUseID)
				}
			}
		case string(t) == "text":
			if b.blankText {
				c.blankText(m, i)
			} else if afterToolUse {
				c.report(m.line, m.index, "text-after-tool-use", nil,
					"content[%d]: text after a tool_use block; some clients then lose the pairing", i)
				afterToolUse = false
			}
		}
	}
}

// blockShape checks what every block needs; false means the block cannot be
// read further.
func (c *conv) blockShape(m *Msg, i int, b *block) bool {
	if b.notObject {
		c.report(m.line, m.index, "invalid-block", nil, "content[%d] is not an object", i)
		return false
	}
	if b.typ == nil {
		c.report(m.line, m.index, "invalid-block", nil, "content[%d] has no type", i)
		return false
	}
	return true
}

func (c *conv) toolUse(m *Msg, i int, b *block) {
	if !b.hasID || len(b.id) == 0 {
		c.report(m.line, m.index, "invalid-block", nil, "content[%d]: tool_use without an id", i)
		c.v.stats.ToolCalls++
		return
	}
	id := b.id
	if c.shape == shapeBedrock {
		c.bedrockCallID(m, i, id)
	} else if !validName(id, 0) {
		c.report(m.line, m.index, "invalid-call-id", []string{string(id)}, "content[%d]: tool_use id %q does not match ^[a-zA-Z0-9_-]+$", i, id)
	}
	if !b.hasName {
		c.report(m.line, m.index, "invalid-block", []string{string(id)}, "content[%d]: tool_use %s without a name", i, id)
	} else {
		c.checkCallName(m, id, b.name)
	}
	switch b.inputK {
	case KindAbsent:
		c.report(m.line, m.index, "invalid-block", []string{string(id)}, "content[%d]: tool_use %s without input", i, id)
	case KindObject:
		c.checkArgs(m, id, b.name, b.input)
	default:
		c.report(m.line, m.index, "input-not-object", []string{string(id)}, "content[%d]: input of tool_use %s is %s; it must be an object", i, id, KindName(b.inputK))
	}
	h := c.hash(id)
	c.noteID(m, id, h, m.index)
	c.addPending(m, id, b.name, h)
}

func (c *conv) anthropicUser(m *Msg) {
	for i := range m.blocks {
		b := &m.blocks[i]
		if !c.blockShape(m, i, b) {
			c.resultPhase = false
			continue
		}
		t := b.typ
		if string(t) != "tool_result" {
			c.resultPhase = false
			switch {
			case string(t) == "tool_use" || string(t) == "server_tool_use" || string(t) == "mcp_tool_use":
				c.report(m.line, m.index, "misplaced-block", []string{string(b.id)},
					"content[%d]: %s in a user message; calls belong to assistant messages", i, t)
			case string(t) == "text" && b.blankText:
				c.blankText(m, i)
			}
			continue
		}
		if !b.hasUseID {
			c.report(m.line, m.index, "invalid-block", nil, "content[%d]: tool_result without tool_use_id", i)
			continue
		}
		id := b.toolUseID
		if b.isError && (b.content == KindAbsent || b.content == KindNull || b.emptyValue) {
			c.report(m.line, m.index, "error-result-empty", []string{string(id)},
				"content[%d]: tool_result for %s has is_error true and no content: say what went wrong", i, id)
		}
		c.toolResult(m, i, id)
	}
}

func (c *conv) toolResult(m *Msg, i int, id []byte) {
	h := c.hash(id)
	p := c.answer(h)
	switch {
	case p == nil:
		if c.resync {
			return
		}
		if len(c.pending) == 0 {
			c.report(m.line, m.index, "orphan-result", []string{string(id)},
				"content[%d]: tool_result for %s, but the message before holds no tool_use", i, id)
			return
		}
		if prev, ok := c.ids[h]; ok {
			c.report(m.line, m.index, "unknown-result-id", []string{string(id)},
				"content[%d]: tool_result for %s, a tool_use of an earlier turn (%s), not of the previous assistant message", i, id, c.where(int(prev.line), int(prev.index)))
			return
		}
		c.report(m.line, m.index, "unknown-result-id", []string{string(id)},
			"content[%d]: tool_result for %s, which the previous assistant message did not call", i, id)
	case p.answered || p.late:
		c.report(m.line, m.index, "duplicate-result", []string{string(id)},
			"content[%d]: a second tool_result for %s (%s)", i, id, p.name)
	case !c.resultPhase:
		p.late = true
		c.report(m.line, m.index, "result-not-first", []string{string(id)},
			"content[%d]: tool_result for %s comes after other content; results must open the user message", i, id)
	default:
		p.answered = true
	}
}

// closeUserTurn reports the calls the user turn that just ended left
// unanswered.
func (c *conv) closeUserTurn() {
	c.inUserTurn = false
	c.resultPhase = false
	var ids []string
	for i := range c.pending {
		if p := &c.pending[i]; !p.answered && !p.late {
			ids = append(ids, string(p.id))
		} else {
			p.answered = true
		}
	}
	if len(ids) > 0 && !c.resync {
		c.report(c.turnStart, c.turnIndex, "unanswered-call", ids,
			"%s %s no tool_result at the start of the user message that follows (%s)",
			describePending(c.pending, c.where), plural(len(ids), "has", "have"), c.where(c.turnStart, c.turnIndex))
	}
	c.pending = c.pending[:0]
	c.resync = false
}

// checkThinking applies the one thinking rule a log can show. With
// thinking of type "enabled" in the request, the last assistant message of
// a tool loop must start with a thinking block; the API says so with a 400
// (rule 26). With adaptive thinking, and in logs that do not say how thinking
// was set, a turn without thinking is accepted: the model skips it on most
// tool-using turns, and the API answers (Claude Code sessions of Opus 4.6),
// so it is not checked there.
func (c *conv) checkThinking() {
	if c.thinkingOn != shapeAnthropic || !c.haveAsst || !c.lastAsst.toolUse || c.lastAsst.thinkingFirst {
		return
	}
	c.report(c.lastAsst.line, c.lastAsst.index, "thinking-not-first", nil,
		"the request enables thinking, but the last assistant message with tool_use does not start with a thinking block; pass the thinking blocks back unchanged")
}
