package check

// What a format tells the checker of a conversation: how its writer writes
// it, and where it starts.

// Add checks the next message of the conversation, read into m (see
// Scanner.ReadMsg and Msg).
func (c *Conv) Add(m *Msg) { c.add(m) }

// Finish ends the conversation: calls still unanswered, checks that wait
// for its end.
func (c *Conv) Finish() { c.finish() }

// Lost forgets the pending calls after a line that could not be read:
// whatever it held (a result, a call) is unknown, and guessing would
// cascade.
func (c *Conv) Lost() { c.lost() }

// lost is Lost.
func (c *conv) lost() {
	c.pending = c.pending[:0]
	c.resync = true
	c.reasoningOpen = false
}

// Len is the number of messages added.
func (c *Conv) Len() int { return c.n }

// Started reports whether the conversation was started (File.StartConv).
func (c *Conv) Started() bool { return c.v != nil }

// Presume sets the shape the format's writer uses, unless --shape forces
// one (false): the messages are checked in it whatever they look like.
func (c *Conv) Presume(s Shape) bool {
	if c.v.opts.Shape != "" {
		return false
	}
	c.shape = s
	return true
}

// Responses reports whether the conversation is in the OpenAI Responses
// shape (input items).
func (c *Conv) Responses() bool { return c.shape == shapeResponses }

// SetSplit says the writer writes a message over several lines (Claude
// Code: a content block a line), each line after the first marked
// Msg.Continues.
func (c *Conv) SetSplit() { c.split = true }

// SetRepairs says the writer repairs the pairing of calls and results
// before it sends the conversation (Codex): gaps are warnings.
func (c *Conv) SetRepairs() { c.repairs = true }

// SetFlat says tool calls are in Inspect AI's shape ("function": name,
// "arguments": object), checked with the Chat Completions rules.
func (c *Conv) SetFlat() { c.flat = true }

// SetTools gives the names of the tools the conversation defines (names is
// copied).
func (c *Conv) SetTools(names map[string]struct{}) { c.setTools(names) }

// SetStateless says the server keeps no item (store false): a reasoning
// item must carry its ciphertext.
func (c *Conv) SetStateless() { c.stateless = true }

// SetOpenAI says whether the target is api.openai.com, whose limits are
// then errors.
func (c *Conv) SetOpenAI(on bool) { c.openAI = on }

// SetPendingHint is what a pending-call finding says of how the run
// stopped, when the log says it: " (the run was interrupted…)".
func (c *Conv) SetPendingHint(hint string) { c.pendingHint = hint }

// RecordResult notes a result kept apart from the messages (an agentloop
// result record) for call id, and says what is wrong with it: it must name
// a call of the last assistant message that no message has answered yet,
// and no other result record names; "" when it does.
func (c *Conv) RecordResult(id []byte) string { return c.recordResult(id) }

// Resume starts the conversation after a message it does not have: the
// message at index, of role ("user" or "assistant"; "" when it is not
// known), on line. The calls made before it are unknown, so the first
// results are not matched against them.
func (c *Conv) Resume(role string, index, line int) {
	c.resync = true
	c.lastRole = role
	if role == "" {
		c.lastRole = "?" // not the first message
	}
	if role == "user" {
		c.inUserTurn = true
		c.turnStart, c.turnIndex = line, index
	}
}
