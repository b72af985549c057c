package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/wire"
)

// The agentloop format: agentloop's own transcripts, read a record a line.
// The record layer is checked here: a header first and once, message
// records in seq order, an end record last, and results that name the tool
// results their message holds; the messages go to the checker.

// agentloopFormat is the format of the transcripts this package writes.
type agentloopFormat struct{}

func (agentloopFormat) Info() check.Info {
	return check.Info{Name: InputAgentloop, Reads: "agentloop transcript", Writer: "agentloop run (and replay --resume, batch)",
		Example: "$XDG_STATE_HOME/agentloop/transcripts/<id>.jsonl, or run -o FILE"}
}

// Sniff knows a transcript by its first record: a header, or a message or
// end record with the keys of one.
func (agentloopFormat) Sniff(h *check.Head) check.Confidence {
	line, ok := h.Line()
	if !ok {
		return check.No
	}
	switch line.Type() {
	case TypeHeader:
		return check.Certain
	case TypeMessage, TypeEnd:
		if line.Has("seq", check.KindAbsent) || line.Has("reason", check.KindAbsent) || line.Has("provider", check.KindAbsent) ||
			line.Has("message", check.KindObject) {
			return check.Certain
		}
	}
	return check.No
}

func (agentloopFormat) Open(f *check.File) error {
	// The writer is killed mid-record at times, and a run stopped before
	// its first message is a header alone.
	f.TornIsWarning()
	f.EmptyIsRun()
	a := &agentloopReader{f: f}
	if err := f.Lines(a.record); err != nil || f.Stopped() {
		return err
	}
	f.EndConv()
	return nil
}

// agentloopReader is what is known of a transcript's records so far.
type agentloopReader struct {
	f          *check.File
	records    int
	headerLine int // line of the header record; 0 before it
	ended      bool
	lastSeq    int64
	resultIDs  [][]byte
	gotIDs     [][]byte
	// fields and resultProblems hold a record's fields to type-check.
	fields         []rawField
	resultProblems []string
	clearing       clearedCheck
	reasoned       reasonedStep
	answer         answerCheck
}

// recordInfo is what one record says outside its message.
type recordInfo struct {
	typ        []byte
	hasType    bool
	seq        []byte
	seqK       byte
	hasMessage bool
	messageK   byte
	results    byte // kind of "results"
	provider   []byte
	baseURL    []byte
	reason     []byte
	hasTools   bool
	hasContext bool   // a header's clearing policy
	context    []byte // that policy
	hasParent  bool   // a header's parent: the transcript holds another's records
	cleared    []byte // a message's cleared entries
	toolsKind  byte   // the kind of a "tools" that is not an array
	callID     []byte
	callIDK    byte   // the kind of "call_id" (result records)
	step       int64  // a message record's step, when it is a whole number
	usage      []byte // a message record's usage, when it is an object
	answer     []byte // a header's answer_schema
}

// rawField is a record field the record layer checks for its type only.
type rawField struct{ key, raw []byte }

// fieldType is the JSON type a record field decodes from (null, which
// leaves a field unset, goes with all of them).
type fieldType byte

const (
	fieldString fieldType = iota
	fieldInt
	fieldNumber
	fieldBool
	fieldTime
	fieldStrings
	fieldUsage
)

// recordFields are the types of the fields of each record type that the
// record layer does not read for itself, as the Go record types decode
// them: a file that validates is one replay and resume can read.
var recordFields = map[string]map[string]fieldType{
	TypeHeader: {
		"version": fieldInt, "id": fieldString, "time": fieldTime, "command": fieldString, "model": fieldString,
		"base_url": fieldString, "tools_dirs": fieldStrings, "system": fieldString, "max_steps": fieldInt, "parallel": fieldInt,
		"parent": fieldString, "parent_id": fieldString, "agentloop": fieldString,
		"max_total_tokens": fieldInt, "max_cost": fieldNumber, "temperature": fieldNumber, "max_tokens": fieldInt,
	},
	TypeMessage: {
		"step": fieldInt, "time": fieldTime, "usage": fieldUsage, "latency_ms": fieldInt, "finish_reason": fieldString,
		"images_of": fieldStrings,
	},
	TypeResult: {
		"step": fieldInt, "time": fieldTime, "call_id": fieldString, "name": fieldString, "exit_code": fieldInt,
		"duration_ms": fieldInt, "truncated": fieldBool, "is_error": fieldBool, "error": fieldString, "content": fieldString,
	},
	TypeEnd: {
		"time": fieldTime, "error": fieldString, "steps": fieldInt, "usage": fieldUsage,
	},
}

// resultFields are the types of the fields of an entry of "results".
var resultFields = map[string]fieldType{
	"call_id": fieldString, "name": fieldString, "exit_code": fieldInt, "duration_ms": fieldInt,
	"truncated": fieldBool, "is_error": fieldBool, "error": fieldString, "source": fieldString, "server": fieldString,
}

// checkFields reports the fields of a record whose values are of the wrong
// type.
func (v *agentloopReader) checkFields(n int, typ string, ri *recordInfo) {
	want, ok := recordFields[typ]
	if !ok {
		return // an unknown type is reported on its own
	}
	if ri.toolsKind != check.KindAbsent {
		v.f.Finding(n, check.Error, "invalid-record", "%s record: \"tools\" is %s; want an array", typ, check.KindName(ri.toolsKind))
	}
	for _, f := range v.fields {
		if t, ok := want[string(f.key)]; ok {
			if why := fieldProblem(t, f.raw); why != "" {
				v.f.Finding(n, check.Error, "invalid-record", "%s record: %q %s", typ, f.key, why)
			}
		}
	}
	if typ == TypeMessage {
		for _, p := range v.resultProblems {
			v.f.Finding(n, check.Error, "invalid-record", "message record: %s", p)
		}
	}
}

// fieldProblem says what is wrong with a value for a field of type t, or
// returns "".
func fieldProblem(t fieldType, raw []byte) string {
	k := check.KindAbsent
	if len(raw) > 0 {
		k = check.KindOf(raw[0])
	}
	if k == check.KindNull {
		return ""
	}
	switch t {
	case fieldString:
		if k != check.KindString {
			return "is " + check.KindName(k) + "; want a string"
		}
	case fieldInt:
		if k != check.KindNumber {
			return "is " + check.KindName(k) + "; want a whole number"
		}
		if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
			return fmt.Sprintf("is %s; want a whole number", raw)
		}
	case fieldNumber:
		if k != check.KindNumber {
			return "is " + check.KindName(k) + "; want a number"
		}
	case fieldBool:
		if k != check.KindBool {
			return "is " + check.KindName(k) + "; want true or false"
		}
	case fieldTime:
		if k != check.KindString {
			return "is " + check.KindName(k) + "; want a time such as \"2026-01-02T15:04:05Z\""
		}
		var tm time.Time
		if err := tm.UnmarshalJSON(raw); err != nil {
			return fmt.Sprintf("is %s; want an RFC 3339 time such as \"2026-01-02T15:04:05Z\"", raw)
		}
	case fieldStrings:
		var ss []string
		if k != check.KindArray || json.Unmarshal(raw, &ss) != nil {
			return "is " + check.KindName(k) + "; want an array of strings"
		}
	case fieldUsage:
		if k != check.KindObject {
			return "is " + check.KindName(k) + "; want an object of token counts"
		}
		var u Usage
		if err := json.Unmarshal(raw, &u); err != nil {
			return "holds a count that is not a whole number"
		}
	}
	return ""
}

func (v *agentloopReader) record(text []byte, n int, complete bool) {
	f := v.f
	if !f.ObjectLine(text, n, complete, "a transcript record") {
		return
	}
	s := f.Scanner()
	c := f.Conv()
	if !c.Started() {
		c = f.StartConv(n, check.ConvTranscript, "")
	}
	m := f.Msg()
	m.Reset(n, c.Len())
	var ri recordInfo
	v.resultIDs = v.resultIDs[:0]
	var names map[string]struct{}
	v.fields = v.fields[:0]
	v.resultProblems = v.resultProblems[:0]
	s.Enter('{')
	for k := 0; s.Next('}', &k); {
		key := s.Key()
		switch string(key) {
		case "type":
			ri.hasType = true
			if s.PeekKind() == check.KindString {
				ri.typ = s.Text()
				continue
			}
		case "seq":
			ri.seqK = s.PeekKind()
			if ri.seqK == check.KindNumber {
				ri.seq = s.SkipRaw()
				continue
			}
		case "message":
			ri.hasMessage = true
			ri.messageK = s.PeekKind()
			if ri.messageK == check.KindObject {
				s.ReadMsg(m)
				continue
			}
		case "results":
			ri.results = s.PeekKind()
			if ri.results == check.KindArray {
				v.readResults()
				continue
			}
		case "provider":
			if s.PeekKind() == check.KindString {
				ri.provider = s.Text()
				continue
			}
		case "usage":
			// Also checked for its type with the other fields, below.
			if s.PeekKind() == check.KindObject {
				ri.usage = s.SkipRaw()
				v.fields = append(v.fields, rawField{key: key, raw: ri.usage})
				continue
			}
		case "step":
			// Also checked for its type with the other fields, below.
			if s.PeekKind() == check.KindNumber {
				raw := s.SkipRaw()
				ri.step, _ = strconv.ParseInt(string(raw), 10, 64)
				v.fields = append(v.fields, rawField{key: key, raw: raw})
				continue
			}
		case "call_id":
			if ri.callIDK = s.PeekKind(); ri.callIDK == check.KindString {
				ri.callID = s.Text()
				continue
			}
		case "base_url":
			if s.PeekKind() == check.KindString {
				ri.baseURL = s.Text()
				continue
			}
		case "reason":
			if s.PeekKind() == check.KindString {
				ri.reason = s.Text()
				continue
			}
		case "answer_schema":
			if s.PeekKind() != check.KindNull {
				ri.answer = s.SkipRaw()
				continue
			}
		case "context":
			if s.PeekKind() == check.KindObject {
				ri.hasContext, ri.context = true, s.SkipRaw()
				continue
			}
		case "parent":
			ri.hasParent = s.PeekKind() == check.KindString
		case "cleared":
			if s.PeekKind() != check.KindNull {
				ri.cleared = s.SkipRaw()
				continue
			}
		case "tools":
			if k := s.PeekKind(); k != check.KindArray && k != check.KindNull {
				ri.toolsKind = k
				break
			}
			ri.hasTools = true
			names = f.ReadTools(n)
			continue
		}
		// Every other field is checked for its type once the record's
		// type is known (it may come last).
		v.fields = append(v.fields, rawField{key: key, raw: s.SkipRaw()})
	}
	s.End()
	if s.Err() != nil {
		f.NotJSON(text, n, complete)
		return
	}
	f.BadText(n)
	v.checkFields(n, string(ri.typ), &ri)
	v.records++
	if v.records == 1 && string(ri.typ) != TypeHeader {
		v.f.Finding(n, check.Error, "missing-header", "the first record is not a header: the provider and tools are unknown")
	}
	if v.ended {
		v.f.Finding(n, check.Error, "record-after-end", "%s record after the end record", recordName(string(ri.typ)))
	}
	switch string(ri.typ) {
	case TypeHeader:
		if v.headerLine > 0 {
			v.f.Finding(n, check.Error, "duplicate-header", "second header record (the first is at line %d)", v.headerLine)
			return
		}
		v.headerLine = n
		v.checkVersion(n)
		if v.records > 1 {
			v.f.Finding(n, check.Error, "missing-header", "the header is not the first record")
		}
		// A transcript that goes on from another starts with its records,
		// clearings and all, whatever its own run's policy.
		v.clearing.policy = ri.hasContext || ri.hasParent
		if ri.hasContext && !ri.hasParent {
			v.clearing.usePolicy(ri.context)
		}
		v.applyHeader(n, &ri, names)
		v.answer.header(v.f, n, ri.answer)
	case TypeMessage:
		v.messageRecord(n, &ri)
		v.answer.message(v.f, n, text, v.f.Msg())
	case TypeResult:
		v.resultRecord(n, &ri)
	case TypeEnd:
		v.ended = true
		v.f.Conv().SetPendingHint(pendingHint(string(ri.reason)))
		v.answer.end(v.f, string(ri.reason))
		if !slices.Contains(wire.Reasons, string(ri.reason)) {
			v.f.Finding(n, check.Error, "invalid-record", "end record with reason %q (want %s or %s)", ri.reason, strings.Join(wire.Reasons[:len(wire.Reasons)-1], ", "), wire.Reasons[len(wire.Reasons)-1])
		}
	default:
		if !ri.hasType {
			v.f.Finding(n, check.Error, "invalid-record", `record without a "type" (want header, message, result or end)`)
		} else {
			v.f.Finding(n, check.Error, "invalid-record", "unknown record type %q (want header, message, result or end)", ri.typ)
		}
	}
}

// pendingHint is what the calls a transcript ends without answering are
// said to be, from the end record's reason: the run does not go on by
// itself.
func pendingHint(reason string) string {
	const goOn = ": replay --resume goes on with it; --allow-pending accepts it)"
	switch reason {
	case "":
		return ""
	case wire.ReasonInterrupted:
		return " (the run was interrupted" + goOn
	case wire.ReasonError:
		return " (the run ended in an error" + goOn
	}
	return fmt.Sprintf(" (the run ended with reason %q%s", reason, goOn)
}

// checkVersion reports a header of another format version than this
// agentloop reads, or of none, as the reader refuses it.
func (v *agentloopReader) checkVersion(n int) {
	version := 0
	for _, f := range v.fields {
		if string(f.key) == "version" {
			if x, err := strconv.Atoi(string(f.raw)); err == nil {
				version = x
			} else if fieldProblem(fieldInt, f.raw) != "" {
				return // reported as a field of the wrong type
			}
		}
	}
	if err := versionProblem(version); err != nil {
		v.f.Finding(n, check.Error, "invalid-record", "header record: %v", err)
	}
}

func recordName(typ string) string {
	if typ == "" {
		return "a"
	}
	return typ
}

func (v *agentloopReader) applyHeader(n int, ri *recordInfo, names map[string]struct{}) {
	c := v.f.Conv()
	switch wire.Shape(ri.provider) {
	case wire.Chat, wire.Responses:
		if c.Len() == 0 {
			if wire.Shape(ri.provider) != wire.Responses {
				c.Presume(check.ShapeOpenAI)
			} else if c.Presume(check.ShapeResponses) {
				// agentloop sends store false unless --store, and
				// asks for every reasoning item's ciphertext either way.
				c.SetStateless()
			}
		}
		u := string(ri.baseURL)
		c.SetOpenAI(u == "" || strings.Contains(u, "://api.openai.com"))
	case wire.Messages:
		if c.Len() == 0 {
			c.Presume(check.ShapeAnthropic)
		}
	default:
		v.f.Finding(n, check.Error, "invalid-record", "header with provider %q (want openai, responses or anthropic)", ri.provider)
	}
	if ri.hasTools {
		c.SetTools(names)
	}
}

func (v *agentloopReader) messageRecord(n int, ri *recordInfo) {
	c := v.f.Conv()
	seq, seqOK := int64(0), false
	if ri.seqK != check.KindNumber {
		v.f.Finding(n, check.Error, "invalid-record", "message record without a numeric seq")
	} else if s, err := strconv.ParseInt(string(ri.seq), 10, 64); err != nil {
		v.f.Finding(n, check.Error, "invalid-record", "message record with seq %s; want a whole number", ri.seq)
	} else {
		if s <= v.lastSeq {
			v.f.Finding(n, check.Error, "seq-order", "seq %d does not follow seq %d", s, v.lastSeq)
		}
		v.lastSeq = s
		seq, seqOK = s, true
	}
	if ri.messageK != check.KindObject {
		if !ri.hasMessage {
			v.f.Finding(n, check.Error, "invalid-record", `message record without a "message"`)
		} else {
			v.f.Finding(n, check.Error, "invalid-record", `"message" is %s; want the message object`, check.KindName(ri.messageK))
		}
		c.Lost()
		return
	}
	m := v.f.Msg()
	m.SetStep(ri.step)
	c.Add(m)
	v.noteCalls(m)
	if c.Responses() {
		v.reasoned.note(v.f, n, m, ri)
	}
	if seqOK {
		// The results a request cleared are earlier ones; this message's
		// own may be cleared by later requests.
		if ri.cleared != nil {
			v.checkCleared(n, seq, ri.cleared, m)
		}
		v.noteResults(n, seq, m)
	}
	if ri.results == check.KindAbsent || ri.results == check.KindNull {
		return
	}
	if ri.results != check.KindArray {
		v.f.Finding(n, check.Error, "invalid-record", `"results" is %s; want an array`, check.KindName(ri.results))
		return
	}
	v.checkResults(n, m)
}

// resultRecord checks a result record: it must name a call of the last
// assistant message that is still waiting for its result, once.
func (v *agentloopReader) resultRecord(n int, ri *recordInfo) {
	id := ri.callID
	switch ri.callIDK {
	case check.KindString:
	case check.KindAbsent, check.KindNull:
		v.f.Finding(n, check.Error, "invalid-record", `result record without a "call_id"`)
		return
	default:
		return // reported with the types of the fields
	}
	if why := v.f.Conv().RecordResult(id); why != "" {
		v.f.Emit(Finding{File: v.f.Name(), Line: n, Index: -1, Severity: check.Error, Code: "stray-result-record",
			IDs: []string{string(id)}, Message: "result record for " + string(id) + ": " + why})
	}
}

// readResults collects the call_id of each entry of a record's results,
// and what is wrong with the types of the entries' fields.
func (v *agentloopReader) readResults() {
	s := v.f.Scanner()
	s.Enter('[')
	for i := 0; s.Next(']', &i); {
		var id []byte
		if k := s.PeekKind(); k == check.KindObject {
			s.Enter('{')
			for k := 0; s.Next('}', &k); {
				key := s.Key()
				if string(key) == "call_id" && s.PeekKind() == check.KindString {
					id = s.Text()
					continue
				}
				raw := s.SkipRaw()
				if t, ok := resultFields[string(key)]; ok {
					if why := fieldProblem(t, raw); why != "" {
						v.resultProblems = append(v.resultProblems, fmt.Sprintf("results[%d].%s %s", i-1, key, why))
					}
				}
			}
		} else {
			s.Skip()
			if k != check.KindNull {
				v.resultProblems = append(v.resultProblems, fmt.Sprintf("results[%d] is %s; want an object", i-1, check.KindName(k)))
			}
		}
		v.resultIDs = append(v.resultIDs, id)
	}
}

// checkResults compares a record's results with the tool results in its
// message: the same ids, in the same order.
func (v *agentloopReader) checkResults(n int, m *check.Msg) {
	got := m.AppendResults(v.gotIDs[:0])
	defer func() { v.gotIDs = got[:0] }()
	same := len(got) == len(v.resultIDs)
	for i := 0; same && i < len(got); i++ {
		same = bytes.Equal(got[i], v.resultIDs[i])
	}
	if same {
		return
	}
	v.f.Emit(Finding{File: v.f.Name(), Line: n, Index: m.Index(), Severity: check.Error, Code: "results-mismatch",
		IDs:     idStrings(v.resultIDs),
		Message: fmt.Sprintf("results name %s but the message answers %s", listIDs(v.resultIDs), listIDs(got))})
}

func idStrings(ids [][]byte) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

func listIDs(ids [][]byte) string {
	if len(ids) == 0 {
		return "no call"
	}
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		if id == nil {
			b.WriteString("(no id)")
		} else {
			b.Write(id)
		}
	}
	return b.String()
}

// reasonedStep follows the output items of the model request (step) of a
// Responses transcript being read, to tell a reasoning item left out. An
// OpenAI reasoning model's response holds a reasoning item whenever the
// model reasoned (in recorded responses, reasoning_tokens is above zero
// exactly when the output holds one), and the items it wrote after it (a
// function_call, its message) need it in front of them in every request
// that carries them again: "Item 'fc_…' of type 'function_call' was
// provided without its required 'reasoning' item: 'rs_…'" (cline/cline
// #12242; for a message, continuedev/continue#11309). In a request body a
// reasoning item left out cannot be told from one there never was; an
// agentloop transcript says: the record that ends a step carries the
// request's usage, and its reasoning tokens say the model reasoned.
//
// A call is always sent again, with its output: it is reported at once. A
// message is sent again only by a request after it, which a later step of
// the transcript shows (a run continued with run -c starts with the records
// of the one it continues): it is reported when that step comes.
type reasonedStep struct {
	step      int64
	reasoning bool // the step holds a reasoning item
	// first is the first item of the step that needs the reasoning
	// item: its line, index, type and id.
	first struct {
		line, index int
		typ, id     string
	}
	held *Finding // a message's finding, until a later step sends it again
}

// note takes the message of the record at line n, of step ri.step, and
// reports the step's first item that needs its reasoning item when the
// step's usage says the model reasoned and no reasoning item is there.
func (r *reasonedStep) note(f *check.File, n int, m *check.Msg, ri *recordInfo) {
	if ri.step != r.step {
		if r.held != nil && ri.step > r.step {
			f.Emit(*r.held)
		}
		*r = reasonedStep{step: ri.step}
	}
	switch t := string(m.Type()); {
	case t == "reasoning":
		r.reasoning = true
	case r.first.typ != "":
	case t == "function_call", t == "custom_tool_call", t == "message" && string(m.Role()) == "assistant":
		r.first.line, r.first.index, r.first.typ, r.first.id = n, m.Index(), t, string(m.ID())
	}
	if ri.usage == nil || r.reasoning || r.first.typ == "" {
		return
	}
	tokens := reasoningTokens(ri.usage)
	if tokens <= 0 {
		return
	}
	what := r.first.typ
	if r.first.id != "" {
		what += " " + r.first.id
	}
	fd := Finding{File: f.Name(), Line: r.first.line, Index: r.first.index, Severity: check.Error, Code: "missing-reasoning",
		IDs: []string{r.first.id},
		Message: fmt.Sprintf("%s of step %d has no reasoning item in front of it, though the step's usage (line %d) records %d reasoning tokens: "+
			"the reasoning item was left out, and the API refuses a request that carries the %s without it", what, r.step, n, tokens, r.first.typ)}
	if r.first.typ == "message" {
		r.held = &fd
	} else {
		f.Emit(fd)
	}
	r.first.typ = "" // said once a step
	r.reasoning = true
}

// reasoningTokens reads a usage object's reasoning_tokens; 0 when it has
// none.
func reasoningTokens(usage []byte) int64 {
	if !bytes.Contains(usage, []byte(`"reasoning_tokens"`)) {
		return 0
	}
	var u Usage
	if json.Unmarshal(usage, &u) != nil {
		return 0
	}
	return u.ReasoningTokens
}
