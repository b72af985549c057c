package check

import "bytes"

// What a format reads of a message besides handing it to the checker. The
// byte slices are valid until the next line (or value) is read.

// Reset empties m for the message on line, at index in its conversation.
func (m *Msg) Reset(line, index int) { m.reset(line, index) }

// Line is the line the message starts on.
func (m *Msg) Line() int { return m.line }

// Index is the message's place in its conversation.
func (m *Msg) Index() int { return m.index }

// SetIndex sets the message's place in its conversation, for a format that
// tells it otherwise than by counting (the lines of one Claude Code message).
func (m *Msg) SetIndex(i int) { m.index = i }

// SetContinues marks a line that goes on with the message before it (see
// Conv.SetSplit).
func (m *Msg) SetContinues() { m.continues = true }

// SetStep says which model request returned the message (an agentloop
// record's step).
func (m *Msg) SetStep(step int64) { m.step = step }

// Role is the message's "role", nil when it has none that is a string.
func (m *Msg) Role() []byte { return m.role }

// HasRole reports whether the message has a "role", of any kind.
func (m *Msg) HasRole() bool { return m.hasRole }

// Type is the message's "type" (a Responses item's), nil when it has none.
func (m *Msg) Type() []byte { return m.typ }

// ID is the message's "id" (an Anthropic response's msg_…, a Responses
// item's), nil when it has none.
func (m *Msg) ID() []byte { return m.id }

// Calls calls fn with the id and name of each call the message makes:
// Chat Completions tool_calls, Anthropic tool_use blocks, a Responses call
// item.
func (m *Msg) Calls(fn func(id, name []byte)) {
	for i := range m.calls {
		fn(m.calls[i].id, m.calls[i].name)
	}
	for i := range m.blocks {
		if string(m.blocks[i].typ) == "tool_use" {
			fn(m.blocks[i].id, m.blocks[i].name)
		}
	}
	if len(m.callID) > 0 && !bytes.HasSuffix(m.typ, []byte("_output")) {
		fn(m.callID, m.name)
	}
}

// AppendResults appends to ids the call id each result the message holds
// answers, in order: a Chat Completions tool message's, each tool_result
// block's, a Responses output item's.
func (m *Msg) AppendResults(ids [][]byte) [][]byte {
	switch {
	case string(m.role) == "tool":
		ids = append(ids, m.toolCallID)
	case len(m.typ) > 0 && !m.hasRole:
		if bytes.HasSuffix(m.typ, []byte("_output")) {
			ids = append(ids, m.callID)
		}
	default:
		for i := range m.blocks {
			if string(m.blocks[i].typ) == "tool_result" {
				ids = append(ids, m.blocks[i].toolUseID)
			}
		}
	}
	return ids
}
