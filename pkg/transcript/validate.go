package transcript

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ToolChecker knows the tools a run may call. The checker asks it about
// every call when tool definitions are at hand (agentloop validate
// --tools-dir); *tools.Registry implements it.
type ToolChecker interface {
	Has(name string) bool
	// CheckArgs validates a call's arguments, given as a JSON document,
	// against the tool's schema.
	CheckArgs(name string, args []byte) error
}

// Input formats.
const (
	InputAgentloop     = "agentloop"     // agentloop transcript: header, message and end records
	InputMessages      = "messages"      // JSONL, one message a line: one conversation
	InputConversations = "conversations" // JSONL, one {"messages": […]} (or request body) a line
	InputRequest       = "request"       // one JSON request body, or an array of messages, for the whole file
	InputClaudeCode    = "claude-code"   // Claude Code session log: a tree of user and assistant lines
	InputCodex         = "codex"         // Codex CLI rollout: Responses items under response_item lines
	InputInspect       = "inspect"       // Inspect AI eval log (.json): samples[].messages
	InputSWEAgent      = "swe-agent"     // SWE-agent trajectory (.traj): history
	InputVCR           = "vcr"           // VCR cassette (vcrpy, go-vcr YAML): the request bodies recorded
	InputHAR           = "har"           // HTTP Archive: the request bodies recorded
)

// Inputs are the input formats, in the order help and errors list them.
var Inputs = []string{InputAgentloop, InputMessages, InputConversations, InputRequest, InputClaudeCode,
	InputCodex, InputInspect, InputSWEAgent, InputVCR, InputHAR}

// Options say how to read and judge the input. The zero value detects the
// input format and the shape of each conversation.
type Options struct {
	// Input forces the input format (one of the Input constants); "" detects it.
	Input string
	// Shape forces the shape of every conversation: "openai" or "anthropic";
	// "" detects it per conversation.
	Shape string
	// Strict reports warnings as errors.
	Strict bool
	// AllowPending accepts a conversation that ends with calls not yet
	// answered (a run in progress).
	AllowPending bool
	// Tools, when set, must define every tool called, and validates the
	// arguments of each call.
	Tools ToolChecker
	// MaxLine is the longest line, or value of a streamed document, held
	// in memory; a longer one is reported (line-too-long) and passed over.
	// 0 holds any length.
	MaxLine int
}

// Finding is one problem found.
type Finding struct {
	File string `json:"file"`
	// Line is the 1-based line the finding is about; 0 when it is about the
	// file as a whole.
	Line int `json:"line"`
	// Index is the 0-based position of the message in its conversation, or
	// -1 when the finding is not about one message.
	Index int `json:"index"`
	// Path locates the message inside a JSON document ("messages[3]",
	// "input[2]") when a line or file holds many; empty otherwise.
	Path     string   `json:"path,omitempty"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// IDs are the tool call ids involved, if any.
	IDs []string `json:"ids,omitempty"`
	// Status is the HTTP status recorded for the request the finding is
	// about (cassettes, HAR files); 0 when none was.
	Status int `json:"status,omitempty"`
}

// Confirmed reports whether the API refused the request the finding is
// about: an error on a body that was answered with a 400.
func (f Finding) Confirmed() bool { return f.Severity == Error && f.Status == 400 }

// String formats the finding like a compiler message:
// "file:line: error: messages[3]: message [code]".
func (f Finding) String() string {
	loc := f.File
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	where := ""
	if f.Path != "" {
		where = f.Path + ": "
	}
	s := fmt.Sprintf("%s: %s: %s%s [%s]", loc, f.Severity, where, f.Message, f.Code)
	switch {
	case f.Confirmed():
		s += " (recorded response 400: confirmed)"
	case f.Status != 0:
		s += fmt.Sprintf(" (recorded response %d)", f.Status)
	}
	return s
}

// Stats count what was checked.
type Stats struct {
	Files         int `json:"files"`
	Conversations int `json:"conversations"`
	Messages      int `json:"messages"`
	ToolCalls     int `json:"tool_calls"`
	Errors        int `json:"errors"`
	Warnings      int `json:"warnings"`
	// Format is what one file was read as: an input format, qualified by
	// the shape of its messages where the format has none of its own
	// ("openai-messages", "anthropic-request"). Add leaves it out of totals.
	Format string `json:"format,omitempty"`
}

// Add adds the counts of o to s.
func (s *Stats) Add(o Stats) {
	s.Files += o.Files
	s.Conversations += o.Conversations
	s.Messages += o.Messages
	s.ToolCalls += o.ToolCalls
	s.Errors += o.Errors
	s.Warnings += o.Warnings
}

// Validate checks the transcript or message log read from r, named name in
// findings, and calls emit for each finding. The error is non-nil only when
// r cannot be read or opts are invalid; what is wrong with the content is
// reported through emit.
//
// Findings come in file order, but for those that wait on what follows,
// which come once it is read, still with the line they are about: calls a
// merged Anthropic user turn leaves unanswered, at the end of the turn; and
// at the end of a conversation or request body, a last assistant message
// without its thinking block, Responses outputs that previous_response_id
// might account for, Responses reasoning items without their ciphertext
// (which matter only if store is false), and calls to tools that a later
// tools list might define.
//
// Memory is the largest line (or, for a whole-file JSON document, the
// largest message), plus what the current conversation has seen: the calls
// of its last turn, and every call id it has used, to find reused ids (and,
// for OpenAI Responses items, one id per reasoning item). The
// ids grow with the number of calls, by 30 to 40 bytes of heap a call
// (5.5 MiB for the 200,000 calls of a 1 GB agentloop transcript, 73 MiB for
// 2 million); see conv.ids for why they are kept exactly.
func Validate(name string, r io.Reader, opts Options, emit func(Finding)) (Stats, error) {
	return ValidateContext(context.Background(), name, r, opts, emit)
}

// ValidateContext is Validate that stops, returning ctx's error, when ctx
// is done. A read that blocks (a FIFO, a terminal) is not interrupted: a
// caller that must stop at once stops waiting for it.
func ValidateContext(ctx context.Context, name string, r io.Reader, opts Options, emit func(Finding)) (Stats, error) {
	if opts.Input != "" && !slices.Contains(Inputs, opts.Input) {
		return Stats{}, fmt.Errorf("unknown input format %q (want %s)", opts.Input, strings.Join(Inputs, ", "))
	}
	switch opts.Shape {
	case "", "openai", "anthropic":
	default:
		return Stats{}, fmt.Errorf("unknown shape %q (want openai or anthropic)", opts.Shape)
	}
	if emit == nil {
		emit = func(Finding) {}
	}
	v := &validator{name: name, opts: opts, emit: emit, seed: maphash.MakeSeed(), ctx: ctx, done: ctx.Done()}
	v.stats.Files = 1
	err := v.run(r)
	v.stats.Format = v.label()
	return v.stats, err
}

// lineKind is the format of a JSONL file.
type lineKind int

const (
	linesUnknown lineKind = iota
	linesAgentloop
	linesMessages
	linesConversations
	linesClaudeCode
	linesCodex
)

type validator struct {
	gunzipped, fromUTF16 bool // the input was undone from gzip, from UTF-16 (encoding.go)

	name  string
	opts  Options
	emit  func(Finding)
	seed  maphash.Seed
	stats Stats
	ctx   context.Context
	done  <-chan struct{}
	// hold, when set, collects findings instead of emitting them.
	hold *[]Finding

	format string // the input format, once known
	shapes uint8  // the shapes of the conversations checked, a bit each
	noConv string // why nothing was checked, when it is known
	// unknownType is the type of the first object passed over as neither
	// a message nor a Responses item (conv.unknownItem).
	unknownType string
	stopped     bool   // the file was given up (binary data): nothing more is said
	bodyOf      string // for bodies recorded in cassettes and HAR files: the interaction ("interactions[2]")
	status      int    // and the status of its recorded response
	bodyBuf     []byte
	bodySc      scanner // reads recorded bodies while sc holds what they were found in
	recorded    int     // interactions or entries of a recording
	bodies      int     // of those, the request bodies checked
	ccs         *ccState

	sc   scanner
	sub  scanner // for documents inside strings: arguments
	msg  wireMsg
	conv conv

	kind lineKind

	// agentloop records.
	records    int
	headerLine int // line of the header record; 0 before it
	ended      bool
	endReason  string // the end record's reason
	lastSeq    int64
	resultIDs  [][]byte
	gotIDs     [][]byte
	tmpNames   map[string]struct{} // see toolNames
	// fields and resultProblems hold a record's fields to type-check.
	fields         []rawField
	resultProblems []string
	clearing       clearedCheck
}

func (v *validator) emitFinding(f Finding) {
	if v.hold != nil {
		*v.hold = append(*v.hold, f)
		return
	}
	if v.bodyOf != "" {
		if f.Path == "" {
			f.Path = v.bodyOf
		} else {
			f.Path = v.bodyOf + " " + f.Path
		}
		f.Status = v.status
	}
	if v.opts.Strict && f.Severity == Warning {
		f.Severity = Error
	}
	if f.Severity == Error {
		v.stats.Errors++
	} else {
		v.stats.Warnings++
	}
	v.emit(f)
}

// fileFinding reports something about a line rather than a message.
func (v *validator) fileFinding(line int, sev Severity, code, format string, args ...any) {
	v.emitFinding(Finding{File: v.name, Line: line, Index: -1, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

// notJSON reports a line that does not parse, and makes the conversation
// forget what the lost line might have said.
func (v *validator) notJSON(text []byte, n int, complete bool) {
	var s scanner
	s.reset(text)
	s.skip()
	s.end()
	msg := "not JSON"
	if s.err != nil {
		msg = fmt.Sprintf("%s at column %d", s.err.msg, s.err.off+1)
	}
	switch {
	case v.bodyOf != "":
		if s.err != nil {
			msg = fmt.Sprintf("%s at offset %d", s.err.msg, s.err.off)
		}
		v.fileFinding(n, Error, "not-json", "the recorded request body is not JSON: %s", msg)
	case !complete && mayBeTorn(text):
		sev := Error
		why := "the file ends in the middle of a line"
		if v.kind == linesAgentloop {
			sev, why = Warning, "the writer was stopped mid-record"
		}
		v.fileFinding(n, sev, "truncated-line", "last line is incomplete (%s): %s", why, msg)
	default:
		v.fileFinding(n, Error, "not-json", "line is not JSON: %s", msg)
	}
	if v.conv.v != nil {
		v.conv.lost()
	}
}

// lost forgets pending calls after an unreadable line: whatever it held
// (a result, a call, the item a reasoning item came with) is unknown, and
// guessing would cascade.
func (c *conv) lost() {
	c.pending = c.pending[:0]
	c.resync = true
	c.reasoningOpen = false
}

func (v *validator) startConv(line int, kind convKind, array string) {
	v.conv.reset(v, kind, array)
	v.conv.start = line
	v.stats.Conversations++
}

// messageLine checks one line of a JSONL file of bare messages.
func (v *validator) messageLine(text []byte, n int, complete bool) {
	s := &v.sc
	s.reset(text)
	if v.conv.v == nil {
		v.startConv(n, kindTranscript, "")
	}
	m := &v.msg
	m.reset(n, v.conv.n)
	isObj := s.peekKind() == kindObject
	s.readMsg(m)
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return
	}
	if !isObj {
		v.conv.report(n, m.index, "invalid-message", nil, "line is %s, not a message object", kindName(kindOf(bytes.TrimSpace(text)[0])))
		return
	}
	v.conv.add(m)
}

// docInfo is what a request body (or a conversation line) says outside its
// messages and tools. A body is read in one of two ways, as a JSONL line
// (conversationLine) or streamed from a whole-file document (streamObject);
// both walk its keys in order, note each with note and takeArray, and end
// with applyDoc, so that a body gets the same findings either way.
type docInfo struct {
	array     string // the key whose array holds the messages: messages, traj or input; "" while none has
	notArray  string // messages or traj, when its value is not an array
	notArrayK byte   // the kind of that value
	input     byte   // the kind of "input"; kindAbsent if absent
	contents  bool   // a Gemini "contents": not a shape the rules cover
	model     bool   // a request rather than a fine-tuning record
	previous  bool   // previous_response_id or conversation: the server holds earlier items
	stateless bool   // store false: the server keeps no item
	system    bool   // a top-level system: the Anthropic shape
	thinking  bool   // thinking enabled (read by thinkingEnabled)
	other     bool   // a log holding conversations of its own (Inspect AI, HAR)
	eval      bool   // an Inspect AI log's "eval": without samples, it holds none
}

// note records what a top-level key whose value is of kind k says.
func (d *docInfo) note(key string, k byte) {
	switch key {
	case "messages", "traj":
		if k != kindArray && d.notArray == "" {
			d.notArray, d.notArrayK = key, k
		}
	case "input":
		d.input = k
	case "contents":
		d.contents = true
	case "model":
		d.model = true
	case "system":
		d.system = true
	case "previous_response_id", "conversation":
		d.previous = k != kindNull
	case "eval":
		d.eval = k == kindObject
	}
}

// noteStore records a top-level "store" whose value is at the scanner's
// cursor: only false makes the request stateless (the API's default is
// true).
func (d *docInfo) noteStore(s *scanner) {
	d.stateless = s.peekKind() == kindBool && s.d[s.i] == 'f'
	s.skip()
}

// takeArray reports whether the value of key, of kind k, holds the
// conversation's messages: the first array under messages, traj (tau-bench
// trajectories), history (SWE-agent trajectories) or input (Responses
// items), whichever comes first. If so it tells the conversation, which
// names its messages after the key.
// arrayFormat is the format whose conversation the array under key is:
// history is a SWE-agent trajectory's; the others are a request's.
func arrayFormat(key string) string {
	if key == "history" {
		return InputSWEAgent
	}
	return InputRequest
}

// reads reports whether a JSON document is read as format f: any of them
// unless --input forces a log of its own (Inspect AI, SWE-agent, HAR),
// which then checks what it names or nothing.
func (v *validator) reads(f string) bool {
	switch in := v.opts.Input; in {
	case InputInspect, InputSWEAgent, InputHAR:
		return in == f
	}
	return true
}

func (d *docInfo) takeArray(c *conv, key string, k byte) bool {
	if d.array != "" || d.other || k != kindArray {
		return false
	}
	switch key {
	case "messages", "traj", "history", "input":
	default:
		return false
	}
	d.array = key
	c.array = key
	if key == "input" && c.shape == shapeUnknown {
		c.shape = shapeResponses
	}
	return true
}

// applyDoc applies what a body's keys said, once all are read (the messages
// are checked by then), and ends its conversation. What it sets is first
// needed there; until then, findings that depend on it wait (see
// responsesOutput, checkCallName).
func (v *validator) applyDoc(d *docInfo) {
	c := &v.conv
	if d.eval && d.array == "" && v.reads(InputInspect) {
		// An Inspect AI log, maybe written without its samples.
		d.other = true
		if v.format == InputRequest {
			v.format = InputInspect
		}
		if v.stats.Messages == 0 {
			v.noConv = "this Inspect AI log holds no sample messages (was it written with --no-log-samples?)"
		}
	}
	if d.other {
		// Its conversations were checked as they came; the object itself
		// was not one.
		v.stats.Conversations--
		if v.format == InputHAR {
			v.noBodies("entry", v.recorded)
		}
		return
	}
	if d.model {
		c.kind = kindRequest
	}
	c.previousResponse = d.previous
	c.stateless = d.stateless
	if d.thinking {
		c.thinkingOn = shapeAnthropic
	}
	if d.system {
		c.hint = shapeAnthropic
	}
	switch {
	case d.array != "":
	case d.notArray != "":
		c.report(c.start, -1, "invalid-message", nil, "%s is %s; want an array", d.notArray, kindName(d.notArrayK))
	case d.contents:
		c.decide(shapeForeign)
	case d.input != kindAbsent:
		// A plain prompt string: one message, nothing to pair.
		v.stats.Messages++
	case !v.reads(InputRequest) && v.bodyOf == "":
		// Forced to a format whose keys this document does not have.
		v.fileFinding(c.start, Error, "not-a-conversation", "object is not what --input %s reads (%s)", v.opts.Input, formatName(v.opts.Input))
	default:
		v.fileFinding(c.start, Error, "not-a-conversation", "object has no messages array")
	}
	c.finish()
}

// startDoc starts the conversation of a request body whose first line is
// line.
func (v *validator) startDoc(line int) {
	v.startConv(line, kindFineTune, "")
	// A body's tools may follow its messages: calls to tools not yet
	// defined are judged at the end.
	v.conv.toolsMayFollow = true
}

// conversationLine checks one {"messages": […]} line: its own conversation.
func (v *validator) conversationLine(text []byte, n int, complete bool) {
	s := &v.sc
	s.reset(text)
	isObj := s.peekKind() == kindObject
	s.skip()
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return
	}
	if !isObj {
		v.fileFinding(n, Error, "not-a-conversation", "line is %s; want an object with messages", kindName(kindOf(bytes.TrimSpace(text)[0])))
		return
	}
	v.startDoc(n)
	c := &v.conv
	var d docInfo
	var wrapped struct {
		key    string // request or body
		body   []byte
		status int
	}
	s.reset(text)
	s.enter('{')
	for i := 0; s.next('}', &i); {
		key := string(s.key())
		k := s.peekKind()
		d.note(key, k)
		switch {
		case (key == "request" || key == "body") && k == kindObject && v.bodyOf == "" && wrapped.body == nil:
			// A request body recorded with what became of it: an
			// OpenAI Batch API input line ({"custom_id", "method",
			// "url", "body"}), a traffic record ({"request", "status"}).
			bad := s.bad
			wrapped.key, wrapped.body = key, s.skipRaw()
			// Text the body holds is checkBody's to report, at its message.
			s.bad = bad
		case key == "status" && k == kindNumber:
			wrapped.status, _ = strconv.Atoi(string(s.skipRaw()))
		case d.takeArray(c, key, k):
			s.enter('[')
			for j := 0; s.next(']', &j); {
				v.docMessage(n, j-1)
			}
		case key == "tools" && k == kindArray:
			c.setTools(v.readTools(n))
		case key == "thinking":
			d.thinking = thinkingEnabled(s)
		case key == "store":
			d.noteStore(s)
		default:
			s.skip()
		}
	}
	v.badText(n)
	if d.array == "" && !d.contents && d.input == kindAbsent && wrapped.body != nil && s.err == nil {
		// Not a conversation itself: the body it holds is checked, named
		// after its key, with the status beside each finding.
		v.stats.Conversations--
		v.checkBody(wrapped.key, wrapped.body, n, wrapped.status)
		return
	}
	v.applyDoc(&d)
}

// badText reports text that is not UTF-8 which the scanner met outside the
// messages of the document it holds (in its tools, its system prompt), the
// document starting at line; readMsg takes what is inside a message to the
// message.
func (v *validator) badText(line int) {
	s := &v.sc
	if s.bad == 0 || s.err != nil {
		return
	}
	at := s.bad - 1
	v.fileFinding(line+bytes.Count(s.d[:at], []byte{'\n'}), Error, "invalid-utf8", "outside the messages, %s",
		badTextMessage(s.d[at:min(at+12, len(s.d))], s.badSur))
	s.bad = 0
}

// docMessage checks the message at the scanner's cursor, element i of an
// array of messages: a body's, or a whole-file array.
func (v *validator) docMessage(line, i int) {
	s := &v.sc
	m := &v.msg
	m.reset(line, i)
	if s.peekKind() != kindObject {
		s.skip()
		if s.err == nil {
			v.conv.report(line, i, "invalid-message", nil, "message is not an object")
		}
		return
	}
	s.readMsg(m)
	if s.err == nil {
		v.conv.add(m)
	}
}

// thinkingEnabled reads a request's "thinking" setting.
func thinkingEnabled(s *scanner) bool {
	if s.peekKind() != kindObject {
		s.skip()
		return false
	}
	on := false
	s.enter('{')
	for n := 0; s.next('}', &n); {
		if string(s.key()) == "type" && s.peekKind() == kindString {
			t := string(s.text())
			// Adaptive thinking may skip a turn; only "enabled" makes
			// the API want a thinking block first (see checkThinking).
			on = t == "enabled"
			continue
		}
		s.skip()
	}
	return on
}

// toolNames returns the set that the names of one tools array are read
// into, empty. There is one, reused by the next tools array: conv.setTools
// copies what it keeps.
func (v *validator) toolNames() map[string]struct{} {
	if v.tmpNames == nil {
		v.tmpNames = make(map[string]struct{})
	}
	clear(v.tmpNames)
	return v.tmpNames
}

// readTools reads the tools array at the cursor into toolNames, checking
// each name.
func (v *validator) readTools(line int) map[string]struct{} {
	names := v.toolNames()
	s := &v.sc
	if s.peekKind() != kindArray {
		s.skip()
		return names
	}
	s.enter('[')
	for i := 0; s.next(']', &i); {
		v.readTool(line, i-1, names)
	}
	return names
}

func (v *validator) readTool(line, i int, names map[string]struct{}) {
	s := &v.sc
	if s.peekKind() != kindObject {
		s.skip()
		return
	}
	var name []byte
	has := false
	s.enter('{')
	for n := 0; s.next('}', &n); {
		switch string(s.key()) {
		case "name":
			if s.peekKind() == kindString {
				name, has = s.text(), true
				continue
			}
		case "function", "custom":
			if s.peekKind() == kindObject {
				s.enter('{')
				for n2 := 0; s.next('}', &n2); {
					if string(s.key()) == "name" && s.peekKind() == kindString {
						name, has = s.text(), true
						continue
					}
					s.skip()
				}
				continue
			}
		}
		s.skip()
	}
	if !has || s.err != nil {
		return
	}
	if !validName(name, 64) {
		v.emitFinding(Finding{File: v.name, Line: line, Index: -1, Path: fmt.Sprintf("tools[%d]", i), Severity: Error,
			Code: "invalid-tool-name", Message: fmt.Sprintf("tool name %q does not match ^[a-zA-Z0-9_-]{1,64}$", name), IDs: nil})
	}
	names[string(name)] = struct{}{}
}
