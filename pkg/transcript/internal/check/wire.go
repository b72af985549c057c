package check

import (
	"bytes"
	"fmt"
)

// Msg is what the rules need to know about one message (or one Responses
// input item), read in a single pass whatever the shape. Byte slices point
// into the document or the scanner's arena and are valid until the next
// document.
type Msg struct {
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
	toolCallIDK  byte   // kind of "tool_call_id"
	toolName     []byte // Ollama's tool message: the tool whose result it is
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
	// Gemini contents: a "parts" key, its kind and its parts.
	gemini bool
	partsK byte
	parts  []gpart
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
func (m *Msg) unknownRole(want string) string {
	if m.roleK != KindString && m.roleK != KindAbsent {
		return "role is " + KindName(m.roleK) + "; want a string: " + want
	}
	return fmt.Sprintf("unknown role %q (want %s)", m.role, want)
}

// onlyBlankText reports whether the content is an array whose every block
// is a text block of whitespace only.
func (m *Msg) onlyBlankText() bool {
	if m.content != KindArray || len(m.blocks) == 0 {
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
	foreign    bool // Gemini's parts: functionCall/functionResponse keys, no type
	// bedrock is the member of a Bedrock Converse content block (a union
	// keyed by its member, with no type): "toolUse", "toolResult",
	// "image"…; "" for others. A toolUse's toolUseId, name and input go to
	// id, name and input, a toolResult's toolUseId and content to
	// toolUseID and content, its status "error" to isError.
	bedrock string
	// server: a Bedrock toolUse or toolResult with a type, of a tool the
	// server runs (type "server_tool_use"; its result's type names the
	// tool: "nova_code_interpreter_result"), both in the assistant
	// message.
	server bool
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

func (m *Msg) reset(line, index int) {
	blocks, calls, parts := m.blocks[:0], m.calls[:0], m.parts[:0]
	*m = Msg{line: line, index: index, blocks: blocks, calls: calls, parts: parts}
}

// ReadMsg reads the message object at the scanner's cursor into m. Text in
// it that is not UTF-8 goes with m, not with the document around it.
func (s *Scanner) ReadMsg(m *Msg) {
	bad, badSur := s.BadText()
	s.SetBadText(-1, false)
	s.readFields(m)
	if at, sur := s.BadText(); at >= 0 {
		d := s.Data()
		m.badSur = sur
		m.badAt = d[at:min(at+12, len(d))]
		m.badLines = bytes.Count(d[:at], []byte{'\n'})
	}
	s.SetBadText(bad, badSur)
}

func (s *scanner) readFields(m *Msg) {
	if s.PeekKind() != KindObject {
		s.Skip()
		return
	}
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		k := s.Key()
		switch string(k) {
		case "role":
			m.roleK = s.PeekKind()
			if m.roleK == KindString {
				m.role, m.hasRole = s.Text(), true
			} else {
				m.hasRole = true
				s.Skip()
			}
		case "type":
			m.typ = s.StringOrSkip()
		case "content":
			s.readContent(m)
		case "tool_calls":
			m.toolCalls = s.PeekKind()
			if m.toolCalls == KindArray {
				s.readCalls(m)
			} else {
				s.Skip()
			}
		case "tool_call_id":
			m.toolCallIDK = s.PeekKind()
			m.toolCallID = s.StringOrSkip()
		case "tool_call_ids":
			// SWE-agent keeps a tool message's id in a list of one, and
			// sends the first as tool_call_id.
			if m.toolCallIDK == KindAbsent && s.PeekKind() == KindArray {
				s.Enter('[')
				for n := 0; s.Next(']', &n); {
					if n == 1 && s.PeekKind() == KindString {
						m.toolCallIDK, m.toolCallID = KindString, s.Text()
						continue
					}
					s.Skip()
				}
				continue
			}
			s.Skip()
		case "tool_name":
			m.toolName = s.StringOrSkip()
		case "stop_reason":
			m.stopReason = true
			s.Skip()
		case "name":
			m.nameK = s.PeekKind()
			m.name = s.StringOrSkip()
		case "function_call":
			m.functionCall = s.PeekKind() == KindObject
			s.Skip()
		case "refusal":
			if s.PeekKind() == KindString {
				m.refusal = len(bytes.TrimSpace(s.Text())) > 0
			} else {
				s.Skip()
			}
		case "id":
			m.id = s.StringOrSkip()
		case "call_id":
			m.callIDK = s.PeekKind()
			m.callID = s.StringOrSkip()
		case "arguments", "input":
			m.argsK = s.PeekKind()
			m.args = s.StringOrSkip()
		case "output":
			m.output = s.PeekKind()
			s.Skip()
		case "encrypted_content":
			m.cipher = len(s.StringOrSkip()) > 0
		case "parts":
			s.ReadParts(m)
			if !m.geminiParts() {
				// Not Gemini's parts (or none): a shape the rules do not
				// cover, unless the role says Gemini (see classify).
				m.gemini, m.foreign = false, true
			}
		case "toolUse", "toolResult":
			m.foreign = true
			s.Skip()
		case "message", "payload":
			// How Claude Code and Codex log lines hold a message: such
			// a line among messages is another log's (conv.unknownItem).
			m.wraps = m.wraps || s.PeekKind() == KindObject
			s.Skip()
		default:
			s.Skip()
		}
	}
}

func (s *scanner) readContent(m *Msg) {
	m.content = s.PeekKind()
	switch m.content {
	case KindString:
		raw, _ := s.Str()
		m.blankString = IsBlank(raw)
		m.contentText = !m.blankString
	case KindArray:
		s.Enter('[')
		for n := 0; s.Next(']', &n); {
			m.blocks = append(m.blocks, block{})
			b := &m.blocks[len(m.blocks)-1]
			s.readBlock(b)
			if b.hasText && !b.blankText {
				m.contentText = true
			}
		}
	default:
		s.Skip()
	}
}

func (s *scanner) readBlock(b *block) {
	if s.PeekKind() != KindObject {
		b.notObject = true
		s.Skip()
		return
	}
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		k := s.Key()
		switch string(k) {
		case "type":
			b.typ = s.StringOrSkip()
		case "id":
			b.hasID = true
			b.id = s.StringOrSkip()
		case "name":
			b.hasName = true
			b.name = s.StringOrSkip()
		case "tool_use_id":
			b.hasUseID = true
			b.toolUseID = s.StringOrSkip()
		case "input":
			b.inputK = s.PeekKind()
			b.input = s.SkipRaw()
		case "is_error":
			b.isError = s.Bool()
		case "content":
			b.content = s.PeekKind()
			switch b.content {
			case KindString:
				raw, _ := s.Str()
				b.emptyValue = IsBlank(raw)
			case KindArray:
				// Empty when it holds no block, or only text blocks with
				// blank text.
				b.emptyValue = true
				s.Enter('[')
				for cnt := 0; s.Next(']', &cnt); {
					if !s.blankTextBlock() {
						b.emptyValue = false
					}
				}
			default:
				s.Skip()
			}
		case "text":
			b.hasText = true
			if s.PeekKind() == KindString {
				raw, _ := s.Str()
				b.blankText = IsBlank(raw)
				b.emptyText = len(raw) == 0
			} else {
				s.Skip()
			}
		case "toolUse", "toolResult":
			b.bedrock = "toolUse"
			if string(k) == "toolResult" {
				b.bedrock = "toolResult"
			}
			if s.PeekKind() != KindObject {
				s.Skip()
				continue
			}
			s.readBedrockTool(b)
		case "image", "document", "video", "reasoningContent", "cachePoint", "guardContent",
			"citationsContent", "searchResult":
			if b.bedrock == "" && s.PeekKind() == KindObject {
				b.bedrock = bedrockMembers[string(k)]
			}
			s.Skip()
		case "functionCall", "functionResponse":
			b.foreign = true
			s.Skip()
		default:
			s.Skip()
		}
	}
}

// blankTextBlock reads one block of a tool_result's content and reports
// whether it is a text block whose text is blank.
func (s *scanner) blankTextBlock() bool {
	if s.PeekKind() != KindObject {
		s.Skip()
		return false
	}
	isText, blank := false, false
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		switch string(s.Key()) {
		case "type":
			if s.PeekKind() == KindString {
				isText = string(s.Text()) == "text"
				continue
			}
		case "text":
			if s.PeekKind() == KindString {
				raw, _ := s.Str()
				blank = IsBlank(raw)
				continue
			}
		}
		s.Skip()
	}
	return isText && blank
}

func (s *scanner) readCalls(m *Msg) {
	s.Enter('[')
	for n := 0; s.Next(']', &n); {
		m.calls = append(m.calls, call{})
		c := &m.calls[len(m.calls)-1]
		if s.PeekKind() != KindObject {
			c.notObject = true
			s.Skip()
			continue
		}
		s.Enter('{')
		for n2 := 0; s.Next('}', &n2); {
			k := s.Key()
			switch string(k) {
			case "id":
				c.hasID = true
				c.idK = s.PeekKind()
				c.id = s.StringOrSkip()
			case "type":
				c.hasType = true
				c.typ = s.StringOrSkip()
			case "function", "custom":
				c.custom = string(k) == "custom"
				c.function = s.PeekKind()
				switch c.function {
				case KindObject:
					s.readFunction(c)
				case KindString:
					c.flat, c.hasName, c.name = true, true, s.Text()
				default:
					s.Skip()
				}
			case "arguments":
				c.hasArgs = true
				c.argsK = s.PeekKind()
				c.args = s.SkipRaw()
			default:
				s.Skip()
			}
		}
	}
}

func (s *scanner) readFunction(c *call) {
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		k := s.Key()
		switch string(k) {
		case "name":
			c.hasName = true
			c.name = s.StringOrSkip()
		case "arguments", "input":
			c.hasArgs = true
			c.argsK = s.PeekKind()
			if c.argsK == KindObject {
				// Ollama's arguments, and Inspect AI's: kept for the
				// tools' schema check.
				c.args = s.SkipRaw()
				continue
			}
			c.args = s.StringOrSkip()
		default:
			s.Skip()
		}
	}
}

// argsKind scans a decoded arguments string as a JSON document of its own
// and returns the kind of its top-level value (KindInvalid if it is not JSON).
func (v *File) argsKind(args []byte) byte {
	sub := &v.sub
	sub.Reset(args)
	k := sub.PeekKind()
	sub.Skip()
	sub.End()
	if sub.failed() {
		return KindInvalid
	}
	return k
}
