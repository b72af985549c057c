package check

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// OpenAI Responses input items (rule 8 for call ids, rule 12 for pairing
// and reasoning items). Items are not messages, but a log of them is checked
// the same way: each function_call is answered by a function_call_output
// before the next message item the client writes, and an OpenAI reasoning
// item is followed by the output item it came with.

// maxResponsesCallID is the Responses limit on call_id (rule 8).
const maxResponsesCallID = 64

// responsesItems are the types of the Responses API's input items
// (openai-go's ResponseInputItemUnionParam). An item of another type is not
// one the API reads: a line of some other log, not checked (unknownItem).
var responsesItems = map[string]bool{
	"message": true, "reasoning": true, "item_reference": true, "compaction": true, "compaction_trigger": true,
	"additional_tools": true, "configuration_update": true,
	"function_call": true, "function_call_output": true, "custom_tool_call": true, "custom_tool_call_output": true,
	"local_shell_call": true, "local_shell_call_output": true, "shell_call": true, "shell_call_output": true,
	"apply_patch_call": true, "apply_patch_call_output": true, "computer_call": true, "computer_call_output": true,
	"tool_search_call": true, "tool_search_output": true, "program": true, "program_output": true,
	"file_search_call": true, "web_search_call": true, "image_generation_call": true, "code_interpreter_call": true,
	"mcp_list_tools": true, "mcp_approval_request": true, "mcp_approval_response": true, "mcp_call": true,
}

// isResponsesCall reports whether items of type t are calls the client
// answers with an output item carrying their call_id.
func isResponsesCall(t string) bool {
	switch t {
	case "function_call", "custom_tool_call", "local_shell_call", "shell_call", "apply_patch_call", "computer_call":
		return true
	}
	return false
}

func (c *conv) addResponses(m *Msg) {
	t := string(m.typ)
	if t == "" && m.hasRole {
		t = "message"
	}
	// The model's items after the client's outputs are a new turn: the
	// calls of the last one had to be answered by then.
	output := (t != "message" && !strings.HasSuffix(t, "_output")) || (t == "message" && string(m.role) == "assistant")
	if output && c.afterOutput {
		c.closeBlock(m)
	}
	// In an agentloop transcript each item says which model request
	// returned it: an item of a later request than the open calls' came
	// back from a request that had to answer them (the API refuses one
	// that does not: "No tool output found for function call …").
	if output && c.blockOpen && c.callStep > 0 && m.step > c.callStep {
		c.closeBlock(m)
	}
	c.afterOutput = strings.HasSuffix(t, "_output")
	c.checkReasoningOrder(m, t, output)
	if t == "reasoning" && !m.cipher && isOpenAIReasoning(m.id) {
		// Whether anything finds it depends on store, which a request
		// body may give after its input: until then the finding waits.
		saved := c.v.hold
		if !c.stateless {
			c.v.hold = &c.noCipher
		}
		c.report(m.line, m.index, "reasoning-not-found", []string{string(m.id)},
			"reasoning item %s has no encrypted_content, and with store false the API keeps no item to find it by id; pass the ciphertext back (include reasoning.encrypted_content)", m.id)
		c.v.hold = saved
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
	case isResponsesCall(t):
		c.responsesCall(m, t)
	case strings.HasSuffix(t, "_call_output"):
		c.responsesOutput(m, t)
	case t == "reasoning":
		// Reasoning items may sit between calls and their outputs.
		if isOpenAIReasoning(m.id) {
			if c.reasoningOpen {
				c.reportOrphanReasoning()
			}
			c.reasoningOpen = true
			c.reasoning.line, c.reasoning.index, c.reasoning.id = m.line, m.index, string(m.id)
		}
	case t == "message":
		// The model's own message among its output items (a call, then
		// its text) leaves the calls open: the API pairs a call with its
		// output by call_id. A message the client writes does not.
		if len(m.typ) == 0 || string(m.role) != "assistant" {
			c.closeBlock(m)
		}
		if role := string(m.role); role != "user" && role != "assistant" && role != "system" && role != "developer" {
			c.report(m.line, m.index, "invalid-message", nil, "%s", m.unknownRole("user, assistant, system or developer"))
		}
	}
}

func (c *conv) reportOrphanReasoning() {
	c.report(c.reasoning.line, c.reasoning.index, "orphan-reasoning", []string{c.reasoning.id},
		"reasoning item %s is not followed by the item it was produced with; pass both back, or neither", c.reasoning.id)
}

func (c *conv) responsesCall(m *Msg, t string) {
	if m.callIDK != KindString || len(m.callID) == 0 {
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
	case t != "function_call" && t != "custom_tool_call":
		// A built-in tool (shell, apply_patch, computer): no name, an
		// action or operation.
	case m.nameK != KindString:
		c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "%s %s has no name", t, id)
	default:
		c.checkCallName(m, id, m.name)
	}
	if t == "function_call" {
		switch m.argsK {
		case KindAbsent:
			c.report(m.line, m.index, "invalid-tool-call", []string{string(id)}, "function_call %s has no arguments", id)
		case KindString:
			switch k := c.v.argsKind(m.args); k {
			case KindInvalid:
				c.report(m.line, m.index, "arguments-not-json", []string{string(id)}, "arguments of call %s are not valid JSON", id)
			case KindObject:
				c.checkArgs(m, id, m.name, m.args)
			default:
				c.report(m.line, m.index, "arguments-not-object", []string{string(id)},
					"arguments of call %s decode to %s, not an object (double-encoded?)", id, KindName(k))
			}
		default:
			c.report(m.line, m.index, "arguments-not-string", []string{string(id)},
				"arguments of call %s are %s; the API wants the JSON encoded as a string", id, KindName(m.argsK))
		}
	}
	if !c.blockOpen {
		c.pending = c.pending[:0]
		c.blockOpen = true
	}
	c.callStep = m.step
	h := c.hash(id)
	c.noteID(m, id, h, m.index)
	name := m.name
	if t != "function_call" && t != "custom_tool_call" {
		name = m.typ // a built-in tool's call is named by its type
	}
	c.addPending(m, id, name, h)
}

func (c *conv) responsesOutput(m *Msg, t string) {
	if m.callIDK != KindString {
		c.report(m.line, m.index, "invalid-message", nil, "%s has no call_id", t)
		return
	}
	if m.output == KindAbsent && t != "apply_patch_call_output" {
		// apply_patch_call_output says how the patch went in its status;
		// its output is optional.
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

// isOpenAIReasoning reports whether id is an OpenAI reasoning item's
// (rs_…); other servers' reasoning items (DeepSeek's) follow other rules.
func isOpenAIReasoning(id []byte) bool {
	return len(id) > 3 && string(id[:3]) == "rs_"
}

// seenReasoning is a reasoning item of the conversation, and the run of
// output items it is in.
type seenReasoning struct {
	line, index, run int
	id               string
}

// runItem is an item of the current run of output items whose response
// had shown no reasoning item yet.
type runItem struct {
	key         uint64
	line, index int
	id, typ     string
}

// respKey returns a hash of the part of an OpenAI item id that names the
// response the item came in: the ids of one response's items share it.
// The API's ids are a prefix, "_" and hex: 16 digits of the response,
// "00" and a time in current ids (50 digits); a time first and the
// response's 16 digits last in older ones (48 digits).
func (c *conv) respKey(id []byte) (uint64, bool) {
	i := bytes.IndexByte(id, '_')
	if i < 0 {
		return 0, false
	}
	hex := id[i+1:]
	for _, ch := range hex {
		if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f') {
			return 0, false
		}
	}
	switch {
	case len(hex) == 50 && hex[16] == '0' && hex[17] == '0':
		return c.hash(hex[:16]), true
	case len(hex) == 48:
		return c.hash(hex[32:]), true
	}
	return 0, false
}

// checkReasoningOrder applies what the API checks of an item that came
// with a reasoning item: that item, in front of it among the output items
// it was returned with (rule 12, "provided without its required
// 'reasoning' item"). Items of one response are told by their ids; a
// reasoning item left out altogether cannot be told from one there never
// was.
func (c *conv) checkReasoningOrder(m *Msg, t string, output bool) {
	if !output {
		c.run++
		c.runItems = c.runItems[:0]
		return
	}
	// Only what the model writes after reasoning needs it: a hosted
	// tool's listing (mcp_list_tools) comes before.
	if t != "reasoning" && t != "function_call" && t != "custom_tool_call" && t != "message" {
		return
	}
	key, ok := c.respKey(m.id)
	if !ok {
		return
	}
	if t == "reasoning" {
		if c.rsByResp == nil {
			c.rsByResp = make(map[uint64]seenReasoning)
		}
		if _, seen := c.rsByResp[key]; !seen {
			c.rsByResp[key] = seenReasoning{line: m.line, index: m.index, run: c.run, id: string(m.id)}
		}
		for _, it := range c.runItems {
			if it.key == key {
				c.report(m.line, m.index, "missing-reasoning", []string{string(m.id), it.id},
					"reasoning item %s comes after %s %s (%s), which came with it; the API wants the reasoning item in front", m.id, it.typ, it.id, c.where(it.line, it.index))
				break
			}
		}
		return
	}
	rs, ok := c.rsByResp[key]
	switch {
	case !ok:
		if len(c.runItems) < maxEarly {
			c.runItems = append(c.runItems, runItem{key: key, line: m.line, index: m.index, id: string(m.id), typ: t})
		}
	case rs.run != c.run:
		c.report(m.line, m.index, "missing-reasoning", []string{string(m.id), rs.id},
			"%s %s came with reasoning item %s (%s), which is not among the output items in front of it; the API refuses it without that item", t, m.id, rs.id, c.where(rs.line, rs.index))
	}
}
