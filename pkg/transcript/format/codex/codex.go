// Package codex reads OpenAI Codex CLI rollouts
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).
//
// Each line is {"timestamp", "type", "payload"}; the conversation is the
// payloads of the "response_item" lines, Responses input items in order
// (codex-rs/protocol/src/protocol.rs, RolloutItem). A "compacted" line
// replaces the history before it with a summary: a new conversation starts
// there. session_meta, turn_context and event_msg lines carry no items.
// Rollouts written before Codex CLI 0.30 had items as lines of their own
// after a first {"id", "timestamp", "instructions"} line, and
// {"record_type": "state"} lines between; those are read too.
//
// Codex repairs the pairing each time it sends a conversation: a call
// without its output gets an "aborted" output, an output without its call
// is dropped (codex-rs/core/src/context_manager/normalize.rs). A rollout of
// an interrupted turn has such gaps, which the API never saw: they are
// warnings.
package codex

import "github.com/agentloop/agentloop/pkg/transcript/internal/check"

// Name is the format's name.
const Name = "codex"

// Format is the format of Codex CLI rollouts.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Codex rollout", Writer: "OpenAI Codex CLI",
		Example: "~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl"}
}

// lineTypes are the types of a rollout's lines that wrap a payload.
var lineTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

// Sniff knows a rollout by its first line: a payload under one of its line
// types, or (before Codex CLI 0.30) {"id", "timestamp", "instructions"}.
func (format) Sniff(h *check.Head) check.Confidence {
	line, ok := h.Line()
	if !ok || line.Kind != check.KindObject {
		return check.No
	}
	if line.Has("payload", check.KindObject) && lineTypes[line.Type()] {
		return check.Certain
	}
	if line.Has("id", check.KindAbsent) && line.Has("timestamp", check.KindAbsent) && line.Has("instructions", check.KindAbsent) &&
		line.Type() == "" && !line.Has("role", check.KindAbsent) && !line.Has("content", check.KindAbsent) {
		return check.Likely
	}
	return check.No
}

func (format) Open(f *check.File) error {
	if err := f.Lines(func(text []byte, n int, complete bool) { line(f, text, n, complete) }); err != nil || f.Stopped() {
		return err
	}
	f.EndConv()
	return nil
}

func line(f *check.File, text []byte, n int, complete bool) {
	if !f.ObjectLine(text, n, complete, "a rollout line") {
		return
	}
	s := f.Scanner()
	c := f.Conv()
	if !c.Started() {
		c = start(f, n)
	}
	m := f.Msg()
	m.Reset(n, c.Len())
	var typ []byte
	payload, wrapped, role := false, false, false
	s.Enter('{')
	for k := 0; s.Next('}', &k); {
		switch string(s.Key()) {
		case "type":
			typ = s.StringOrSkip()
		case "role":
			role = true
			s.Skip()
		case "payload":
			wrapped = true
			if s.PeekKind() == check.KindObject {
				payload = true
				s.ReadMsg(m)
				continue
			}
			s.Skip()
		case "record_type":
			wrapped = true
			s.Skip()
		default:
			s.Skip()
		}
	}
	s.End()
	if s.Err() != nil {
		f.NotJSON(text, n, complete)
		return
	}
	switch t := string(typ); {
	case t == "response_item" && payload && string(m.Type()) == "ghost_snapshot":
		// Codex's record of a git snapshot for undo, never sent to the API
		// (is_api_message in codex-rs/core).
	case t == "response_item" && payload:
		c.Add(m)
	case t == "compacted":
		if c.Len() > 0 {
			c.Finish()
		}
		start(f, n)
	case !wrapped && (t != "" || role) && t != "session_meta" && t != "event_msg" && t != "turn_context":
		// An item on a line of its own (older rollouts), or a message
		// without a type: checked as the item it would be.
		s.Reset(text)
		m.Reset(n, c.Len())
		s.ReadMsg(m)
		c.Add(m)
	case !lineTypes[t] && string(typ) != "" || t == "response_item" && !payload:
		// A line type of Codex's that is new, or an item without its
		// payload: nothing validate knows of.
		f.PassedOver()
	}
}

// start starts the conversation of a rollout, from line on.
func start(f *check.File, line int) *check.Conv {
	c := f.StartConv(line, check.ConvTranscript, "")
	c.SetRepairs()
	c.Presume(check.ShapeResponses)
	return c
}
