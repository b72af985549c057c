// Package geminicli reads the sessions Gemini CLI records
// (~/.gemini/tmp/<project hash>/chats/session-*.json, and .jsonl since it
// appends): {"sessionId", "projectHash", "startTime", "lastUpdated",
// "messages": [{"id", "type": "user" | "gemini" | "info" | "error" |
// "warning", "content", "toolCalls": [{"id", "name", "args", "result",
// "status"}]}]}, one document, or the same as JSON lines, the metadata
// first, then a message a line (a message written again as it changes, its
// id the same), with {"$rewindTo": id} and {"$set": {…}} lines among them.
//
// A session is checked as Gemini CLI sends it when it resumes one
// (convertSessionToClientHistory in packages/core/src/utils/sessionUtils.ts):
// info, error and warning messages are not sent, nor user messages that are
// commands ("/…", "?…") or blank; a gemini message is a model turn of its
// content and, unless the content holds the calls itself, a functionCall
// part for each tool call; the results of its tool calls are the user turn
// that follows. A tool call without a result leaves that turn short of a
// response, which the API refuses ("Please ensure that the number of
// function response parts is equal to the number of function call parts of
// the function call turn."): the error resumed sessions meet.
package geminicli

import (
	"bytes"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// Name is the format's name.
const Name = "gemini-cli"

// Format is the format of Gemini CLI sessions.
var Format check.Format = format{}

type format struct{}

func (format) Info() check.Info {
	return check.Info{Name: Name, Reads: "Gemini CLI session", Writer: "Gemini CLI",
		Example: "~/.gemini/tmp/<project hash>/chats/session-*.json (.jsonl)"}
}

// Sniff knows a session by its sessionId and projectHash, at the top of
// the document or on its first line.
func (format) Sniff(h *check.Head) check.Confidence {
	keys, ok := h.Object()
	if !ok {
		return check.No
	}
	if keys.Has("sessionId", check.KindString) && keys.Has("projectHash", check.KindString) && !keys.Has("type", check.KindAbsent) {
		return check.Certain
	}
	return check.No
}

func (format) Open(f *check.File) error {
	r := &reader{f: f}
	if _, doc := f.Head().Document(); doc {
		_, err := f.Document(&check.DocReader{Name: Name, Arrays: []string{}, Key: r.key, End: func(_ *check.File, d *check.Doc) {
			// The session's conversation is the reader's own.
			d.Other = true
		}})
		if err == nil {
			r.end()
		}
		return err
	}
	if err := f.Lines(r.line); err != nil || f.Stopped() {
		return err
	}
	r.flush()
	r.end()
	return nil
}

// reader reads one session: its conversation, and in a JSONL session the
// message held until a line shows it will not be written again.
type reader struct {
	f     *check.File
	conv  *check.Conv
	index int // the place of the next content in the conversation sent

	model, resp check.Msg
	sc          check.Scanner

	held     []byte // the raw message held (JSONL), a copy
	heldID   []byte
	heldLine int
}

// key reads the messages array of a session document, a message at a time.
func (r *reader) key(f *check.File, _ *check.Doc, st *check.Stream, key string, k byte, line int) (bool, error) {
	if key != "messages" || k != check.KindArray {
		return false, nil
	}
	r.start(line)
	st.Consume()
	return true, f.StreamArray(st, "messages", func(line, _ int) {
		r.message(f.Scanner().SkipRaw(), line)
	})
}

// start starts the session's conversation, once.
func (r *reader) start(line int) {
	if r.conv != nil {
		return
	}
	r.conv = r.f.NewConv(line, check.ConvTranscript)
	r.conv.Presume(check.ShapeGemini)
	r.f.AddConversations(1)
}

// end ends the conversation; a session without messages is a file where
// nothing was checked.
func (r *reader) end() {
	if r.conv == nil {
		r.f.NothingChecked("a Gemini CLI session without messages")
		return
	}
	r.conv.Finish()
}

// line reads one line of a JSONL session.
func (r *reader) line(text []byte, n int, complete bool) {
	if !r.f.ObjectLine(text, n, complete, "a session record (an object)") {
		return
	}
	s := r.f.Scanner()
	var id, rewind, messages []byte
	meta, set := false, false
	s.Enter('{')
	for i := 0; s.Next('}', &i); {
		switch string(s.Key()) {
		case "id":
			id = s.StringOrSkip()
		case "$rewindTo":
			rewind = s.StringOrSkip()
		case "messages":
			messages = s.SkipRaw()
		case "$set":
			set = true
			if s.PeekKind() != check.KindObject {
				s.Skip()
				continue
			}
			s.Enter('{')
			for j := 0; s.Next('}', &j); {
				if string(s.Key()) == "messages" {
					messages = s.SkipRaw()
					continue
				}
				s.Skip()
			}
		case "sessionId", "projectHash":
			meta = true
			s.Skip()
		default:
			s.Skip()
		}
	}
	s.End()
	if s.Err() != nil {
		r.f.NotJSON(text, n, complete)
		return
	}
	switch {
	case rewind != nil:
		// Gemini CLI drops the messages from that one on, the one held
		// with them. Those checked already cannot be taken back: the
		// turn open before them is forgotten, not blamed on what follows.
		if !bytes.Equal(rewind, r.heldID) && r.conv != nil {
			r.conv.Lost()
		}
		r.held, r.heldID = r.held[:0], nil
	case id != nil && !meta:
		if !bytes.Equal(id, r.heldID) {
			r.flush()
		}
		// The message as last written is the one sent.
		r.held = append(r.held[:0], text...)
		r.heldID = append(r.heldID[:0:0], id...)
		r.heldLine = n
	case messages != nil && (meta || set):
		// A whole session on one line, or the history rewritten (tool
		// outputs masked): Gemini CLI resumes from these messages. A
		// rewrite is a conversation of its own, what came before it left.
		r.held, r.heldID = r.held[:0], nil
		if set {
			r.conv = nil
		}
		r.start(n)
		var ms check.Scanner
		ms.Reset(messages)
		if ms.PeekKind() == check.KindArray {
			ms.Enter('[')
			for j := 0; ms.Next(']', &j); {
				r.message(ms.SkipRaw(), n)
			}
		}
	case meta:
		r.start(n)
	case set:
		// Metadata (a summary, directories): nothing sent.
	default:
		r.f.PassedOver()
	}
}

// flush checks the message held.
func (r *reader) flush() {
	if len(r.held) == 0 {
		return
	}
	r.start(r.heldLine)
	r.message(r.held, r.heldLine)
	r.held, r.heldID = r.held[:0], nil
}

// toolCall is what a tool call record says.
type toolCall struct {
	id, name []byte
}

// message checks one session message, raw, that starts on line: the
// contents Gemini CLI sends for it.
func (r *reader) message(raw []byte, line int) {
	r.start(line)
	s := &r.sc
	s.ResetArena()
	s.Reset(raw)
	if s.PeekKind() != check.KindObject {
		r.f.Finding(line, check.Error, "invalid-record", "a session message is %s, not an object", check.KindName(s.PeekKind()))
		return
	}
	r.model.Reset(line, r.index)
	r.resp.Reset(line, r.index+1)
	var typ, text []byte // text: the content's text, for what is not sent
	var calls []toolCall
	s.Enter('{')
	for i := 0; s.Next('}', &i); {
		switch string(s.Key()) {
		case "type":
			typ = s.StringOrSkip()
		case "content":
			switch s.PeekKind() {
			case check.KindString:
				// A string is one text part; "" none.
				if text = s.Text(); len(text) > 0 {
					r.model.AddText(text)
				}
			case check.KindNull:
				s.Skip()
			default:
				parts := s.SkipRaw()
				text = partsText(parts)
				var ps check.Scanner
				ps.Reset(parts)
				ps.ReadParts(&r.model)
			}
		case "toolCalls":
			if s.PeekKind() != check.KindArray {
				s.Skip()
				continue
			}
			s.Enter('[')
			for j := 0; s.Next(']', &j); {
				calls = append(calls, r.toolCall(s))
			}
		default:
			s.Skip()
		}
	}
	if s.Err() != nil {
		r.f.Finding(line, check.Error, "not-json", "the session message is not JSON: %s", s.Err().Msg)
		return
	}
	switch string(typ) {
	case "user":
		if ignoredUser(text) {
			r.f.PassedOver()
			return
		}
		r.model.SetRole([]byte("user"))
		r.conv.Add(&r.model)
		r.index++
	case "gemini":
		if r.model.GeminiCalls() == 0 && !r.model.Thoughts() {
			// An older session: the calls are the tool call records'.
			for _, c := range calls {
				r.model.AddCall(c.id, c.name)
			}
		}
		if r.model.PartsLen() == 0 {
			return // nothing sent
		}
		r.model.SetRole([]byte("model"))
		r.conv.Add(&r.model)
		r.index++
		if r.resp.PartsLen() > 0 {
			r.resp.SetIndex(r.index)
			r.resp.SetRole([]byte("user"))
			r.conv.Add(&r.resp)
			r.index++
		}
	default:
		// info, error and warning messages are the CLI's own, not sent;
		// so is a type it did not write before.
		r.f.PassedOver()
	}
}

// toolCall reads a tool call record, its result into the response turn.
func (r *reader) toolCall(s *check.Scanner) toolCall {
	var c toolCall
	if s.PeekKind() != check.KindObject {
		s.Skip()
		return c
	}
	// The result comes before or after the id and name it may need.
	var result []byte
	s.Enter('{')
	for i := 0; s.Next('}', &i); {
		switch string(s.Key()) {
		case "id":
			c.id = s.StringOrSkip()
		case "name":
			c.name = s.StringOrSkip()
		case "result":
			result = s.SkipRaw()
		default:
			s.Skip()
		}
	}
	if len(result) == 0 {
		return c
	}
	var rs check.Scanner
	rs.Reset(result)
	switch rs.PeekKind() {
	case check.KindNull:
	case check.KindString:
		// A string result is sent as a functionResponse of the call.
		r.resp.AddResponse(c.id, c.name)
	default:
		rs.ReadParts(&r.resp)
	}
	return c
}

// ignoredUser reports whether Gemini CLI leaves out of what it sends a
// user message whose text is text: blank, a command ("/…", "?…"), or
// context it adds itself (isIgnoredUserContent).
func ignoredUser(text []byte) bool {
	t := bytes.TrimSpace(text)
	if len(t) == 0 {
		return true
	}
	for _, p := range []string{"/", "?", "<session_context>", "<hook_context>"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}

// partsText is the start of the text of a list of parts (a part, or a
// string), as Gemini CLI joins it (partListUnionToString): enough to tell
// a command from a prompt.
func partsText(raw []byte) []byte {
	var s check.Scanner
	s.Reset(raw)
	var out []byte
	add := func() {
		switch s.PeekKind() {
		case check.KindString:
			out = append(out, s.Text()...)
		case check.KindObject:
			s.Enter('{')
			for n := 0; s.Next('}', &n); {
				if string(s.Key()) == "text" && s.PeekKind() == check.KindString {
					out = append(out, s.Text()...)
					continue
				}
				s.Skip()
			}
		default:
			s.Skip()
		}
	}
	if s.PeekKind() != check.KindArray {
		add()
		return out
	}
	s.Enter('[')
	for n := 0; s.Next(']', &n) && len(bytes.TrimSpace(out)) < 64; {
		add()
	}
	return out
}
