package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/pkg/transcript/internal/linereader"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Conversation is a whole recorded conversation in memory, read from an
// agentloop transcript, a JSONL file of bare messages, a JSONL file of
// conversations ({"messages":[…]} a line), or a JSON request body or array
// of messages.
type Conversation struct {
	// Format is "agentloop", "messages", "conversations" or "request".
	Format string
	// Line is the line a conversation of a conversations file is on.
	Line int
	// Header is nil for a log that has none.
	Header *Header
	// Messages are the message records; for a log without records they are
	// made up with Seq set and Step counted from the assistant messages.
	Messages []Message
	// Finished are the result records of calls of the last assistant
	// message that no message answers: calls that finished before the run
	// stopped, whose results are still to be sent and which are not to be
	// run again.
	Finished []CallResult
	// Results are every result record, in the order written: when each
	// call of a turn whose other calls still ran finished.
	Results []CallResult
	End     *End
	// Shape is the wire shape of the messages: "openai", "responses" (OpenAI
	// Responses input items) or "anthropic".
	Shape string
	// System is the system prompt of a request body, if any.
	System string
	// Model is the model a request body names, if any.
	Model string
	// Torn is set when the last line was cut off (the writer was killed);
	// it was left out.
	Torn *LineError

	// systemField is set for a request body with a top-level system field,
	// which only the Messages API has.
	systemField bool
}

// ReadConversations reads recorded conversations whole: one for every
// format but a conversations file, which holds one a line. A torn last line
// is skipped and reported in Torn; any other bad line is an error naming it.
func ReadConversations(r io.Reader) ([]*Conversation, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("empty file: no messages")
	}
	if (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed) && !isRecordOrMessage(trimmed) {
		if c, ok, err := readRequest(trimmed); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return []*Conversation{c}, nil
		}
	}
	return readLines(data)
}

// isRecordOrMessage reports whether a lone JSON object is one transcript
// record or one message rather than a request body.
func isRecordOrMessage(b []byte) bool {
	var probe struct {
		Type *string `json:"type"`
		Role *string `json:"role"`
	}
	return b[0] == '{' && json.Unmarshal(b, &probe) == nil && (probe.Type != nil || probe.Role != nil)
}

// readRequest reads a JSON request body or array of messages.
func readRequest(b []byte) (*Conversation, bool, error) {
	c := &Conversation{Format: "request"}
	var msgs []json.RawMessage
	if b[0] == '[' {
		if err := json.Unmarshal(b, &msgs); err != nil {
			return nil, true, fmt.Errorf("not an array of messages: %w", err)
		}
	} else {
		var body struct {
			Messages     []json.RawMessage `json:"messages"`
			System       json.RawMessage   `json:"system"`
			Input        json.RawMessage   `json:"input"`
			Instructions json.RawMessage   `json:"instructions"`
			Model        any               `json:"model"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			return nil, false, nil
		}
		if m, ok := body.Model.(string); ok {
			c.Model = m
		}
		switch {
		case body.Messages != nil:
			msgs = body.Messages
			c.System = systemText(body.System)
			c.systemField = len(body.System) > 0
		case isArray(body.Input):
			// A Responses request: its input items, its instructions.
			if err := json.Unmarshal(body.Input, &msgs); err != nil {
				return nil, true, fmt.Errorf("input is not an array of items: %w", err)
			}
			c.System = systemText(body.Instructions)
		default:
			// One record or one message alone on the only line: JSONL.
			return nil, false, nil
		}
	}
	if len(msgs) == 0 {
		// Nothing to replay or resume; callers count on a message.
		return nil, true, errors.New("no messages")
	}
	for i, m := range msgs {
		c.Messages = append(c.Messages, Message{Type: TypeMessage, Seq: i + 1, Message: m})
	}
	c.finish()
	return c, true, nil
}

// readLines reads an agentloop transcript, a JSONL file of messages or a
// JSONL file of conversations.
func readLines(data []byte) ([]*Conversation, error) {
	c := &Conversation{}
	var convs []*Conversation
	var answered []string // call ids answered since the last assistant message
	format, torn, err := eachLine(NewLineReader(bytes.NewReader(data)).Next, func(p Part) error {
		switch {
		case p.Conversation != nil:
			convs = append(convs, p.Conversation)
		case p.Header != nil:
			c.Header = p.Header
		case p.Message != nil:
			c.Messages = append(c.Messages, *p.Message)
			if r, ids := answeredIDs(p.Message.Message); r == "assistant" {
				c.Finished, answered = nil, nil
			} else {
				answered = append(answered, ids...)
			}
		case p.Result != nil:
			c.Finished = append(c.Finished, *p.Result)
			c.Results = append(c.Results, *p.Result)
		case p.End != nil:
			c.End = p.End
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if format == "conversations" {
		convs[len(convs)-1].Torn = torn
		return convs, nil
	}
	c.Format, c.Torn = format, torn
	c.Finished = slices.DeleteFunc(c.Finished, func(r CallResult) bool { return slices.Contains(answered, r.CallID) })
	c.finish()
	if torn != nil {
		c.dropTornTurn()
		if len(c.Messages) == 0 {
			return nil, nothingRead("no messages", torn)
		}
	}
	return []*Conversation{c}, nil
}

// Part is one piece of a recorded conversation, as ReadEach hands it over:
// a record of an agentloop transcript (a result record is a call that
// finished but is not answered by a message yet), a message of a JSONL file of
// messages, or a whole conversation (a request body, a line of a
// conversations file).
type Part struct {
	// Format is "agentloop", "messages", "conversations" or "request".
	Format string
	// Line is the line the part is on (0 for a request body).
	Line         int
	Header       *Header
	Message      *Message
	Result       *CallResult
	End          *End
	Conversation *Conversation
}

// ReadEach reads what ReadConversations reads, a part at a time and in
// file order, so that memory is bounded by the longest line rather than by
// the file (a request body, one JSON document, is read whole). The
// messages of a file of bare messages come numbered, with their steps
// counted; their wire shape is for the caller to tell (DetectShape). A
// torn last line is skipped and returned; any other bad line ends the
// reading with an error naming it, after the parts before it. An error fn
// returns ends it too.
func ReadEach(r io.Reader, fn func(Part) error) (torn *LineError, err error) {
	lr := NewLineReader(r)
	first, n, complete, err := nextNonBlank(lr)
	if err == io.EOF {
		return nil, errors.New("empty file: no messages")
	}
	if err != nil {
		return nil, err
	}
	first = bytes.Clone(first)
	// One JSON document, perhaps over several lines: read it whole.
	whole := func(lines ...[]byte) (*LineError, error) {
		rest, err := io.ReadAll(lr.Rest())
		if err != nil {
			return nil, err
		}
		// Blank lines before it keep the line numbers of errors right.
		doc := append(bytes.Repeat([]byte("\n"), n-1), bytes.Join(lines, []byte("\n"))...)
		convs, err := ReadConversations(bytes.NewReader(append(doc, rest...)))
		if err != nil {
			return nil, err
		}
		for _, c := range convs {
			if err := fn(Part{Format: c.Format, Line: c.Line, Conversation: c}); err != nil {
				return nil, err
			}
		}
		return convs[len(convs)-1].Torn, nil
	}
	if first[0] == '[' || !json.Valid(first) {
		return whole(first, nil)
	}
	lines := [][]byte{first}
	nums := []int{n}
	completes := []bool{complete}
	if !isRecordOrMessage(first) {
		// A request body on one line, or the first line of a file of
		// conversations: the next line tells.
		second, n2, complete2, err := nextNonBlank(lr)
		if err == io.EOF {
			if complete {
				// The line's newline: it was whole, not cut short.
				return whole(first, nil)
			}
			return whole(first)
		}
		if err != nil {
			return nil, err
		}
		lines, nums, completes = append(lines, second), append(nums, n2), append(completes, complete2)
	}
	next := func() ([]byte, int, bool, error) {
		if len(lines) > 0 {
			text, n, c := lines[0], nums[0], completes[0]
			lines, nums, completes = lines[1:], nums[1:], completes[1:]
			return text, n, c, nil
		}
		return lr.Next()
	}
	_, torn, err = eachLine(next, fn)
	return torn, err
}

// nextNonBlank is the next line that holds something.
func nextNonBlank(lr *LineReader) ([]byte, int, bool, error) {
	for {
		text, n, complete, err := lr.Next()
		if err != nil || len(bytes.TrimSpace(text)) > 0 {
			return bytes.TrimSpace(text), n, complete, err
		}
	}
}

// eachLine reads the lines next returns as an agentloop transcript, a
// JSONL file of messages or a JSONL file of conversations, handing each
// part to fn, and says which of the three it was.
func eachLine(next func() ([]byte, int, bool, error), fn func(Part) error) (format string, torn *LineError, err error) {
	messages, convs, step := 0, 0, 0
	seenHeader, inTurn := false, false
	for {
		text, n, complete, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, err
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		lineErr := func(err error) error {
			if !complete && linereader.MayBeTorn(text) {
				torn = &LineError{Line: n, Torn: true, Err: err}
				return nil
			}
			return &LineError{Line: n, Err: err}
		}
		setFormat := func(f string) error {
			if format != "" && format != f {
				return &LineError{Line: n, Err: fmt.Errorf("a %s line in a file of %s", strings.TrimSuffix(f, "s"), format)}
			}
			format = f
			return nil
		}
		var probe struct {
			Type  *string         `json:"type"`
			Role  *string         `json:"role"`
			Msgs  json.RawMessage `json:"messages"`
			Input json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(text, &probe); err != nil {
			if e := lineErr(probeError(err)); e != nil {
				return "", nil, e
			}
			continue
		}
		var part Part
		switch {
		case probe.Type != nil && probe.Role == nil && (isRecordType(*probe.Type) || format == "agentloop"):
			if err := setFormat("agentloop"); err != nil {
				return "", nil, err
			}
			rec, err := decodeRecord(text)
			if err != nil {
				if e := lineErr(err); e != nil {
					return "", nil, e
				}
				continue
			}
			if rec.Header != nil {
				if seenHeader {
					return "", nil, &LineError{Line: n, Err: errors.New("a second header")}
				}
				seenHeader = true
			}
			if rec.Message != nil {
				messages++
			}
			part = Part{Header: rec.Header, Message: rec.Message, Result: rec.Result, End: rec.End}
		case probe.Role != nil || (probe.Type != nil && len(probe.Msgs) == 0 && !isArray(probe.Input)):
			// A message, or a Responses item (function_call, reasoning, …).
			if err := setFormat("messages"); err != nil {
				return "", nil, err
			}
			messages++
			// A step is an assistant message, or a run of output items.
			output := probe.Role != nil && *probe.Role == "assistant" ||
				probe.Role == nil && !strings.HasSuffix(*probe.Type, "_output")
			if output && !(inTurn && probe.Role == nil) {
				step++
			}
			inTurn = output
			part = Part{Message: &Message{Type: TypeMessage, Seq: messages, Step: step, Message: bytes.Clone(text)}}
		case len(probe.Msgs) > 0 || isArray(probe.Input):
			if err := setFormat("conversations"); err != nil {
				return "", nil, err
			}
			one, _, err := readRequest(text)
			if err != nil {
				if e := lineErr(err); e != nil {
					return "", nil, e
				}
				continue
			}
			one.Format, one.Line = "conversations", n
			convs++
			part = Part{Conversation: one}
		default:
			if e := lineErr(errors.New(`neither a transcript record ("type"), a message ("role") nor a conversation ("messages")`)); e != nil {
				return "", nil, e
			}
			continue
		}
		part.Format, part.Line = format, n
		if err := fn(part); err != nil {
			return "", nil, err
		}
	}
	// With nothing else read, a torn last line is why: say what it was.
	switch {
	case format == "conversations" && convs == 0:
		return "", nil, nothingRead("no conversations", torn)
	case format != "conversations" && messages == 0:
		return "", nil, nothingRead("no messages", torn)
	}
	return format, torn, nil
}

// dropTornTurn leaves out the start of a turn whose last record was torn.
// The loop writes a Responses turn's items in one write, its usage and
// finish reason on the last: items of the last step without one are what
// is left of a turn cut short, which no API would take back on its own (a
// reasoning item without the item it came with).
func (c *Conversation) dropTornTurn() {
	if c.Format != "agentloop" || wire.Shape(c.Shape) != wire.Responses {
		return
	}
	n := len(c.Messages)
	i := n
	for i > 0 {
		m := &c.Messages[i-1]
		var it struct {
			Role string `json:"role"`
			Type string `json:"type"`
		}
		_ = json.Unmarshal(m.Message, &it)
		output := it.Role == "assistant" || (it.Role == "" && it.Type != "" && !strings.HasSuffix(it.Type, "_output"))
		if !output || m.FinishReason != "" || m.Usage != nil || m.Step != c.Messages[n-1].Step {
			break
		}
		i--
	}
	c.Messages = c.Messages[:i]
}

// answeredIDs reads a message's role and the call ids it answers: an
// OpenAI tool message's tool_call_id, a Responses output item's call_id, or
// the tool_use_id of an Anthropic user message's tool_result blocks. A
// Responses item the model wrote counts as an assistant message.
func answeredIDs(msg json.RawMessage) (string, []string) {
	var m struct {
		Role       string          `json:"role"`
		Type       string          `json:"type"`
		ToolCallID string          `json:"tool_call_id"`
		CallID     string          `json:"call_id"`
		Content    json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return "", nil
	}
	switch {
	case m.Role == "tool":
		return m.Role, []string{m.ToolCallID}
	case m.Role == "" && strings.HasSuffix(m.Type, "_output"):
		return "tool", []string{m.CallID}
	case m.Role == "" && m.Type != "":
		return "assistant", nil
	}
	var blocks []struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
	}
	if len(m.Content) == 0 || m.Content[0] != '[' || json.Unmarshal(m.Content, &blocks) != nil {
		return m.Role, nil
	}
	var ids []string
	for _, b := range blocks {
		if b.Type == "tool_result" {
			ids = append(ids, b.ToolUseID)
		}
	}
	return m.Role, ids
}

func nothingRead(what string, torn *LineError) error {
	if torn != nil {
		return fmt.Errorf("%s: %w", what, torn)
	}
	return errors.New(what)
}

// finish fills in the shape and, for logs without records, the steps.
func (c *Conversation) finish() {
	switch {
	case c.Header != nil && wire.Shape(c.Header.Provider).Known():
		c.Shape = c.Header.Provider
	default:
		c.Shape = DetectShape(c.Messages)
		if wire.Shape(c.Shape) == wire.Chat && c.systemField && !hasOpenAISigns(c.Messages) {
			c.Shape = string(wire.Messages)
		}
	}
	if c.Format == "agentloop" {
		return
	}
	// A step is an assistant message; in the Responses shape, a run of
	// output items.
	step, inTurn := 0, false
	for i := range c.Messages {
		var m struct {
			Role string `json:"role"`
			Type string `json:"type"`
		}
		_ = json.Unmarshal(c.Messages[i].Message, &m)
		responses := wire.Shape(c.Shape) == wire.Responses
		output := m.Role == "assistant" || (responses && m.Role == "" && m.Type != "" && !strings.HasSuffix(m.Type, "_output"))
		if output && (!inTurn || !responses) {
			step++
		}
		inTurn = output
		c.Messages[i].Step = step
	}
}

// isRecordType reports whether a line's type is an agentloop record's
// rather than a Responses item's (in a file of records, any other type is
// a bad record).
func isRecordType(t string) bool {
	return t == TypeHeader || t == TypeMessage || t == TypeResult || t == TypeEnd
}

func isArray(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '['
}

// hasOpenAISigns reports whether any message is unmistakably Chat
// Completions: tool calls, a tool message, or a system message.
func hasOpenAISigns(msgs []Message) bool {
	for _, m := range msgs {
		var probe struct {
			Role      string          `json:"role"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		}
		if json.Unmarshal(m.Message, &probe) == nil && (len(probe.ToolCalls) > 0 || probe.Role == "tool" || probe.Role == "system" || probe.Role == "developer") {
			return true
		}
	}
	return false
}

// DetectShape tells the wire shape of messages by the first message that
// shows one: "openai" for tool_calls, a tool_call_id or the tool role,
// "responses" for a Responses item (one with a type and no role, or a
// message with input_text or output_text parts), "anthropic" for a content
// block of a type only the
// Messages API has (see anthropicBlock); "openai" when no message shows
// any.
func DetectShape(msgs []Message) string {
	for _, m := range msgs {
		var probe struct {
			Role       string            `json:"role"`
			Type       string            `json:"type"`
			ToolCalls  json.RawMessage   `json:"tool_calls"`
			ToolCallID json.RawMessage   `json:"tool_call_id"`
			Content    []json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Message, &probe) != nil {
			continue
		}
		if len(probe.ToolCalls) > 0 || len(probe.ToolCallID) > 0 || probe.Role == "tool" {
			return string(wire.Chat)
		}
		if probe.Type != "" && probe.Role == "" {
			// An item that is not a message: function_call, reasoning, …
			return string(wire.Responses)
		}
		for _, b := range probe.Content {
			var blk struct {
				Type string `json:"type"`
			}
			if json.Unmarshal(b, &blk) != nil {
				continue
			}
			switch {
			case anthropicBlock(blk.Type):
				return string(wire.Messages)
			case blk.Type == "input_text" || blk.Type == "output_text":
				return string(wire.Responses)
			}
		}
	}
	return string(wire.Chat)
}

// anthropicBlock reports whether a content block type exists only in the
// Messages API (OpenAI content parts are text, image_url, input_audio,
// file and refusal).
func anthropicBlock(typ string) bool {
	switch typ {
	case "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use",
		"document", "image", "search_result", "container_upload":
		return true
	}
	return strings.HasSuffix(typ, "_tool_result")
}

func systemText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b bytes.Buffer
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}
