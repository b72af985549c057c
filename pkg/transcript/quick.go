package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentloop/agentloop/pkg/transcript/internal/jsonscan"
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
		"tools", "system", "max_steps", "parallel", "max_total_tokens", "max_cost", "context", "parent", "parent_id", "agentloop", "mcp_servers", "temperature", "max_tokens",
		"traceparent", "tracestate", "batch_span", "answer_schema"}
	endKeys     = []string{"type", "time", "reason", "error", "steps", "usage", "cost_usd"}
	usageKeys   = []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "reasoning_tokens"}
	messageKeys = []string{"step", "message", "images_of"}
	wireKeys    = []string{"role", "content"}
	partKeys    = []string{"type", "text"}
)

// QuickHeader decodes a header line as encoding/json does, but for the tool
// definitions, the MCP servers, the system prompt and the answer schema,
// which it checks and skips (Tools, MCPServers and AnswerSchema are nil,
// System empty): a listing shows none
// of them, and they are most of a header.
func QuickHeader(line []byte) (h Header, ok bool) {
	var s quickScanner
	s.Reset(line)
	if !s.quickObject() {
		return h, false
	}
	var seen uint32
	for n := 0; s.Next('}', &n); {
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
			s.skipA(jsonscan.Array)
		case "system":
			s.skipA(jsonscan.String)
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
			if s.PeekKind() != jsonscan.Object {
				s.giveUp()
				break
			}
			var c ContextPolicy
			if json.Unmarshal(s.SkipRaw(), &c) != nil {
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
			s.skipA(jsonscan.Array)
		case "temperature":
			t := s.quickFloat()
			h.Temperature = &t
		case "max_tokens":
			h.MaxTokens = s.quickInt64()
		case "traceparent":
			h.TraceParent = s.quickString()
		case "tracestate":
			h.TraceState = s.quickString()
		case "batch_span":
			h.BatchSpan = s.quickString()
		case "answer_schema":
			s.skipA(jsonscan.Object)
		default:
			s.Skip()
		}
	}
	s.End()
	return h, s.Err() == nil
}

// QuickEnd decodes an end record as encoding/json does.
func QuickEnd(line []byte) (e End, ok bool) {
	var s quickScanner
	s.Reset(line)
	if !s.quickObject() {
		return e, false
	}
	var seen uint32
	for n := 0; s.Next('}', &n); {
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
			s.Skip()
		}
	}
	s.End()
	return e, s.Err() == nil
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
	var s quickScanner
	s.Reset(line)
	if !s.quickObject() {
		return m, false
	}
	var seen uint32
	for n := 0; s.Next('}', &n); {
		switch s.quickKey(messageKeys, &seen) {
		case "step":
			m.Step = s.quickInt()
		case "message":
			if !s.quickObject() {
				break
			}
			var seen uint32
			for n := 0; s.Next('}', &n); {
				switch s.quickKey(wireKeys, &seen) {
				case "role":
					m.Role = s.quickString()
				case "content":
					m.Text = s.quickText()
				default:
					s.Skip()
				}
			}
		case "images_of":
			m.Images = len(s.quickStrings()) > 0
		default:
			s.Skip()
		}
	}
	s.End()
	return m, s.Err() == nil
}

// quickScanner is the checker's scanner with what the quick decoders read.
type quickScanner struct{ jsonscan.Scanner }

// giveUp stops the scanner: the line is for encoding/json to decode.
func (s *quickScanner) giveUp() { s.Stop("not read quickly") }

// skipA passes over a value that must be of kind k (one encoding/json
// would decode into the field); anything else gives up.
func (s *quickScanner) skipA(k byte) {
	if s.PeekKind() != k {
		s.giveUp()
	}
	s.Skip()
}

// quickObject enters the object at the cursor; anything else gives up.
func (s *quickScanner) quickObject() bool {
	if s.PeekKind() != jsonscan.Object {
		s.giveUp()
		return false
	}
	return s.Enter('{')
}

// quickKey reads a key and its colon and returns which of names it is, ""
// for a key the decode ignores. A key encoding/json could match to a name
// other than as written (it folds case, Unicode letters included, and
// decodes escapes first), or a name seen before (the last value would win),
// gives up.
func (s *quickScanner) quickKey(names []string, seen *uint32) string {
	raw, esc := s.RawKey()
	if s.Err() != nil {
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
func (s *quickScanner) quickString() string {
	if s.PeekKind() != jsonscan.String {
		s.giveUp()
		return ""
	}
	b, esc := s.Str()
	if s.Err() != nil || !utf8.Valid(b) {
		s.giveUp()
		return ""
	}
	if esc {
		// Decoded into a buffer of its own size, not the arena, which
		// would be made for this one string.
		b = jsonscan.AppendUnescaped(make([]byte, 0, len(b)), b)
	}
	return string(b)
}

// quickStrings reads an array of strings.
func (s *quickScanner) quickStrings() []string {
	if s.PeekKind() != jsonscan.Array {
		s.giveUp()
		return nil
	}
	s.Enter('[')
	out := []string{}
	for n := 0; s.Next(']', &n); {
		out = append(out, s.quickString())
	}
	return out
}

// quickFloat reads a number as encoding/json reads one into a float64.
func (s *quickScanner) quickFloat() float64 {
	if s.PeekKind() != jsonscan.Number {
		s.giveUp()
		return 0
	}
	raw := s.Number()
	if s.Err() != nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		s.giveUp()
		return 0
	}
	return f
}

// quickInt reads an integer written without a fraction or an exponent, of
// at most 18 digits (which fit an int on 64 bits); anything else gives up.
func (s *quickScanner) quickInt() int {
	n := s.quickInt64()
	if int64(int(n)) != n {
		s.giveUp()
		return 0
	}
	return int(n)
}

func (s *quickScanner) quickInt64() int64 {
	if s.PeekKind() != jsonscan.Number {
		s.giveUp()
		return 0
	}
	digits, neg := s.Number(), false
	if s.Err() != nil {
		return 0
	}
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
func (s *quickScanner) quickTime(t *time.Time) {
	if s.PeekKind() != jsonscan.String {
		s.giveUp()
		return
	}
	raw := s.SkipRaw()
	if s.Err() != nil {
		return
	}
	if t.UnmarshalJSON(raw) != nil {
		s.giveUp()
	}
}

func (s *quickScanner) quickUsage(u *Usage) {
	if !s.quickObject() {
		return
	}
	var seen uint32
	for n := 0; s.Next('}', &n); {
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
			s.Skip()
		}
	}
}

// quickText reads a message's content as Text does: a string, or the text
// parts of an array; content of another kind has no text.
func (s *quickScanner) quickText() string {
	switch s.PeekKind() {
	case jsonscan.String:
		return s.quickString()
	case jsonscan.Array:
	default:
		s.Skip()
		return ""
	}
	s.Enter('[')
	// Most content has one text part, which is the text as it is.
	var first string
	var text strings.Builder
	parts := 0
	for n := 0; s.Next(']', &n); {
		if !s.quickObject() {
			return ""
		}
		var seen uint32
		var typ, part string
		for m := 0; s.Next('}', &m); {
			switch s.quickKey(partKeys, &seen) {
			case "type":
				typ = s.quickString()
			case "text":
				part = s.quickString()
			default:
				s.Skip()
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
