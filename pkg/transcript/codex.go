package transcript

// OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
//
// Each line is {"timestamp", "type", "payload"}; the conversation is the
// payloads of the "response_item" lines, Responses input items in order
// (codex-rs/protocol/src/protocol.rs, RolloutItem). A "compacted" line
// replaces the history before it with a summary: a new conversation starts
// there. session_meta, turn_context and event_msg lines carry no items.
// Rollouts written before Codex CLI 0.30 had items as lines of their own
// after a first {"id", "timestamp", "instructions"} line, and
// {"record_type": "state"} lines between; those are read too.

func (v *validator) codexLine(text []byte, n int, complete bool) {
	v.format = InputCodex
	if !v.objectLine(text, n, complete, "a rollout line") {
		return
	}
	s := &v.sc
	if v.conv.v == nil {
		v.codexConv(n)
	}
	m := &v.msg
	m.reset(n, v.conv.n)
	var typ []byte
	payload, wrapped, role := false, false, false
	s.enter('{')
	for k := 0; s.next('}', &k); {
		switch string(s.key()) {
		case "type":
			typ = s.stringOrSkip()
		case "role":
			role = true
			s.skip()
		case "payload":
			wrapped = true
			if s.peekKind() == kindObject {
				payload = true
				s.readMsg(m)
				continue
			}
			s.skip()
		case "record_type":
			wrapped = true
			s.skip()
		default:
			s.skip()
		}
	}
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return
	}
	switch t := string(typ); {
	case t == "response_item" && payload && string(m.typ) == "ghost_snapshot":
		// Codex's record of a git snapshot for undo, never sent to the API
		// (is_api_message in codex-rs/core).
	case t == "response_item" && payload:
		v.conv.add(m)
	case t == "compacted":
		if v.conv.n > 0 {
			v.conv.finish()
		}
		v.codexConv(n)
	case !wrapped && (t != "" || role) && t != "session_meta" && t != "event_msg" && t != "turn_context":
		// An item on a line of its own (older rollouts), or a message
		// without a type: checked as the item it would be.
		s.reset(text)
		m.reset(n, v.conv.n)
		s.readMsg(m)
		v.conv.add(m)
	}
}

// codexConv starts the conversation of a rollout, from line on.
func (v *validator) codexConv(line int) {
	v.startConv(line, kindTranscript, "")
	v.conv.repairs = true
	if v.opts.Shape == "" {
		v.conv.shape = shapeResponses
	}
}
