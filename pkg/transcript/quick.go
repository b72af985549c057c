package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Listing a folder of transcripts reads three kinds of line from each file:
// the header, the end record and a message or two. encoding/json spends most
// of a listing's time on them (reflection, and a validating pass before the
// decoding one). The quick decoders below read the same lines with the
// checker's scanner, in one pass, and give up (ok is false) on anything they
// cannot be sure to read exactly as encoding/json does: a known key written
// in another case, with escapes or twice, a value of an unexpected type
// (null included), a number that is not a plain integer, invalid UTF-8 in a
// string, invalid JSON. The caller then decodes the line with encoding/json,
// whose result and error stand. Lines the writer writes never make them give
// up.

// The keys of the records, in the order of their fields (a test holds them
// to the structs' tags).
var (
	headerKeys = []string{"type", "version", "id", "time", "command", "provider", "model", "base_url", "tools_dirs",
		"tools", "system", "max_steps", "parallel", "max_total_tokens", "max_cost", "context", "parent", "parent_id", "agentloop", "mcp_servers", "temperature", "max_tokens"}
	endKeys     = []string{"type", "time", "reason", "error", "steps", "usage", "cost_usd"}
	usageKeys   = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "reasoning_tokens"}
	messageKeys = []string{"step", "message", "images_of"}
	wireKeys    = []string{"role", "content"}
	partKeys    = []string{"type", "text"}
)

// QuickHeader decodes a header line as encoding/json does, but for the tool
// definitions, the MCP servers and the system prompt, which it checks and
// skips (Tools and MCPServers are nil, System empty): a listing shows none
// of them, and they are most of a header.
func QuickHeader(line []byte) (h Header, ok bool) {
	var s scanner
	s.reset(line)
	if !s.quickObject() {
		return h, false
	}
	var seen uint32
	for n := 0; s.next('}', &n); {
		switch s.quickKey(headerKeys, &seen) {
		case "type":
			h.Type = s.quickString()
		case "version":
			h.Version = s.quickInt()
		case "id":
			h.ID = s.quickString()
		case "time":
			s.quickTime(&h.Time)
		case "command":
			h.Command = s.quickString()
		case "provider":
			h.Provider = s.quickString()
		case "model":
			h.Model = s.quickString()
		case "base_url":
			h.BaseURL = s.quickString()
		case "tools_dirs":
			h.ToolsDirs = s.quickStrings()
		case "tools":
			s.skipA(kindArray)
		case "system":
			s.skipA(kindString)
		case "max_steps":
			h.MaxSteps = s.quickInt()
		case "parallel":
			h.Parallel = s.quickInt()
		case "max_total_tokens":
			h.MaxTotalTokens = s.quickInt64()
		case "max_cost":
			h.MaxCost = s.quickFloat()
		case "context":
			// A few small fields, read as encoding/json reads them.
			if s.peekKind() != kindObject {
				s.giveUp()
				break
			}
			var c ContextPolicy
			if json.Unmarshal(s.skipRaw(), &c) != nil {
				s.giveUp()
				break
			}
			h.Context = &c
		case "parent":
			h.Parent = s.quickString()
		case "parent_id":
			h.ParentID = s.quickString()
		case "agentloop":
			h.Agentloop = s.quickString()
		case "mcp_servers":
			s.skipA(kindArray)
		case "temperature":
			t := s.quickFloat()
			h.Temperature = &t
		case "max_tokens":
			h.MaxTokens = s.quickInt64()
		default:
			s.skip()
		}
	}
	s.end()
	return h, s.err == nil
}

// QuickEnd decodes an end record as encoding/json does.
func QuickEnd(line []byte) (e End, ok bool) {
	var s scanner
	s.reset(line)
	if !s.quickObject() {
		return e, false
	}
	var seen uint32
	for n := 0; s.next('}', &n); {
		switch s.quickKey(endKeys, &seen) {
		case "type":
			e.Type = s.quickString()
		case "time":
			s.quickTime(&e.Time)
		case "reason":
			e.Reason = s.quickString()
		case "error":
			e.Error = s.quickString()
		case "steps":
			e.Steps = s.quickInt()
		case "usage":
			s.quickUsage(&e.Usage)
		case "cost_usd":
			c := s.quickFloat()
			e.CostUSD = &c
		default:
			s.skip()
		}
	}
	s.end()
	return e, s.err == nil
}

// MessageLine is what a listing reads of a message record: its step, its
// message's role and text (the content as Text decodes it), and whether it
// carries the pictures of tool results (ImagesOf is not empty).
type MessageLine struct {
	Step   int
	Role   string
	Text   string
	Images bool
}

// IsPrompt reports whether the message is a question a person asked: a
// user message with text that does not carry the pictures of tool results
// (Chat Completions sends those in a user message of their own).
func (m MessageLine) IsPrompt() bool {
	return m.Role == "user" && m.Text != "" && !m.Images
}

// QuickMessage reads a message record's step, role, text and whether it
// names calls in images_of, as encoding/json does into a struct of those
// fields.
func QuickMessage(line []byte) (m MessageLine, ok bool) {
	var s scanner
	s.reset(line)
	if !s.quickObject() {
		return m, false
	}
	var seen uint32
	for n := 0; s.next('}', &n); {
		switch s.quickKey(messageKeys, &seen) {
		case "step":
			m.Step = s.quickInt()
		case "message":
			if !s.quickObject() {
				break
			}
			var seen uint32
			for n := 0; s.next('}', &n); {
				switch s.quickKey(wireKeys, &seen) {
				case "role":
					m.Role = s.quickString()
				case "content":
					m.Text = s.quickText()
				default:
					s.skip()
				}
			}
		case "images_of":
			m.Images = len(s.quickStrings()) > 0
		default:
			s.skip()
		}
	}
	s.end()
	return m, s.err == nil
}

// giveUp stops the scanner: the line is for encoding/json to decode.
func (s *scanner) giveUp() {
	if s.err == nil {
		s.errv = scanError{off: s.i, msg: "not read quickly"}
		s.err = &s.errv
		s.i = len(s.d)
	}
}

// skipA passes over a value that must be of kind k (one encoding/json
// would decode into the field); anything else gives up.
func (s *scanner) skipA(k byte) {
	if s.peekKind() != k {
		s.giveUp()
	}
	s.skip()
}

// quickObject enters the object at the cursor; anything else gives up.
func (s *scanner) quickObject() bool {
	if s.peekKind() != kindObject {
		s.giveUp()
		return false
	}
	return s.enter('{')
}

// quickKey reads a key and its colon and returns which of names it is, ""
// for a key the decode ignores. A key encoding/json could match to a name
// other than as written (it folds case, Unicode letters included, and
// decodes escapes first), or a name seen before (the last value would win),
// gives up.
func (s *scanner) quickKey(names []string, seen *uint32) string {
	if s.ws() != '"' {
		s.unexpected()
		return ""
	}
	raw, esc := s.str()
	if s.ws() != ':' {
		s.unexpected()
		return ""
	}
	s.i++
	if s.err != nil {
		return ""
	}
	for i, name := range names {
		if string(raw) == name && !esc {
			if *seen&(1<<i) != 0 {
				s.giveUp()
				return ""
			}
			*seen |= 1 << i
			return name
		}
	}
	if esc || !isASCII(raw) {
		s.giveUp()
		return ""
	}
	for _, name := range names {
		if bytes.EqualFold(raw, []byte(name)) {
			s.giveUp()
			return ""
		}
	}
	return ""
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// quickString reads a string value. Invalid UTF-8, which encoding/json
// would replace, gives up.
func (s *scanner) quickString() string {
	if s.peekKind() != kindString {
		s.giveUp()
		return ""
	}
	b, esc := s.str()
	if s.err != nil || !utf8.Valid(b) {
		s.giveUp()
		return ""
	}
	if esc {
		// Decoded into a buffer of its own size, not the arena, which
		// would be made for this one string.
		b = appendUnescaped(make([]byte, 0, len(b)), b)
	}
	return string(b)
}

// quickStrings reads an array of strings.
func (s *scanner) quickStrings() []string {
	if s.peekKind() != kindArray {
		s.giveUp()
		return nil
	}
	s.enter('[')
	out := []string{}
	for n := 0; s.next(']', &n); {
		out = append(out, s.quickString())
	}
	return out
}

// quickFloat reads a number as encoding/json reads one into a float64.
func (s *scanner) quickFloat() float64 {
	if s.peekKind() != kindNumber {
		s.giveUp()
		return 0
	}
	start := s.i
	s.number()
	if s.err != nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(s.d[start:s.i]), 64)
	if err != nil {
		s.giveUp()
		return 0
	}
	return f
}

// quickInt reads an integer written without a fraction or an exponent, of
// at most 18 digits (which fit an int on 64 bits); anything else gives up.
func (s *scanner) quickInt() int {
	n := s.quickInt64()
	if int64(int(n)) != n {
		s.giveUp()
		return 0
	}
	return int(n)
}

func (s *scanner) quickInt64() int64 {
	if s.peekKind() != kindNumber {
		s.giveUp()
		return 0
	}
	start := s.i
	s.number()
	if s.err != nil {
		return 0
	}
	digits, neg := s.d[start:s.i], false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) > 18 {
		s.giveUp()
		return 0
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			s.giveUp()
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n
}

// quickTime reads a time as time.Time's UnmarshalJSON does, from the string
// as written.
func (s *scanner) quickTime(t *time.Time) {
	if s.peekKind() != kindString {
		s.giveUp()
		return
	}
	start := s.i
	s.str()
	if s.err != nil {
		return
	}
	if t.UnmarshalJSON(s.d[start:s.i]) != nil {
		s.giveUp()
	}
}

func (s *scanner) quickUsage(u *Usage) {
	if !s.quickObject() {
		return
	}
	var seen uint32
	for n := 0; s.next('}', &n); {
		switch s.quickKey(usageKeys, &seen) {
		case "input_tokens":
			u.InputTokens = s.quickInt64()
		case "output_tokens":
			u.OutputTokens = s.quickInt64()
		case "cache_creation_input_tokens":
			u.CacheCreationInputTokens = s.quickInt64()
		case "cache_read_input_tokens":
			u.CacheReadInputTokens = s.quickInt64()
		case "reasoning_tokens":
			u.ReasoningTokens = s.quickInt64()
		default:
			s.skip()
		}
	}
}

// quickText reads a message's content as Text does: a string, or the text
// parts of an array; content of another kind has no text.
func (s *scanner) quickText() string {
	switch s.peekKind() {
	case kindString:
		return s.quickString()
	case kindArray:
	default:
		s.skip()
		return ""
	}
	s.enter('[')
	// Most content has one text part, which is the text as it is.
	var first string
	var text strings.Builder
	parts := 0
	for n := 0; s.next(']', &n); {
		if !s.quickObject() {
			return ""
		}
		var seen uint32
		var typ, part string
		for m := 0; s.next('}', &m); {
			switch s.quickKey(partKeys, &seen) {
			case "type":
				typ = s.quickString()
			case "text":
				part = s.quickString()
			default:
				s.skip()
			}
		}
		switch typ {
		case "text", "input_text", "output_text":
			switch parts++; parts {
			case 1:
				first = part
			case 2:
				text.WriteString(first)
				fallthrough
			default:
				text.WriteString(part)
			}
		}
	}
	if parts < 2 {
		return first
	}
	return text.String()
}
