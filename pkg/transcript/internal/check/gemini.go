package check

import "bytes"

// Gemini's contents (generateContent, streamGenerateContent, and the
// histories Gemini CLI and the SDKs keep): a content is {"role": "user" |
// "model", "parts": [...]}, a call a functionCall part {name, args, id?} of
// a model turn, its result a functionResponse part {name, response, id?} of
// the user turn that follows. The rules, with the API's own texts (see
// docs/validate.md, "Gemini"):
//
//   - The function call turn is answered by the next content, a user turn
//     whose functionResponse parts are as many as the calls: "Please ensure
//     that the number of function response parts is equal to the number of
//     function call parts of the function call turn."
//   - A function call turn comes right after a user turn or a function
//     response turn: "Please ensure that function call turn comes
//     immediately after a user turn or after a function response turn."
//   - A function response turn comes right after a function call turn:
//     "Please ensure that function response turn comes immediately after a
//     function call turn."
//   - A response names its function ("function_response.name: Name cannot
//     be empty."), the function of the call it answers; when the calls have
//     ids (Gemini 3 and the Live API give them) it carries the call's id,
//     and calls without ids are answered by name, in order.

// gpart is one element of a content's parts.
type gpart struct {
	kind     byte // gText, gCall, gResponse, gOther, gNotObject
	id, name []byte
	hasName  bool
	valueK   byte   // kind of a call's args, of a response's response
	args     []byte // a call's args, raw
	blank    bool   // a text part of whitespace only
	thought  bool   // a thought summary ("thought": true)
	known    bool   // the object has a key of a Gemini part's data
}

const (
	gOther byte = iota
	gText
	gCall
	gResponse
	gNotObject
)

// Gemini turns, for what may follow what.
const (
	gNone     byte = iota // no content yet
	gUser                 // a user turn without function responses
	gModel                // a model turn without calls
	gCallTurn             // a model turn with function calls
	gRespTurn             // a user turn of function responses
)

// ReadParts reads a Gemini parts array at the scanner's cursor into m,
// after the parts it has; or a string or an object as one part (Gemini CLI
// and the SDKs take either for a list of parts). Anything else marks the
// parts as of that kind.
func (s *Scanner) ReadParts(m *Msg) {
	m.gemini = true
	k := s.PeekKind()
	if m.partsK != KindArray {
		m.partsK = k
	}
	switch k {
	case KindObject:
		m.parts = append(m.parts, gpart{})
		s.readPart(&m.parts[len(m.parts)-1])
		m.partsK = KindArray
	case KindArray:
		s.Enter('[')
		for n := 0; s.Next(']', &n); {
			m.parts = append(m.parts, gpart{})
			s.readPart(&m.parts[len(m.parts)-1])
		}
	case KindString:
		raw, _ := s.Str()
		m.parts = append(m.parts, gpart{kind: gText, blank: IsBlank(raw)})
		m.partsK = KindArray
	default:
		s.Skip()
	}
}

func (s *scanner) readPart(p *gpart) {
	switch s.PeekKind() {
	case KindObject:
	case KindString:
		raw, _ := s.Str()
		p.kind, p.blank = gText, IsBlank(raw)
		return
	default:
		p.kind = gNotObject
		s.Skip()
		return
	}
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		k := string(s.Key())
		switch k {
		case "text", "inlineData", "inline_data", "fileData", "file_data", "functionCall", "function_call",
			"functionResponse", "function_response", "executableCode", "executable_code",
			"codeExecutionResult", "code_execution_result":
			p.known = true
		}
		switch k {
		case "text":
			if p.kind == gOther {
				p.kind = gText
			}
			if s.PeekKind() == KindString {
				raw, _ := s.Str()
				p.blank = IsBlank(raw)
				continue
			}
			s.Skip()
		case "thought":
			p.thought = s.Bool() // skips a value of another kind
		case "functionCall", "function_call", "functionResponse", "function_response":
			if s.PeekKind() != KindObject {
				s.Skip()
				continue
			}
			p.kind = gCall
			if k == "functionResponse" || k == "function_response" {
				p.kind = gResponse
			}
			s.readGeminiFunction(p)
		default:
			s.Skip()
		}
	}
}

// readGeminiFunction reads a functionCall or functionResponse object.
func (s *scanner) readGeminiFunction(p *gpart) {
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		switch string(s.Key()) {
		case "id":
			p.id = s.StringOrSkip()
		case "name":
			p.hasName = true
			p.name = s.StringOrSkip()
		case "args", "response":
			p.valueK = s.PeekKind()
			p.args = s.SkipRaw()
		default:
			s.Skip()
		}
	}
}

// geminiParts reports whether any part of m is one of Gemini's: an object
// with text, inline or file data, a function call or response, code or
// its result. Other tools name their own lists "parts" (pydantic-ai's
// messages, {"part_kind": …}): those are not Gemini contents.
func (m *Msg) geminiParts() bool {
	for i := range m.parts {
		if m.parts[i].known {
			return true
		}
	}
	return false
}

// SetRole sets the role of a content built rather than read (a Gemini CLI
// session's message).
func (m *Msg) SetRole(role []byte) {
	m.role, m.hasRole, m.roleK = role, true, KindString
}

// AddCall adds to m, a content being built, a functionCall part for the
// call id (nil when it has none) of function name.
func (m *Msg) AddCall(id, name []byte) {
	m.gemini, m.partsK = true, KindArray
	m.parts = append(m.parts, gpart{kind: gCall, id: id, name: name, hasName: true, valueK: KindObject})
}

// AddResponse adds to m, a content being built, a functionResponse part
// answering call id (nil when it has none) of function name.
func (m *Msg) AddResponse(id, name []byte) {
	m.gemini, m.partsK = true, KindArray
	m.parts = append(m.parts, gpart{kind: gResponse, id: id, name: name, hasName: true, valueK: KindObject})
}

// AddText adds to m, a content being built, a text part.
func (m *Msg) AddText(text []byte) {
	m.gemini, m.partsK = true, KindArray
	m.parts = append(m.parts, gpart{kind: gText, blank: IsBlank(text)})
}

// GeminiCalls and GeminiResponses count the functionCall and
// functionResponse parts of a Gemini content.
func (m *Msg) GeminiCalls() int     { return m.countParts(gCall) }
func (m *Msg) GeminiResponses() int { return m.countParts(gResponse) }

// PartsLen is the number of parts of a Gemini content.
func (m *Msg) PartsLen() int { return len(m.parts) }

// Thoughts reports whether a Gemini content has a thought part.
func (m *Msg) Thoughts() bool {
	for i := range m.parts {
		if m.parts[i].thought {
			return true
		}
	}
	return false
}

func (m *Msg) countParts(kind byte) int {
	n := 0
	for i := range m.parts {
		if m.parts[i].kind == kind {
			n++
		}
	}
	return n
}

// validGeminiName reports whether a function name is one Gemini takes:
// "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or
// contain underscores (_), dots (.), colons (:), or dashes (-), with a
// maximum length of 64."
func validGeminiName(name []byte) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	if c := name[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// addGemini checks one Gemini content.
func (c *conv) addGemini(m *Msg) {
	role := string(m.role)
	switch {
	case !m.hasRole || m.roleK == KindNull:
		// The API takes a content without a role as the user's.
		role = "user"
	case role == "function":
		// Vertex AI's earlier examples send function responses as role
		// "function": a user-side turn.
		role = "user"
	case m.roleK != KindString || (role != "user" && role != "model"):
		c.reportSev(m.line, m.index, Error, "invalid-message", nil, "%s", m.unknownRole("user or model"))
		c.gemClose(m)
		c.gemTurn = gNone
		return
	}
	switch {
	case m.partsK == KindAbsent || m.partsK == KindNull:
		c.reportSev(m.line, m.index, Error, "missing-content", nil, "%s content has no parts", role)
	case m.partsK != KindArray:
		c.reportSev(m.line, m.index, Error, "invalid-message", nil, "parts is %s; want an array", KindName(m.partsK))
	case len(m.parts) == 0:
		c.reportSev(m.line, m.index, Error, "missing-content", nil, "%s content has no parts (the API: contents.parts must not be empty)", role)
	case !m.gemini:
		c.reportSev(m.line, m.index, Error, "invalid-message", nil,
			"no part of this %s content is one of Gemini's (text, inlineData, fileData, functionCall, functionResponse…)", role)
	}
	for i := range m.parts {
		if m.parts[i].kind == gNotObject {
			c.reportSev(m.line, m.index, Error, "invalid-block", nil, "parts[%d] is not an object", i)
		}
	}
	calls, resps := m.countParts(gCall), m.countParts(gResponse)
	if role == "model" {
		c.gemModel(m, calls, resps)
		return
	}
	c.gemUser(m, calls, resps)
}

// gemModel checks a model turn. Consecutive model contents are one turn to
// the API: a call in either is answered by the user turn after the last
// (gemini-3-flash-preview answered 200 to [model call A, model call B, user
// responses A and B], pydantic-ai's test_cross_provider_capability_replay
// cassette).
func (c *conv) gemModel(m *Msg, calls, resps int) {
	prev := c.gemTurn
	merged := prev == gModel || prev == gCallTurn
	if !merged {
		c.gemClose(m)
		c.gemLead = prev == gNone
	}
	if resps > 0 {
		c.reportSev(m.line, m.index, Error, "misplaced-block", nil,
			"a model turn holds %d functionResponse %s: function responses go in the user turn after the calls", resps, plural(resps, "part", "parts"))
	}
	if calls == 0 {
		if prev != gCallTurn {
			c.gemTurn = gModel
		}
		return
	}
	c.gemTurn = gCallTurn
	if c.gemLead && !c.resync {
		c.gemLead = false // said once
		c.reportSev(m.line, m.index, Error, "call-turn-order", nil,
			"this function call turn comes first, before any user turn; the API wants it immediately after a user turn or a function response turn (\"Please ensure that function call turn comes immediately after a user turn or after a function response turn.\")")
	}
	if !merged || !c.blockOpen {
		c.resync = false
		c.blockOpen = true
		c.pending = c.pending[:0]
	}
	for i := range m.parts {
		p := &m.parts[i]
		if p.kind != gCall {
			continue
		}
		label := p.id
		if len(label) == 0 {
			label = p.name
		}
		switch {
		case !p.hasName || len(p.name) == 0:
			c.reportSev(m.line, m.index, Error, "invalid-tool-call", nil, "parts[%d].functionCall has no name", i)
			continue
		case !validGeminiName(p.name):
			c.reportSev(m.line, m.index, Error, "invalid-tool-name", []string{string(label)},
				"function name %q of parts[%d] is not one Gemini takes (a letter or _ first, then a-z, A-Z, 0-9, _ . : -, at most 64)", p.name, i)
		default:
			c.checkCallKnown(m, label, p.name)
			if p.valueK == KindObject {
				c.checkArgs(m, label, p.name, p.args)
			}
		}
		if p.valueK != KindAbsent && p.valueK != KindObject {
			c.reportSev(m.line, m.index, Error, "invalid-tool-call", []string{string(label)},
				"args of call %s (%s) is %s; want an object", label, p.name, KindName(p.valueK))
		}
		var h uint64
		if len(p.id) > 0 {
			h = c.hash(p.id)
			c.noteID(m, p.id, h, m.index)
		}
		c.addPending(m, label, p.name, h)
		c.pending[len(c.pending)-1].byName = len(p.id) == 0
	}
}

// gemUser checks a user turn: the responses to the calls of the turn
// before, if it is one of function responses.
func (c *conv) gemUser(m *Msg, calls, resps int) {
	if calls > 0 {
		c.reportSev(m.line, m.index, Error, "misplaced-block", nil,
			"a user turn holds %d functionCall %s: only the model calls functions", calls, plural(calls, "part", "parts"))
	}
	if resps == 0 {
		c.gemClose(m)
		c.gemTurn = gUser
		return
	}
	if c.gemTurn != gCallTurn || !c.blockOpen {
		if !c.resync {
			after := "the start of the conversation"
			switch c.gemTurn {
			case gUser:
				after = "a user turn"
			case gModel:
				after = "a model turn without function calls"
			case gRespTurn:
				after = "another function response turn"
			}
			c.reportSev(m.line, m.index, Error, "orphan-result", c.gemRespIDs(m),
				"this function response turn comes after %s; the API wants it immediately after the function call turn it answers (\"Please ensure that function response turn comes immediately after a function call turn.\")", after)
		}
		c.gemClose(m)
		c.gemTurn = gRespTurn
		return
	}
	byID := false
	for i := range c.pending {
		byID = byID || !c.pending[i].byName
	}
	for i := range m.parts {
		p := &m.parts[i]
		if p.kind != gResponse {
			continue
		}
		if !p.hasName || len(p.name) == 0 {
			c.reportSev(m.line, m.index, Error, "invalid-message", []string{string(p.id)},
				"parts[%d].functionResponse has no name (the API: function_response.name: Name cannot be empty)", i)
		}
		if p.valueK != KindAbsent && p.valueK != KindObject {
			c.reportSev(m.line, m.index, Error, "invalid-message", []string{string(p.id)},
				"parts[%d].functionResponse.response is %s; want an object", i, KindName(p.valueK))
		}
		c.gemAnswer(m, i, p, byID)
	}
	c.gemClose(m)
	c.gemTurn = gRespTurn
}

// gemAnswer pairs one functionResponse with a call of the turn before: by
// id when it has one and the calls do, else by name, the first call of
// that name not yet answered.
func (c *conv) gemAnswer(m *Msg, i int, p *gpart, byID bool) {
	var match *pend
	if byID && len(p.id) > 0 {
		h := c.hash(p.id)
		for j := range c.pending {
			if q := &c.pending[j]; !q.byName && q.hash == h {
				match = q
				break
			}
		}
		if match == nil {
			c.reportSev(m.line, m.index, Error, "unknown-result-id", []string{string(p.id)},
				"parts[%d].functionResponse answers call id %s, which the function call turn%s did not make", i, p.id, c.callTurn())
			return
		}
		if match.answered {
			c.reportSev(m.line, m.index, Error, "duplicate-result", []string{string(p.id)},
				"call %s (%s) is answered twice in this turn", match.id, match.name)
			return
		}
	} else {
		var seen *pend
		for j := range c.pending {
			// A response without a name (reported) takes the next call.
			if q := &c.pending[j]; bytes.Equal(q.name, p.name) || len(p.name) == 0 {
				if seen == nil {
					seen = q
				}
				if !q.answered {
					match = q
					break
				}
			}
		}
		switch {
		case match == nil && seen != nil:
			c.reportSev(m.line, m.index, Error, "duplicate-result", []string{string(seen.id)},
				"parts[%d].functionResponse names %s, whose %s already answered in this turn", i, p.name,
				plural(c.countName(p.name), "call is", "calls are"))
			return
		case match == nil:
			c.reportSev(m.line, m.index, Error, "unknown-result-id", []string{string(p.id)},
				"parts[%d].functionResponse names function %q, which the function call turn%s did not call", i, p.name, c.callTurn())
			return
		}
	}
	if len(p.name) > 0 && !bytes.Equal(p.name, match.name) {
		c.reportSev(m.line, m.index, Error, "unknown-result-id", []string{string(match.id)},
			"parts[%d].functionResponse answers call %s of %s but names function %q; the API wants the name of the function called", i, match.id, match.name, p.name)
	}
	match.answered = true
}

// callTurn says where the function call turn is, " (contents[1])"; "" when
// none of its calls could be read.
func (c *conv) callTurn() string {
	if len(c.pending) == 0 {
		return ""
	}
	return " (" + c.where(c.pending[0].line, c.pending[0].index) + ")"
}

func (c *conv) countName(name []byte) int {
	n := 0
	for i := range c.pending {
		if bytes.Equal(c.pending[i].name, name) {
			n++
		}
	}
	return n
}

// gemRespIDs are the ids (or names) of the functionResponse parts of m.
func (c *conv) gemRespIDs(m *Msg) []string {
	var ids []string
	for i := range m.parts {
		if p := &m.parts[i]; p.kind == gResponse {
			if len(p.id) > 0 {
				ids = append(ids, string(p.id))
			} else {
				ids = append(ids, string(p.name))
			}
		}
	}
	return ids
}

// gemClose ends the function call turn before m: its calls not answered
// by now never will be.
func (c *conv) gemClose(m *Msg) {
	if !c.blockOpen {
		return
	}
	c.blockOpen = false
	var ids []string
	answered := 0
	for i := range c.pending {
		if c.pending[i].answered {
			answered++
		} else {
			ids = append(ids, string(c.pending[i].id))
		}
	}
	if len(ids) > 0 && !c.resync {
		if c.gemTurn == gCallTurn && m.GeminiResponses() > 0 {
			c.reportSev(m.line, m.index, Error, "unanswered-call", ids,
				"%s %s no functionResponse in %s: it answers %d of the %d calls of the function call turn (the API: \"Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.\")",
				describePending(c.pending, c.where), plural(len(ids), "has", "have"), c.where(m.line, m.index), answered, len(c.pending))
		} else {
			c.reportSev(m.line, m.index, Error, "unanswered-call", ids,
				"%s %s no functionResponse: the function call turn must be followed by a user turn of function responses, not by %s",
				describePending(c.pending, c.where), plural(len(ids), "has", "have"), c.where(m.line, m.index))
		}
	}
	c.pending = c.pending[:0]
}
