package transcript

import (
	"bytes"
	"fmt"
)

// wireMsg is what the rules need to know about one message (or one Responses
// input item), read in a single pass whatever the shape. Byte slices point
// into the document or the scanner's arena and are valid until the next
// document.
type wireMsg struct {
	line, index int

	role, typ []byte // "role"; "type" (Responses items)
	hasRole   bool
	wraps     bool // holds a "message" or "payload" object: a line of another log
	roleK     byte // kind of "role"

	content     byte // kind of "content"
	contentText bool // a string or a text part with non-blank text
	blankString bool // content is a string of whitespace only
	blocks      []block

	toolCalls    byte // kind of "tool_calls"
	calls        []call
	toolCallID   []byte
	toolCallIDK  byte // kind of "tool_call_id"
	name         []byte
	nameK        byte
	functionCall bool
	refusal      bool // a non-blank "refusal": what a refused turn says

	// Responses items.
	id, callID []byte
	callIDK    byte
	argsK      byte
	args       []byte
	output     byte
	cipher     bool // a non-empty encrypted_content

	// Shape signals that belong to neither OpenAI nor Anthropic.
	foreign bool
	// stopReason: an Anthropic response's stop_reason, which says a
	// {"type":"message"} object is an Anthropic message, not a Responses item.
	stopReason bool

	// step is the step of the agentloop record that holds the message (the
	// model request that returned it, for the model's own items); 0 when
	// there is none.
	step int64

	// continues is set by readers of logs that write one message over
	// several lines (Claude Code) on the lines after its first.
	continues bool

	// badAt is the text that is not UTF-8 the scanner noted in the message
	// (see scanner.bad), the bytes from there; badLines the newlines
	// before it.
	badSur   bool
	badAt    []byte
	badLines int
}

// unknownRole says what is wrong with a role that is none of want: a
// value that is not a string is named for what it is (a role of 5 is not
// "unknown role """).
func (m *wireMsg) unknownRole(want string) string {
	if m.roleK != kindString && m.roleK != kindAbsent {
		return "role is " + kindName(m.roleK) + "; want a string: " + want
	}
	return fmt.Sprintf("unknown role %q (want %s)", m.role, want)
}

// onlyBlankText reports whether the content is an array whose every block
// is a text block of whitespace only.
func (m *wireMsg) onlyBlankText() bool {
	if m.content != kindArray || len(m.blocks) == 0 {
		return false
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		if b.notObject || string(b.typ) != "text" || !b.blankText {
			return false
		}
	}
	return true
}

// block is one element of a content array: an Anthropic block, an OpenAI
// content part or a Responses content part.
type block struct {
	typ        []byte
	notObject  bool
	id, name   []byte
	hasID      bool
	hasName    bool
	toolUseID  []byte
	hasUseID   bool
	inputK     byte
	input      []byte
	isError    bool
	content    byte // kind of a tool_result's "content"
	emptyValue bool // tool_result content blank: "", [], or blank text only
	hasText    bool
	blankText  bool
	emptyText  bool // "text": "", which the Messages API refuses wherever it is
	foreign    bool // Bedrock-style block: toolUse/toolResult keys, no type
}

// call is one element of an OpenAI tool_calls array.
type call struct {
	notObject bool
	id, typ   []byte
	hasID     bool
	idK       byte
	hasType   bool
	function  byte // kind of "function" (or "custom")
	name      []byte
	hasName   bool
	argsK     byte
	args      []byte // decoded arguments (custom: input)
	hasArgs   bool
	custom    bool
	// flat: Inspect AI writes the name as "function": "name" and the
	// arguments as an object beside it.
	flat bool
}

func (m *wireMsg) reset(line, index int) {
	blocks, calls := m.blocks[:0], m.calls[:0]
	*m = wireMsg{line: line, index: index, blocks: blocks, calls: calls}
}

// readMsg reads the message object at the scanner's cursor into m. Text in
// it that is not UTF-8 goes with m, not with the document around it.
func (s *scanner) readMsg(m *wireMsg) {
	bad, badSur := s.bad, s.badSur
	s.bad = 0
	s.readFields(m)
	if s.bad != 0 {
		at := s.bad - 1
		m.badSur = s.badSur
		m.badAt = s.d[at:min(at+12, len(s.d))]
		m.badLines = bytes.Count(s.d[:at], []byte{'\n'})
	}
	s.bad, s.badSur = bad, badSur
}

func (s *scanner) readFields(m *wireMsg) {
	if s.peekKind() != kindObject {
		s.skip()
		return
	}
	s.enter('{')
	for n := 0; s.next('}', &n); {
		k := s.key()
		switch string(k) {
		case "role":
			m.roleK = s.peekKind()
			if m.roleK == kindString {
				m.role, m.hasRole = s.text(), true
			} else {
				m.hasRole = true
				s.skip()
			}
		case "type":
			m.typ = s.stringOrSkip()
		case "content":
			s.readContent(m)
		case "tool_calls":
			m.toolCalls = s.peekKind()
			if m.toolCalls == kindArray {
				s.readCalls(m)
			} else {
				s.skip()
			}
		case "tool_call_id":
			m.toolCallIDK = s.peekKind()
			m.toolCallID = s.stringOrSkip()
		case "tool_call_ids":
			// SWE-agent keeps a tool message's id in a list of one, and
			// sends the first as tool_call_id.
			if m.toolCallIDK == kindAbsent && s.peekKind() == kindArray {
				s.enter('[')
				for n := 0; s.next(']', &n); {
					if n == 1 && s.peekKind() == kindString {
						m.toolCallIDK, m.toolCallID = kindString, s.text()
						continue
					}
					s.skip()
				}
				continue
			}
			s.skip()
		case "stop_reason":
			m.stopReason = true
			s.skip()
		case "name":
			m.nameK = s.peekKind()
			m.name = s.stringOrSkip()
		case "function_call":
			m.functionCall = s.peekKind() == kindObject
			s.skip()
		case "refusal":
			if s.peekKind() == kindString {
				m.refusal = len(bytes.TrimSpace(s.text())) > 0
			} else {
				s.skip()
			}
		case "id":
			m.id = s.stringOrSkip()
		case "call_id":
			m.callIDK = s.peekKind()
			m.callID = s.stringOrSkip()
		case "arguments", "input":
			m.argsK = s.peekKind()
			m.args = s.stringOrSkip()
		case "output":
			m.output = s.peekKind()
			s.skip()
		case "encrypted_content":
			m.cipher = len(s.stringOrSkip()) > 0
		case "parts", "toolUse", "toolResult":
			m.foreign = true
			s.skip()
		case "message", "payload":
			// How Claude Code and Codex log lines hold a message: such
			// a line among messages is another log's (conv.unknownItem).
			m.wraps = m.wraps || s.peekKind() == kindObject
			s.skip()
		default:
			s.skip()
		}
	}
}

func (s *scanner) readContent(m *wireMsg) {
	m.content = s.peekKind()
	switch m.content {
	case kindString:
		raw, _ := s.str()
		m.blankString = isBlank(raw)
		m.contentText = !m.blankString
	case kindArray:
		s.enter('[')
		for n := 0; s.next(']', &n); {
			m.blocks = append(m.blocks, block{})
			b := &m.blocks[len(m.blocks)-1]
			s.readBlock(b)
			if b.hasText && !b.blankText {
				m.contentText = true
			}
		}
	default:
		s.skip()
	}
}

func (s *scanner) readBlock(b *block) {
	if s.peekKind() != kindObject {
		b.notObject = true
		s.skip()
		return
	}
	s.enter('{')
	for n := 0; s.next('}', &n); {
		k := s.key()
		switch string(k) {
		case "type":
			b.typ = s.stringOrSkip()
		case "id":
			b.hasID = true
			b.id = s.stringOrSkip()
		case "name":
			b.hasName = true
			b.name = s.stringOrSkip()
		case "tool_use_id":
			b.hasUseID = true
			b.toolUseID = s.stringOrSkip()
		case "input":
			b.inputK = s.peekKind()
			b.input = s.skipRaw()
		case "is_error":
			b.isError = s.peekKind() == kindBool && s.d[s.i] == 't'
			s.skip()
		case "content":
			b.content = s.peekKind()
			switch b.content {
			case kindString:
				raw, _ := s.str()
				b.emptyValue = isBlank(raw)
			case kindArray:
				// Empty when it holds no block, or only text blocks with
				// blank text.
				b.emptyValue = true
				s.enter('[')
				for cnt := 0; s.next(']', &cnt); {
					if !s.blankTextBlock() {
						b.emptyValue = false
					}
				}
			default:
				s.skip()
			}
		case "text":
			b.hasText = true
			if s.peekKind() == kindString {
				raw, _ := s.str()
				b.blankText = isBlank(raw)
				b.emptyText = len(raw) == 0
			} else {
				s.skip()
			}
		case "toolUse", "toolResult", "functionCall", "functionResponse":
			b.foreign = true
			s.skip()
		default:
			s.skip()
		}
	}
}

// blankTextBlock reads one block of a tool_result's content and reports
// whether it is a text block whose text is blank.
func (s *scanner) blankTextBlock() bool {
	if s.peekKind() != kindObject {
		s.skip()
		return false
	}
	isText, blank := false, false
	s.enter('{')
	for n := 0; s.next('}', &n); {
		switch string(s.key()) {
		case "type":
			if s.peekKind() == kindString {
				isText = string(s.text()) == "text"
				continue
			}
		case "text":
			if s.peekKind() == kindString {
				raw, _ := s.str()
				blank = isBlank(raw)
				continue
			}
		}
		s.skip()
	}
	return isText && blank
}

func (s *scanner) readCalls(m *wireMsg) {
	s.enter('[')
	for n := 0; s.next(']', &n); {
		m.calls = append(m.calls, call{})
		c := &m.calls[len(m.calls)-1]
		if s.peekKind() != kindObject {
			c.notObject = true
			s.skip()
			continue
		}
		s.enter('{')
		for n2 := 0; s.next('}', &n2); {
			k := s.key()
			switch string(k) {
			case "id":
				c.hasID = true
				c.idK = s.peekKind()
				c.id = s.stringOrSkip()
			case "type":
				c.hasType = true
				c.typ = s.stringOrSkip()
			case "function", "custom":
				c.custom = string(k) == "custom"
				c.function = s.peekKind()
				switch c.function {
				case kindObject:
					s.readFunction(c)
				case kindString:
					c.flat, c.hasName, c.name = true, true, s.text()
				default:
					s.skip()
				}
			case "arguments":
				c.hasArgs = true
				c.argsK = s.peekKind()
				c.args = s.skipRaw()
			default:
				s.skip()
			}
		}
	}
}

func (s *scanner) readFunction(c *call) {
	s.enter('{')
	for n := 0; s.next('}', &n); {
		k := s.key()
		switch string(k) {
		case "name":
			c.hasName = true
			c.name = s.stringOrSkip()
		case "arguments", "input":
			c.hasArgs = true
			c.argsK = s.peekKind()
			c.args = s.stringOrSkip()
		default:
			s.skip()
		}
	}
}

// argsKind scans a decoded arguments string as a JSON document of its own
// and returns the kind of its top-level value (kindInvalid if it is not JSON).
func (v *validator) argsKind(args []byte) byte {
	sub := &v.sub
	sub.reset(args)
	k := sub.peekKind()
	sub.skip()
	sub.end()
	if sub.err != nil {
		return kindInvalid
	}
	return k
}

// stringOrSkip returns the string at the cursor, or skips a value of any
// other kind and returns nil.
func (s *scanner) stringOrSkip() []byte {
	if s.peekKind() == kindString {
		return s.text()
	}
	s.skip()
	return nil
}
