package check

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"maps"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/wire"
)

// shape is the wire shape of a conversation.
type shape int

// Shape is the wire shape of a conversation, for a format that knows the
// shape its writer uses.
type Shape = shape

// The shapes a format may presume (Conv.Presume).
const (
	ShapeOpenAI    = shapeOpenAI
	ShapeAnthropic = shapeAnthropic
	ShapeResponses = shapeResponses
	ShapeBedrock   = shapeBedrock
	ShapeOllama    = shapeOllama
	ShapeGemini    = shapeGemini
)

const (
	shapeUnknown shape = iota
	shapeOpenAI
	shapeAnthropic
	shapeResponses
	shapeForeign
	shapeBedrock // Amazon Bedrock Converse: bedrock.go
	shapeOllama  // Ollama's native /api/chat: ollama.go
	shapeGemini
)

func (s shape) String() string {
	switch s {
	case shapeOpenAI:
		return "OpenAI Chat Completions"
	case shapeAnthropic:
		return "Anthropic Messages"
	case shapeResponses:
		return "OpenAI Responses"
	case shapeGemini:
		return "Gemini"
	case shapeForeign:
		return "unknown"
	case shapeBedrock:
		return "Amazon Bedrock Converse"
	case shapeOllama:
		return "Ollama"
	}
	return "undetermined"
}

// Label is the shape's word in a format's name: "openai" ("openai-messages").
func (s shape) Label() string {
	switch s {
	case shapeOpenAI:
		return string(wire.Chat)
	case shapeAnthropic:
		return string(wire.Messages)
	case shapeResponses:
		return string(wire.Responses)
	case shapeBedrock:
		return "bedrock"
	case shapeOllama:
		return "ollama"
	case shapeGemini:
		return "gemini"
	}
	return ""
}

// ConvKind is where a conversation comes from; it changes what a trailing
// unanswered call means.
type ConvKind int

const (
	ConvTranscript ConvKind = iota // agentloop transcript or bare messages
	ConvRequest                    // a request body: the API will see it as is
	ConvFineTune                   // a fine-tuning record (rule 29)
	ConvLog                        // a finished run's log (Inspect AI, SWE-agent): it may end at a limit
)

// pend is a tool call waiting for its result.
type pend struct {
	hash     uint64
	id, name []byte // in conv.keep
	line     int
	index    int
	answered bool
	late     bool // answered, but not where the rules want it
	recorded bool // an agentloop result record holds its result, not yet sent
	byName   bool // a Gemini call without an id, answered by name
}

// seenID is where a call id was first used in a conversation.
type seenID struct {
	line, index int32
}

// deferredCall is a call to a tool whose definition may still come, for
// request bodies whose "tools" follow their messages.
type deferredCall struct {
	name, id    string // the tool, and the id of its first call
	line, index int
	count       int
}

// conv is the checker's own name for a conversation.
type conv = Conv

// Conv checks one conversation, a message at a time: a format starts one
// (File.StartConv, File.NewConv), hands it the messages in order (Add), and
// ends it (Finish), when the calls still unanswered are reported.
type Conv struct {
	v      *File
	shape  shape
	hint   shape // what the context suggests, used if the messages never say
	kind   ConvKind
	array  string // "messages" or "input" when messages are elements of an array
	n      int    // messages seen
	last   struct{ line, index int }
	start  int  // line where the conversation starts
	openAI bool // the target is known to be api.openai.com

	tools          map[string]struct{} // kept across conversations; valid when toolsKnown
	toolsKnown     bool
	toolsMayFollow bool // a request body's tools may come after its messages
	deferred       []deferredCall

	thinkingOn shape // shapeAnthropic when the request enables thinking of type "enabled"

	// Chat Completions and Responses: the calls of the last assistant turn.
	pending   []pend
	keep      []byte   // the ids and names of pending calls
	missed    []uint64 // calls reported unanswered: their late results are not reported again
	blockOpen bool     // tool results may follow
	resync    bool     // a line was lost: do not blame the next results on it

	// ids holds every call id the conversation has used, by a 64-bit hash
	// of the id, with where it was first used: 30 to 40 bytes of heap a
	// call, so it grows with the number of calls (a 1 GB transcript has
	// about 200,000). It is exact rather than a fixed-size filter, whose
	// false positives would be false errors: a reused id is an error in
	// the Anthropic shape (rule 17), and a Responses output whose call id
	// is known is paired rather than held for previous_response_id. Two
	// different ids share a hash with odds of about n²/2⁶⁵ for n calls.
	ids map[uint64]seenID

	gemTurn byte // Gemini: what the last content was (gUser…)
	gemLead bool // Gemini: the model turns so far came before any user turn

	// Anthropic turns.
	lastRole    string
	turnStart   int // line of the first message of the current user turn
	turnIndex   int
	resultPhase bool
	inUserTurn  bool
	emptyLast   *Finding // an empty assistant message: fine only if it is the last
	serverIDs   map[uint64]struct{}
	lastAsst    struct {
		line, index            int
		toolUse, thinkingFirst bool
	}
	haveAsst bool
	// bedrockTools: a Bedrock message held a toolUse or toolResult block,
	// which a request must have a toolConfig for.
	bedrockTools bool

	// Responses.
	previousResponse bool
	orphanOutputs    []Finding // held until previous_response_id is known absent
	reasoning        struct {
		line, index int
		id          string
	}
	reasoningOpen bool
	afterOutput   bool // the last item was an output the client wrote
	// callStep is the step of the open calls, in a transcript whose
	// records say which model request returned each item; 0 otherwise.
	callStep int64
	// stateless is set when the server keeps no item (store false), and
	// noCipher holds the reasoning items that then cannot be found, until
	// the end of a body says whether it is.
	stateless bool
	noCipher  []Finding
	// The reasoning item of each OpenAI response the conversation holds, by
	// a hash of the response's part of the item ids, and what was seen of
	// the current run of output items (see respKey).
	rsByResp map[uint64]seenReasoning
	run      int
	runItems []runItem

	// How the log that holds the conversation wrote it.
	split     bool     // messages may be split over lines (Claude Code): see blankText
	heldBlank *Finding // a blank-only assistant line whose message may go on
	repairs   bool     // the writer repairs pairing before it sends (Codex): see report
	flat      bool     // tool calls in Inspect AI's shape: see openAICall

	// Findings for plain messages seen before the shape was known, one list
	// per candidate shape; the list of the shape that wins is emitted.
	early   [2][]Finding
	dropped [2]int // held findings past maxEarly, not kept
	mixed   bool

	// passOver: the conversation is a log of messages, whose lines of a
	// role no API has are the writer's bookkeeping (unknownItem).
	passOver bool

	// pendingHint is what a pending-call finding says of how the run
	// stopped, when its log says (SetPendingHint).
	pendingHint string
}

const maxEarly = 100

func (c *conv) reset(v *File, kind ConvKind, array string) {
	pending, deferred, missed, keep := c.pending[:0], c.deferred[:0], c.missed[:0], c.keep[:0]
	early0, early1 := c.early[0][:0], c.early[1][:0]
	ids, server, tools, rs := c.ids, c.serverIDs, c.tools, c.rsByResp
	clear(ids)
	clear(server)
	clear(rs)
	*c = conv{v: v, kind: kind, array: array, pending: pending, deferred: deferred, missed: missed, keep: keep, ids: ids, serverIDs: server, tools: tools,
		rsByResp: rs, noCipher: c.noCipher[:0], runItems: c.runItems[:0]}
	c.early[0], c.early[1] = early0, early1
	if c.ids == nil {
		c.ids = make(map[uint64]seenID)
		c.serverIDs = make(map[uint64]struct{})
	}
	c.turnStart = -1
	// The shape the file's format or a recorded request's endpoint says
	// (File.PresumeShape); --shape wins.
	c.shape = v.presume
	switch wire.Shape(v.opts.Shape) {
	case wire.Chat:
		c.shape = shapeOpenAI
	case wire.Messages:
		c.shape = shapeAnthropic
	}
}

// setTools records the tool names a conversation defines. names is the
// file's toolNames, which the next tools array reuses: it is copied.
func (c *conv) setTools(names map[string]struct{}) {
	if c.tools == nil {
		c.tools = make(map[string]struct{}, len(names))
	}
	clear(c.tools)
	maps.Copy(c.tools, names)
	c.toolsKnown = true
}

func (c *conv) hash(b []byte) uint64 { return maphash.Bytes(c.v.seed, b) }

// where names a message for the text of a finding about another message.
func (c *conv) where(line, index int) string {
	if c.array != "" {
		return fmt.Sprintf("%s[%d]", c.array, index)
	}
	return fmt.Sprintf("line %d", line)
}

func (c *conv) path(index int) string {
	if c.array == "" || index < 0 {
		return ""
	}
	return fmt.Sprintf("%s[%d]", c.array, index)
}

// severity picks the severity of a code in this conversation's shape.
func (c *conv) severity(code string) Severity {
	info := codeIndex[code]
	if info == nil {
		panic("transcript: unknown code " + code)
	}
	if sev, ok := shapeSeverity(c.shape, code); ok {
		return sev
	}
	if c.shape == shapeAnthropic || c.shape == shapeBedrock {
		if info.Anthropic != 0 {
			return info.Anthropic
		}
		return info.OpenAI
	}
	if info.OpenAI != 0 {
		return info.OpenAI
	}
	return info.Anthropic
}

// report emits a finding about the message at line/index.
func (c *conv) report(line, index int, code string, ids []string, format string, args ...any) {
	sev := c.severity(code)
	if c.repairs {
		// Codex fills in an "aborted" output for a call left without one,
		// and drops an output whose call is gone, each time it sends the
		// conversation (codex-rs/core/src/context_manager/normalize.rs):
		// the API never sees these gaps, and a rollout of an interrupted
		// turn has them. A warning says so.
		switch code {
		case "unanswered-call", "pending-call":
			sev, format = Warning, format+"; Codex sends an \"aborted\" output in its place"
		case "orphan-result":
			sev, format = Warning, format+"; Codex drops it before sending"
		}
	}
	c.reportSev(line, index, sev, code, ids, format, args...)
}

func (c *conv) reportSev(line, index int, sev Severity, code string, ids []string, format string, args ...any) {
	if c.shape == shapeBedrock {
		// The Anthropic rules, said in Bedrock's words; only the format
		// is reworded, never what it quotes from the file.
		format = bedrockWords.Replace(format)
	}
	c.v.emitFinding(Finding{
		File:     c.v.name,
		Line:     line,
		Index:    index,
		Path:     c.path(index),
		Severity: sev,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
		IDs:      ids,
	})
}

// classify reads the shape a message is written in, or shapeUnknown for a
// plain message that would fit any.
func classify(m *Msg) shape {
	if m.gemini || m.foreign && string(m.role) == "model" && m.partsK != KindAbsent {
		return shapeGemini
	}
	if m.foreign {
		return shapeForeign
	}
	if len(m.typ) > 0 && !(string(m.typ) == "message" && m.anthropicMessage()) {
		return shapeResponses
	}
	if !m.hasRole && (m.callIDK != KindAbsent || m.output != KindAbsent) {
		return shapeResponses
	}
	switch string(m.role) {
	case "tool", "function":
		return shapeOpenAI
	case "model":
		return shapeGemini
	}
	if bytes.HasPrefix(m.role, []byte("ROLE_")) {
		return shapeForeign
	}
	if m.toolCalls != KindAbsent || m.toolCallIDK != KindAbsent || m.functionCall {
		return shapeOpenAI
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		if b.typ == nil && b.bedrock != "" {
			// A block without a type whose key names a member of a
			// Converse content block, a union ({"toolUse": …}).
			return shapeBedrock
		}
		if b.foreign || (!b.notObject && b.typ == nil && !b.hasText) {
			return shapeForeign
		}
		switch t := string(b.typ); {
		case t == "tool_use", t == "tool_result", t == "thinking", t == "redacted_thinking",
			t == "image", t == "document", t == "search_result",
			strings.HasSuffix(t, "_tool_use"), strings.HasSuffix(t, "_tool_result"):
			return shapeAnthropic
		case t == "image_url", t == "input_audio", t == "refusal", t == "file":
			return shapeOpenAI
		case t == "input_text", t == "output_text", t == "input_image", t == "input_file":
			return shapeResponses
		}
	}
	return shapeUnknown
}

// typelessText reports whether a message's content holds a text block
// without a type.
func typelessText(m *Msg) bool {
	for i := range m.blocks {
		if b := &m.blocks[i]; b.typ == nil && b.hasText && !b.notObject {
			return true
		}
	}
	return false
}

// anthropicMessage reports whether a {"type": "message"} object is an
// Anthropic message as the API returns it (id, type, role, content,
// stop_reason…) rather than a Responses message item, whose content parts
// are input_text, output_text and the like.
func (m *Msg) anthropicMessage() bool {
	if m.stopReason {
		return true
	}
	for i := range m.blocks {
		switch t := string(m.blocks[i].typ); {
		case t == "text", t == "tool_use", t == "tool_result", t == "thinking", t == "redacted_thinking", t == "image",
			strings.HasSuffix(t, "_tool_use"), strings.HasSuffix(t, "_tool_result"):
			return true
		}
	}
	return false
}

// add checks one message.
func (c *conv) add(m *Msg) {
	if c.unknownItem(m) {
		return
	}
	if !m.continues {
		c.v.stats.Messages++
	}
	if len(m.badAt) > 0 {
		c.report(m.line+m.badLines, m.index, "invalid-utf8", nil, "%s", BadTextMessage(m.badAt, m.badSur))
	}
	c.last.line, c.last.index = m.line, m.index
	c.n++
	s := classify(m)
	if c.flat {
		s = shapeUnknown // Inspect AI's own shape: its blocks say nothing of an API
	}
	if s == shapeUnknown && c.hint == shapeUnknown && typelessText(m) {
		// {"text": …} without a type: valid in Converse alone (both
		// other APIs want a type), but not proof of it.
		c.hint = shapeBedrock
	}
	if c.shape == shapeUnknown && s != shapeUnknown {
		c.decide(s)
	} else if s != shapeUnknown && s != c.shape && !c.mixed && c.shape != shapeForeign &&
		!(c.shape == shapeOpenAI && s == shapeResponses) && !(c.shape == shapeOllama && s == shapeOpenAI) {
		c.mixed = true
		c.report(m.line, m.index, "mixed-shapes", nil,
			"this message is in the %s shape, the conversation so far in the %s shape; converters turn such mixes into duplicate ids",
			s, c.shape)
	}
	switch c.shape {
	case shapeOpenAI:
		c.addOpenAI(m)
	case shapeAnthropic:
		c.addAnthropic(m)
	case shapeResponses:
		c.addResponses(m)
	case shapeBedrock:
		c.addBedrock(m)
	case shapeOllama:
		c.addOllama(m)
	case shapeGemini:
		c.addGemini(m)
	case shapeForeign:
		// Counted, not checked: one unchecked-conversation finding was
		// enough.
	default:
		c.addPlain(m)
	}
}

// otherLogLines are the types of the lines of Claude Code and Codex logs
// that hold a message or a payload object.
var otherLogLines = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true, "progress": true, "attachment": true,
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true,
}

// unknownItem passes over, with a count, an object whose "type" names
// neither a message nor a Responses input item (a line of another kind of
// log: events, bookkeeping, a file read as the wrong format), which no API
// would read, and in a log of messages a line whose role no API has (the
// bookkeeping of agent tools: Kimi CLI's "_usage" and "_checkpoint"
// between a call and its results). It is not a message checked, nor one
// that ends the calls' turn; a file of nothing else is no-conversation.
func (c *conv) unknownItem(m *Msg) bool {
	if c.passOver && m.hasRole && m.roleK == KindString && !knownRole(m.role) {
		if c.v.unknownType == "" {
			c.v.unknownType = "role " + string(m.role)
		}
		c.v.stats.Skipped++
		return true
	}
	if len(m.typ) == 0 || m.hasRole || responsesItems[string(m.typ)] {
		return false
	}
	if c.v.unknownType == "" {
		c.v.unknownType = string(m.typ)
	}
	if m.wraps && otherLogLines[string(m.typ)] && c.v.stats.Messages > 0 {
		// A line of another log (Claude Code's, Codex's) holding a
		// message, in a file whose own messages were read: two logs in
		// one file, and this one's messages are not checked.
		c.v.fileFinding(m.line, Error, "invalid-record", "line is another log's (type %q, holding a message or payload object), not one of the messages before it: it is not checked", m.typ)
		return true
	}
	c.v.stats.Skipped++
	return true
}

// knownRole reports whether some API's messages take role: OpenAI's,
// Anthropic's, Gemini's ("model", which marks its shape).
func knownRole(role []byte) bool {
	switch string(role) {
	case "system", "developer", "user", "assistant", "tool", "function", "model":
		return true
	}
	return bytes.HasPrefix(role, []byte("ROLE_"))
}

// decide fixes the shape of the conversation and emits what was held for it.
func (c *conv) decide(s shape) {
	c.shape = s
	switch s {
	case shapeOpenAI, shapeResponses, shapeOllama:
		c.emitHeld(0)
	case shapeAnthropic:
		c.emitHeld(1)
	case shapeBedrock:
		// The Anthropic verdicts, but for the type Converse's text blocks
		// do not have.
		c.early[1] = slices.DeleteFunc(c.early[1], func(f Finding) bool {
			return f.Code == "invalid-block" && strings.HasSuffix(f.Message, "has no type")
		})
		for i := range c.early[1] {
			asBedrock(&c.early[1][i])
		}
		c.emitHeld(1)
	case shapeForeign:
		line := c.start
		if c.n > 0 {
			line = c.last.line
		}
		c.v.uncheckedConv()
		c.reportSev(line, -1, c.v.uncheckedSeverity(), "unchecked-conversation", nil,
			"conversation is in none of the shapes validate reads (OpenAI, Anthropic, Gemini, Bedrock Converse, Ollama): its tool calls are not checked%s", c.v.uncheckedHint())
	}
	c.early[0], c.early[1] = c.early[0][:0], c.early[1][:0]
	c.dropped = [2]int{}
}

// emitHeld emits the findings held for shape i, and says how many more
// there were past the bound.
func (c *conv) emitHeld(i int) {
	for _, f := range c.early[i] {
		c.v.emitFinding(f)
	}
	if n := c.dropped[i]; n > 0 && len(c.early[i]) > 0 {
		last := c.early[i][len(c.early[i])-1]
		c.reportSev(last.Line, -1, last.Severity, last.Code, nil,
			"and %d more findings on the messages after line %d, not listed: they came before the conversation showed its shape", n, last.Line)
	}
}

// addPlain checks a message that says nothing of its shape: both shapes'
// verdicts are kept until the conversation shows which one applies.
func (c *conv) addPlain(m *Msg) {
	n0, n1 := len(c.early[0]), len(c.early[1])
	for i, s := range [2]shape{shapeOpenAI, shapeAnthropic} {
		c.shape = s
		saved := c.v.hold
		c.v.hold = &c.early[i]
		switch s {
		case shapeOpenAI:
			c.addOpenAI(m)
		case shapeAnthropic:
			c.addAnthropic(m)
		}
		c.v.hold = saved
	}
	c.shape = shapeUnknown
	c.emitCommon(n0, n1)
	for i := range c.early {
		// Held findings are bounded; those past the bound are counted, and
		// said when the shape is known (emitHeld).
		if over := len(c.early[i]) - maxEarly; over > 0 {
			c.dropped[i] += over
			c.early[i] = c.early[i][:maxEarly]
		}
	}
}

// emitCommon emits at once the findings this message got alike in both
// shapes (from n0 and n1 on in the held lists): they do not depend on the
// shape, so they need not wait for it, nor count against the bound.
func (c *conv) emitCommon(n0, n1 int) {
	a, b := c.early[0][n0:], c.early[1][n1:]
	if len(a) == 0 || len(b) == 0 {
		return
	}
	keptA := a[:0]
	for _, f := range a {
		j := slices.IndexFunc(b, func(g Finding) bool {
			return g.Line == f.Line && g.Index == f.Index && g.Code == f.Code && g.Severity == f.Severity && g.Message == f.Message
		})
		if j < 0 {
			keptA = append(keptA, f)
			continue
		}
		b = slices.Delete(b, j, j+1)
		c.v.emitFinding(f)
	}
	c.early[0] = c.early[0][:n0+len(keptA)]
	c.early[1] = c.early[1][:n1+len(b)]
}

// finish ends the conversation: calls still pending, shape-level checks.
func (c *conv) finish() {
	if c.shape == shapeUnknown {
		s := c.hint
		if s == shapeUnknown {
			s = shapeOpenAI
		}
		c.decide(s)
	}
	if c.n > 0 {
		c.v.shapes |= 1 << c.shape
	}
	switch c.shape {
	case shapeOpenAI:
		c.pendingAtEnd("tool message")
	case shapeAnthropic, shapeBedrock:
		c.settleBlank(nil, "")
		if c.inUserTurn {
			c.closeUserTurn()
		}
		if c.shape == shapeBedrock {
			c.pendingAtEnd("toolResult")
		} else {
			c.pendingAtEnd("tool_result")
		}
		c.checkThinking()
	case shapeOllama:
		c.pendingAtEnd("tool message")
	case shapeResponses:
		if c.reasoningOpen {
			c.reportOrphanReasoning()
		}
		if c.stateless {
			// Held only while store was unknown.
			for _, f := range c.noCipher {
				c.v.emitFinding(f)
			}
		}
		c.pendingAtEnd("function_call_output")
		if !c.previousResponse {
			for _, f := range c.orphanOutputs {
				c.v.emitFinding(f)
			}
		}
	case shapeGemini:
		c.pendingAtEnd("functionResponse")
	}
	c.orphanOutputs = c.orphanOutputs[:0]
	c.noCipher = c.noCipher[:0]
	c.flushDeferred()
}

// recordResult notes an agentloop result record for call id, and says
// what is wrong with it: it must name a call of the last assistant message
// that no message has answered yet, and no other result record names.
func (c *conv) recordResult(id []byte) string {
	if c.resync {
		return "" // the line lost may have held its call
	}
	p := c.answer(c.hash(id))
	switch c.shape {
	case shapeOpenAI, shapeResponses:
		if !c.blockOpen {
			p = nil
		}
	case shapeAnthropic:
		if p != nil && !p.answered && !p.late && c.inUserTurn {
			return "it comes after the user message that should answer the call"
		}
	default:
		return "" // the shape is unknown: nothing is checked
	}
	switch {
	case p == nil:
		return "the last assistant message made no call with this id, or its results were already sent"
	case p.answered || p.late:
		return "the call was already answered by a message"
	case p.recorded:
		return "a second result record for the call"
	}
	p.recorded = true
	return ""
}

// pendingAtEnd reports the calls a conversation ends without answering.
func (c *conv) pendingAtEnd(what string) {
	// Reported where the conversation ends, which keeps findings in file order.
	var ids []string
	line, index := c.last.line, c.last.index
	for i := range c.pending {
		if p := &c.pending[i]; !p.answered {
			ids = append(ids, string(p.id))
		}
	}
	if len(ids) == 0 || c.v.opts.AllowPending {
		return
	}
	sev := Error
	hint := " (a run still in progress? use --allow-pending)"
	if c.pendingHint != "" {
		// The log says how the run stopped: it does not go on by itself.
		hint = c.pendingHint
	}
	switch c.kind {
	case ConvFineTune:
		sev, hint = Warning, " (fine for fine-tuning data; a request would be refused)"
	case ConvRequest:
		hint = ""
	case ConvLog:
		sev, hint = Warning, " (the run ended there: a limit, or an error?)"
	}
	recorded := 0
	for i := range c.pending {
		if p := &c.pending[i]; !p.answered && p.recorded {
			recorded++
		}
	}
	if recorded > 0 {
		hint += fmt.Sprintf("; %d of them finished: %s kept in result records", recorded, plural(recorded, "its result is", "their results are"))
	}
	c.reportSev(line, index, sev, "pending-call", ids, "the conversation ends before %s %s answered with a %s%s",
		describePending(c.pending, c.where), plural(len(ids), "is", "are"), what, hint)
	c.pending = c.pending[:0]
}

func describePending(ps []pend, where func(int, int) string) string {
	var b strings.Builder
	n := 0
	for i := range ps {
		p := &ps[i]
		if p.answered {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		if n == 5 {
			fmt.Fprintf(&b, "and %d more", countUnanswered(ps)-5)
			break
		}
		if p.byName {
			// A Gemini call without an id: its name is all it has.
			fmt.Fprintf(&b, "the call of %s (%s)", p.name, where(p.line, p.index))
		} else {
			fmt.Fprintf(&b, "%s (%s, %s)", p.id, p.name, where(p.line, p.index))
		}
		n++
	}
	return b.String()
}

func countUnanswered(ps []pend) int {
	n := 0
	for i := range ps {
		if !ps[i].answered {
			n++
		}
	}
	return n
}

// plural is the helper every message of agentloop uses.
var plural = english.Plural

// flushDeferred reports calls to tools missing from a tools list that came
// after the messages.
func (c *conv) flushDeferred() {
	if c.toolsKnown {
		for _, d := range c.deferred {
			if _, ok := c.tools[d.name]; !ok {
				more := ""
				if d.count > 1 {
					more = fmt.Sprintf(" (and %d more %s to it)", d.count-1, plural(d.count-1, "call", "calls"))
				}
				c.report(d.line, d.index, "undefined-tool", []string{d.id},
					"call %s names tool %s, which the tools list does not define%s", d.id, d.name, more)
			}
		}
	}
	c.deferred = c.deferred[:0]
}

// checkCallName applies the tool-name rules to a call and the tools given.
func (c *conv) checkCallName(m *Msg, id, name []byte) {
	if !validName(name, 64) {
		c.report(m.line, m.index, "invalid-tool-name", []string{string(id)},
			"tool name %q of call %s does not match ^[a-zA-Z0-9_-]{1,64}$", name, id)
		return
	}
	c.checkCallKnown(m, id, name)
}

// checkCallKnown checks that the tools given define the tool a call names.
func (c *conv) checkCallKnown(m *Msg, id, name []byte) {
	if c.v.opts.Tools != nil && !c.v.opts.Tools.Has(string(name)) {
		c.report(m.line, m.index, "unknown-tool", []string{string(id)},
			"call %s names tool %s, which the tools directories do not define", id, name)
	}
	if c.toolsKnown {
		if _, ok := c.tools[string(name)]; !ok {
			c.report(m.line, m.index, "undefined-tool", []string{string(id)},
				"call %s names tool %s, which the tools list does not define", id, name)
		}
		return
	}
	if c.toolsMayFollow {
		for i := range c.deferred {
			if c.deferred[i].name == string(name) {
				c.deferred[i].count++
				return
			}
		}
		if len(c.deferred) < 1000 {
			c.deferred = append(c.deferred, deferredCall{name: string(name), id: string(id), line: m.line, index: m.index, count: 1})
		}
	}
}

// checkArgs runs the tools' schema check on a call's arguments.
func (c *conv) checkArgs(m *Msg, id, name, args []byte) {
	t := c.v.opts.Tools
	if t == nil || !validName(name, 64) || !t.Has(string(name)) {
		return
	}
	if err := t.CheckArgs(string(name), args); err != nil {
		c.report(m.line, m.index, "arguments-invalid", []string{string(id)},
			"arguments of call %s do not match the schema of %s: %v", id, name, err)
	}
}

// noteID records a call id and reports its reuse.
func (c *conv) noteID(m *Msg, id []byte, h uint64, turnStart int) {
	if prev, ok := c.ids[h]; ok {
		if int(prev.index) >= turnStart && turnStart >= 0 {
			c.report(m.line, m.index, "duplicate-call-id", []string{string(id)},
				"call id %s appears twice in this message", id)
		} else {
			c.report(m.line, m.index, "reused-call-id", []string{string(id)},
				"call id %s was already used at %s; results keyed by id become ambiguous", id, c.where(int(prev.line), int(prev.index)))
		}
		return
	}
	c.ids[h] = seenID{line: int32(m.line), index: int32(m.index)}
}

// answer finds the pending call a result names.
func (c *conv) answer(h uint64) *pend {
	for i := range c.pending {
		if c.pending[i].hash == h {
			return &c.pending[i]
		}
	}
	return nil
}

func (c *conv) addPending(m *Msg, id, name []byte, h uint64) {
	if len(c.pending) == 0 {
		c.keep = c.keep[:0]
	}
	c.pending = append(c.pending, pend{hash: h, id: c.copyBytes(id), name: c.copyBytes(name), line: m.line, index: m.index})
	c.v.stats.ToolCalls++
}

// copyBytes keeps b past the current line. A full buffer is replaced, not
// grown, so earlier copies stay valid.
func (c *conv) copyBytes(b []byte) []byte {
	if cap(c.keep)-len(c.keep) < len(b) {
		c.keep = make([]byte, 0, max(2*cap(c.keep), len(b)+1024))
	}
	start := len(c.keep)
	c.keep = append(c.keep, b...)
	return c.keep[start:len(c.keep):len(c.keep)]
}

// validName reports whether name matches ^[a-zA-Z0-9_-]{1,max}$ (max 0:
// any length).
func validName(name []byte, max int) bool {
	if len(name) == 0 || (max > 0 && len(name) > max) {
		return false
	}
	for _, ch := range name {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '-') {
			return false
		}
	}
	return true
}
