package check

import (
	"bytes"
	"fmt"
	"strconv"
)

// Request bodies, and the other JSON objects that hold a conversation's
// messages under a key: a line of JSONL (ConversationLine), or a whole-file
// document streamed a value at a time (Document). Both walk the keys in
// order, note each in a Doc and end with applyDoc, so that a body gets the
// same findings either way.

// MessageLine checks one line of a JSONL file of bare messages: all of the
// file's lines are one conversation.
func (v *File) MessageLine(text []byte, n int, complete bool) {
	s := &v.sc
	s.Reset(text)
	if v.conv.v == nil {
		v.startConv(n, ConvTranscript, "")
		v.conv.passOver = true
	}
	m := &v.msg
	m.reset(n, v.conv.n)
	isObj := s.PeekKind() == KindObject
	s.ReadMsg(m)
	s.End()
	if s.failed() {
		v.notJSON(text, n, complete)
		return
	}
	if !isObj {
		v.conv.report(n, m.index, "invalid-message", nil, "line is %s, not a message object", KindName(KindOf(bytes.TrimSpace(text)[0])))
		return
	}
	v.conv.add(m)
}

// EndConv ends the file's conversation, if it has had a message.
func (v *File) EndConv() {
	if v.conv.v != nil && v.conv.n > 0 {
		v.conv.finish()
	}
}

// Doc is what a request body (or a conversation line, or another JSON
// document holding a conversation) says outside its messages and tools.
type Doc struct {
	array     string // the key whose array holds the messages: messages, traj or input; "" while none has
	notArray  string // messages or traj, when its value is not an array
	notArrayK byte   // the kind of that value
	input     byte   // the kind of "input"; KindAbsent if absent
	contents  bool   // a Gemini "contents"
	model     bool   // a request rather than a fine-tuning record
	previous  bool   // previous_response_id or conversation: the server holds earlier items
	stateless bool   // store false: the server keeps no item
	system    bool   // a top-level system: the Anthropic shape
	thinking  bool   // thinking enabled (read by thinkingEnabled)
	// toolConfig: a Bedrock Converse request's tool configuration.
	toolConfig bool
	// Other: the document is a log holding conversations of its own
	// (Inspect AI samples, HAR entries), not one itself.
	Other bool
}

// Messages reports whether an array of the document held its messages.
func (d *Doc) Messages() bool { return d.array != "" }

// note records what a top-level key whose value is of kind k says.
func (d *Doc) note(key string, k byte) {
	switch key {
	case "messages", "traj", "contents":
		if k != KindArray && d.notArray == "" {
			d.notArray, d.notArrayK = key, k
		}
		d.contents = d.contents || key == "contents"
	case "input":
		d.input = k
	case "model", "generationConfig", "generation_config", "tool_config",
		"modelId", "inferenceConfig", "additionalModelRequestFields":
		// Gemini's and Bedrock Converse's bodies name the model in the
		// URL: their request-only keys say a request (boto3 logs a
		// Converse request's modelId among its parameters).
		d.model = true
	case "toolConfig":
		// Gemini's function calling mode, or Bedrock Converse's tools.
		d.model = true
		d.toolConfig = k == KindObject
	case "system":
		d.system = true
	case "previous_response_id", "conversation":
		d.previous = k != KindNull
	}
}

// noteStore records a top-level "store" whose value is at the scanner's
// cursor: only false makes the request stateless (the API's default is
// true).
func (d *Doc) noteStore(s *scanner) {
	if s.PeekKind() == KindBool {
		d.stateless = !s.Bool()
		return
	}
	d.stateless = false
	s.Skip()
}

// bodyArrays are the keys whose first array holds a request body's
// messages: messages, traj (tau-bench trajectories), history (SWE-agent
// trajectories, Gemini chat histories), input (Responses items) or contents
// (Gemini), whichever comes first.
var bodyArrays = []string{"messages", "traj", "history", "input", "contents"}

// takeArray reports whether the value of key, of kind k, holds the
// conversation's messages: the first array under one of arrays. If so it
// tells the conversation, which names its messages after the key.
func (d *Doc) takeArray(c *conv, arrays []string, key string, k byte) bool {
	if d.array != "" || d.Other || k != KindArray {
		return false
	}
	found := false
	for _, a := range arrays {
		found = found || a == key
	}
	if !found {
		return false
	}
	d.array = key
	c.array = key
	switch {
	case key == "contents":
		// Gemini's: no other shape has them, whatever --shape says.
		c.shape = shapeGemini
	case c.shape != shapeUnknown:
	case key == "input":
		c.shape = shapeResponses
	}
	return true
}

// applyDoc applies what a body's keys said, once all are read (the messages
// are checked by then), and ends its conversation. What it sets is first
// needed there; until then, findings that depend on it wait (see
// responsesOutput, checkCallName).
func (v *File) applyDoc(d *Doc, r *DocReader) {
	c := &v.conv
	if r != nil && r.End != nil {
		r.End(v, d)
	}
	if d.Other {
		// Its conversations were checked as they came; the object itself
		// was not one.
		v.stats.Conversations--
		return
	}
	if d.model || v.bodyOf != "" || r != nil && r.Request {
		// A recorded body was sent.
		c.kind = ConvRequest
	}
	c.previousResponse = d.previous
	c.stateless = d.stateless
	if d.thinking {
		c.thinkingOn = shapeAnthropic
	}
	if d.system && c.hint == shapeUnknown {
		c.hint = shapeAnthropic
	}
	switch {
	case d.array != "":
	case d.notArray != "":
		c.report(c.start, -1, "invalid-message", nil, "%s is %s; want an array", d.notArray, KindName(d.notArrayK))
	case d.input != KindAbsent:
		// A plain prompt string: one message, nothing to pair.
		v.stats.Messages++
	case r != nil && r.Name != "" && v.bodyOf == "":
		// A log of its own, without the keys that hold its conversations:
		// not a conversation.
		v.stats.Conversations--
		if v.opts.Input != "" {
			v.fileFinding(c.start, Error, "not-a-conversation", "object is not what --input %s reads (%s)", v.opts.Input, v.Describe(r.Name))
		} else {
			v.fileFinding(c.start, Error, "not-a-conversation", "object is not a %s", v.Describe(r.Name))
		}
	default:
		v.stats.Conversations--
		v.fileFinding(c.start, Error, "not-a-conversation", "object has no messages array")
	}
	c.bedrockBody(d)
	c.finish()
}

// startDoc starts the conversation of a request body whose first line is
// line.
func (v *File) startDoc(line int) {
	v.startConv(line, ConvFineTune, "")
	// A body's tools may follow its messages: calls to tools not yet
	// defined are judged at the end.
	v.conv.toolsMayFollow = true
}

// ConversationLine checks one {"messages": […]} line (a request body, a
// fine-tuning record): its own conversation. A line that wraps a request
// body (an OpenAI Batch API input line's "body", a traffic record's
// "request" beside its "status") has the body checked, named after its
// key.
func (v *File) ConversationLine(text []byte, n int, complete bool) {
	s := &v.sc
	s.Reset(text)
	isObj := s.PeekKind() == KindObject
	s.Skip()
	s.End()
	if s.failed() {
		v.notJSON(text, n, complete)
		return
	}
	if !isObj {
		v.fileFinding(n, Error, "not-a-conversation", "line is %s; want an object with messages", KindName(KindOf(bytes.TrimSpace(text)[0])))
		return
	}
	v.startDoc(n)
	c := &v.conv
	var d Doc
	var wrapped struct {
		key    string // request or body
		body   []byte
		status int
	}
	s.Reset(text)
	s.Enter('{')
	for i := 0; s.Next('}', &i); {
		key := string(s.Key())
		k := s.PeekKind()
		d.note(key, k)
		switch {
		case (key == "request" || key == "body") && k == KindObject && v.bodyOf == "" && wrapped.body == nil:
			// A request body recorded with what became of it: an
			// OpenAI Batch API input line ({"custom_id", "method",
			// "url", "body"}), a traffic record ({"request", "status"}).
			bad, sur := s.BadText()
			wrapped.key, wrapped.body = key, s.SkipRaw()
			// Text the body holds is CheckBody's to report, at its message.
			s.SetBadText(bad, sur)
		case key == "status" && k == KindNumber:
			wrapped.status, _ = strconv.Atoi(string(s.SkipRaw()))
		case d.takeArray(c, bodyArrays, key, k):
			s.Enter('[')
			for j := 0; s.Next(']', &j); {
				v.DocMessage(n, j-1)
			}
		case key == "tools" && k == KindArray:
			c.setTools(v.readTools(n))
		case key == "toolConfig" && k == KindObject:
			v.readToolConfig(n)
		case key == "thinking":
			d.thinking = thinkingEnabled(s)
		case key == "store":
			d.noteStore(s)
		default:
			s.Skip()
		}
	}
	v.badText(n)
	if d.array == "" && !d.contents && d.input == KindAbsent && wrapped.body != nil && !s.failed() {
		// Not a conversation itself: the body it holds is checked, named
		// after its key, with the status beside each finding.
		v.stats.Conversations--
		v.CheckBody(wrapped.key, wrapped.body, n, wrapped.status)
		return
	}
	v.applyDoc(&d, nil)
}

// BadText reports text that is not UTF-8 the scanner met outside the
// messages of the document it holds, which starts at line; see badText.
func (v *File) BadText(line int) { v.badText(line) }

// badText reports text that is not UTF-8 which the scanner met outside the
// messages of the document it holds (in its tools, its system prompt), the
// document starting at line; ReadMsg takes what is inside a message to the
// message.
func (v *File) badText(line int) {
	s := &v.sc
	at, sur := s.BadText()
	if at < 0 || s.failed() {
		return
	}
	d := s.Data()
	v.fileFinding(line+bytes.Count(d[:at], []byte{'\n'}), Error, "invalid-utf8", "outside the messages, %s",
		BadTextMessage(d[at:min(at+12, len(d))], sur))
	s.SetBadText(-1, false)
}

// DocMessage checks the message at the scanner's cursor, element i of an
// array of messages (a body's, a whole-file array, a log's) on line.
func (v *File) DocMessage(line, i int) {
	s := &v.sc
	m := &v.msg
	m.reset(line, i)
	if s.PeekKind() != KindObject {
		s.Skip()
		if !s.failed() {
			v.conv.report(line, i, "invalid-message", nil, "message is not an object")
		}
		return
	}
	s.ReadMsg(m)
	if !s.failed() {
		v.conv.add(m)
	}
}

// declName reads a Gemini function declaration and returns its name, nil
// when it has none.
func (v *File) declName() []byte {
	s := &v.sc
	if s.PeekKind() != KindObject {
		s.Skip()
		return nil
	}
	var name []byte
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		if string(s.Key()) == "name" && s.PeekKind() == KindString {
			name = s.Text()
			continue
		}
		s.Skip()
	}
	return name
}

// thinkingEnabled reads a request's "thinking" setting.
func thinkingEnabled(s *scanner) bool {
	if s.PeekKind() != KindObject {
		s.Skip()
		return false
	}
	on := false
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		if string(s.Key()) == "type" && s.PeekKind() == KindString {
			t := string(s.Text())
			// Adaptive thinking may skip a turn; only "enabled" makes
			// the API want a thinking block first (see checkThinking).
			on = t == "enabled"
			continue
		}
		s.Skip()
	}
	return on
}

// toolNames returns the set that the names of one tools array are read
// into, empty. There is one, reused by the next tools array: conv.setTools
// copies what it keeps.
func (v *File) toolNames() map[string]struct{} {
	if v.tmpNames == nil {
		v.tmpNames = make(map[string]struct{})
	}
	clear(v.tmpNames)
	return v.tmpNames
}

// ReadTools reads the tools array at the scanner's cursor, on line,
// checking each name, and returns the names (valid until the next call).
func (v *File) ReadTools(line int) map[string]struct{} { return v.readTools(line) }

func (v *File) readTools(line int) map[string]struct{} {
	names := v.toolNames()
	s := &v.sc
	if s.PeekKind() != KindArray {
		s.Skip()
		return names
	}
	s.Enter('[')
	for i := 0; s.Next(']', &i); {
		v.readTool(line, i-1, names)
	}
	return names
}

// readToolConfig reads a toolConfig at the scanner's cursor, on line, into
// the conversation's tools when it is Bedrock Converse's, which lists them
// ({"tools": [{"toolSpec": {"name"…}}]}); Gemini's (its function calling
// mode) says nothing of them.
func (v *File) readToolConfig(line int) {
	s := &v.sc
	names := v.toolNames()
	found := false
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		if string(s.Key()) == "tools" && s.PeekKind() == KindArray {
			found = true
			s.Enter('[')
			for i := 0; s.Next(']', &i); {
				v.readTool(line, i-1, names)
			}
			continue
		}
		s.Skip()
	}
	if found {
		v.conv.setTools(names)
	}
}

func (v *File) readTool(line, i int, names map[string]struct{}) {
	s := &v.sc
	if s.PeekKind() != KindObject {
		s.Skip()
		return
	}
	var name []byte
	has := false
	s.Enter('{')
	for n := 0; s.Next('}', &n); {
		switch string(s.Key()) {
		case "name":
			if s.PeekKind() == KindString {
				name, has = s.Text(), true
				continue
			}
		case "functionDeclarations", "function_declarations":
			// A Gemini tool: the functions it declares.
			if s.PeekKind() == KindArray {
				s.Enter('[')
				for n2 := 0; s.Next(']', &n2); {
					if fn := v.declName(); fn != nil {
						names[string(fn)] = struct{}{}
					}
				}
				continue
			}
		case "function", "custom", "toolSpec":
			if s.PeekKind() == KindObject {
				s.Enter('{')
				for n2 := 0; s.Next('}', &n2); {
					if string(s.Key()) == "name" && s.PeekKind() == KindString {
						name, has = s.Text(), true
						continue
					}
					s.Skip()
				}
				continue
			}
		}
		s.Skip()
	}
	if !has || s.failed() {
		return
	}
	if !validName(name, 64) {
		v.Emit(Finding{File: v.name, Line: line, Index: -1, Path: fmt.Sprintf("tools[%d]", i), Severity: Error,
			Code: "invalid-tool-name", Message: fmt.Sprintf("tool name %q does not match ^[a-zA-Z0-9_-]{1,64}$", name)})
	}
	names[string(name)] = struct{}{}
}
