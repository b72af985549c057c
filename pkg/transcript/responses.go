package transcript

import (
	"strings"
	"unicode/utf8"
)

// OpenAI Responses input items (rule 8 for call ids, rule 12 for pairing
// and reasoning items). Items are not messages, but a log of them is checked
// the same way: each function_call is answered by a function_call_output
// before the next message item, and an OpenAI reasoning item is followed by
// the output item it came with.

// maxResponsesCallID is the Responses limit on call_id (rule 8).
const maxResponsesCallID = 64

func (c *conv) addResponses(m *wireMsg) {
	t := string(m.typ)
	if t == "" && m.hasRole {
		t = "message"
	}
	if c.reasoningOpen && t != "reasoning" {
		c.reasoningOpen = false
		// The item that came with a reasoning item is an output item, which
		// carries its type; a hand-written {"role": …} message is not one.
		if len(m.typ) == 0 || strings.HasSuffix(t, "_output") {
			c.reportOrphanReasoning()
		}
	}
	switch {
	case t == "function_call" || t == "custom_tool_call" || t == "local_shell_call":
		c.responsesCall(m, t)
	case strings.HasSuffix(t, "_call_output"):
		c.responsesOutput(m, t)
	case t == "reasoning":
		// Reasoning items may sit between calls and their outputs.
		if len(m.id) > 3 && string(m.id[:3]) == "rs_" {
			if c.reasoningOpen {
				c.reportOrphanReasoning()
			}
			c.reasoningOpen = true
			c.reasoning.line, c.reasoning.index, c.reasoning.id = m.line, m.index, string(m.id)
		}
	case t == "message":
		c.closeBlock(m)
		if role := string(m.role); role != "user" && role != "assistant" && role != "system" && role != "developer" {
			c.report(m.line, m.index, "invalid-message", nil, "unknown role %q (want user, assistant, system or developer)", m.role)
		}
	}
}

func (c *conv) reportOrphanReasoning() {
	c.report(c.reasoning.line, c.reasoning.index, "orphan-reasoning", []string{c.reasoning.id},
		"reasoning item %s is not followed by the item it was produced with; pass both back, or neither", c.reasoning.id)
}

func (c *conv) responsesCall(m *wireMsg, t string) {
	if m.callIDK != kindString || len(m.callID) == 0 {
		c.report(m.line, m.index, "invalid-tool-call", nil, "%s has no call_id", t)
		c.v.stats.ToolCalls++
		return
	}
	id := m.callID
	if n := utf8.RuneCount(id); n > maxResponsesCallID {
		sev := Warning
		if c.openAI {
			sev = Error
		}
		c.reportSev(m.line, m.index, sev, "call-id-too-long", []string{string(id)},
			"call_id %s is %d characters, over the %d allowed by OpenAI's Responses API", id, n, maxResponsesCallID)
	}
	switch {
	case t == "local_shell_call":
		// The built-in shell tool: no name, an action; answered by a
		// function_call_output.
	case m.nameK != kindString:
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "%s %s has no name", t, id)
	default:
		c.checkCallName(m, id, m.name)
	}
	if t == "function_call" {
		switch m.argsK {
		case kindAbsent:
			c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "function_call %s has no arguments", id)
		case kindString:
			switch k := c.v.argsKind(m.args); k {
			case kindInvalid:
				c.report(m.line, m.index, "arguments-not-json", []string{string(id)}, "arguments of call %s are not valid JSON", id)
			case kindObject:
				c.checkArgs(m, id, m.name, m.args)
			default:
				c.report(m.line, m.index, "arguments-not-object", []string{string(id)},
					"arguments of call %s decode to %s, not an object (double-encoded?)", id, kindName(k))
			}
		default:
			c.report(m.line, m.index, "arguments-not-string", []string{string(id)},
				"arguments of call %s are %s; the API wants the JSON encoded as a string", id, kindName(m.argsK))
		}
	}
	if !c.blockOpen {
		c.pending = c.pending[:0]
		c.blockOpen = true
	}
	h := c.hash(id)
	c.noteID(m, id, h, m.index)
	c.addPending(m, id, m.name, h)
}

func (c *conv) responsesOutput(m *wireMsg, t string) {
	if m.callIDK != kindString {
		c.report(m.line, m.index, "invalid-message", nil, "%s has no call_id", t)
		return
	}
	if m.output == kindAbsent {
		c.report(m.line, m.index, "missing-content", []string{string(m.callID)}, "%s for %s has no output", t, m.callID)
	}
	if _, ok := c.ids[c.hash(m.callID)]; ok {
		c.result(m, m.callID, t)
		return
	}
	if c.resync {
		return
	}
	// The call may live on the server: previous_response_id and
	// conversation carry earlier items the input does not repeat. They may
	// follow the input, so the finding waits for the end of the body.
	saved := c.v.hold
	c.v.hold = &c.orphanOutputs
	c.report(m.line, m.index, "orphan-result", []string{string(m.callID)},
		"%s for %s, which no function_call in the input made (and there is no previous_response_id)", t, m.callID)
	c.v.hold = saved
}
