package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The record layer of agentloop's own transcripts: a header first and once,
// message records in seq order, an end record last, and results that name
// the tool results their message holds.

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
	callIDK    byte  // the kind of "call_id" (result records)
	step       int64 // a message record's step, when it is a whole number
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
func (v *validator) checkFields(n int, typ string, ri *recordInfo) {
	want, ok := recordFields[typ]
	if !ok {
		return // an unknown type is reported on its own
	}
	if ri.toolsKind != kindAbsent {
		v.fileFinding(n, Error, "invalid-record", "%s record: \"tools\" is %s; want an array", typ, kindName(ri.toolsKind))
	}
	for _, f := range v.fields {
		if t, ok := want[string(f.key)]; ok {
			if why := fieldProblem(t, f.raw); why != "" {
				v.fileFinding(n, Error, "invalid-record", "%s record: %q %s", typ, f.key, why)
			}
		}
	}
	if typ == TypeMessage {
		for _, p := range v.resultProblems {
			v.fileFinding(n, Error, "invalid-record", "message record: %s", p)
		}
	}
}

// fieldProblem says what is wrong with a value for a field of type t, or
// returns "".
func fieldProblem(t fieldType, raw []byte) string {
	k := kindAbsent
	if len(raw) > 0 {
		k = kindOf(raw[0])
	}
	if k == kindNull {
		return ""
	}
	switch t {
	case fieldString:
		if k != kindString {
			return "is " + kindName(k) + "; want a string"
		}
	case fieldInt:
		if k != kindNumber {
			return "is " + kindName(k) + "; want a whole number"
		}
		if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
			return fmt.Sprintf("is %s; want a whole number", raw)
		}
	case fieldNumber:
		if k != kindNumber {
			return "is " + kindName(k) + "; want a number"
		}
	case fieldBool:
		if k != kindBool {
			return "is " + kindName(k) + "; want true or false"
		}
	case fieldTime:
		if k != kindString {
			return "is " + kindName(k) + "; want a time such as \"2026-01-02T15:04:05Z\""
		}
		var tm time.Time
		if err := tm.UnmarshalJSON(raw); err != nil {
			return fmt.Sprintf("is %s; want an RFC 3339 time such as \"2026-01-02T15:04:05Z\"", raw)
		}
	case fieldStrings:
		var ss []string
		if k != kindArray || json.Unmarshal(raw, &ss) != nil {
			return "is " + kindName(k) + "; want an array of strings"
		}
	case fieldUsage:
		if k != kindObject {
			return "is " + kindName(k) + "; want an object of token counts"
		}
		var u Usage
		if err := json.Unmarshal(raw, &u); err != nil {
			return "holds a count that is not a whole number"
		}
	}
	return ""
}

// objectLine starts reading a line that must hold a JSON object, what the
// format calls it. Any other line is reported (not JSON, or JSON of another
// kind) and objectLine returns false.
func (v *validator) objectLine(text []byte, n int, complete bool, what string) bool {
	s := &v.sc
	s.reset(text)
	if s.peekKind() == kindObject {
		return true
	}
	s.skip()
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return false
	}
	v.fileFinding(n, Error, "invalid-record", "line is %s, not %s", kindName(kindOf(bytes.TrimSpace(text)[0])), what)
	return false
}

func (v *validator) record(text []byte, n int, complete bool) {
	if !v.objectLine(text, n, complete, "a transcript record") {
		return
	}
	s := &v.sc
	if v.conv.v == nil {
		v.startConv(n, kindTranscript, "")
	}
	c := &v.conv
	m := &v.msg
	m.reset(n, c.n)
	var ri recordInfo
	v.resultIDs = v.resultIDs[:0]
	var names map[string]struct{}
	v.fields = v.fields[:0]
	v.resultProblems = v.resultProblems[:0]
	s.enter('{')
	for k := 0; s.next('}', &k); {
		key := s.key()
		switch string(key) {
		case "type":
			ri.hasType = true
			if s.peekKind() == kindString {
				ri.typ = s.text()
				continue
			}
		case "seq":
			ri.seqK = s.peekKind()
			if ri.seqK == kindNumber {
				ri.seq = s.skipRaw()
				continue
			}
		case "message":
			ri.hasMessage = true
			ri.messageK = s.peekKind()
			if ri.messageK == kindObject {
				s.readMsg(m)
				continue
			}
		case "results":
			ri.results = s.peekKind()
			if ri.results == kindArray {
				v.readResults()
				continue
			}
		case "provider":
			if s.peekKind() == kindString {
				ri.provider = s.text()
				continue
			}
		case "step":
			// Also checked for its type with the other fields, below.
			if s.peekKind() == kindNumber {
				raw := s.skipRaw()
				ri.step, _ = strconv.ParseInt(string(raw), 10, 64)
				v.fields = append(v.fields, rawField{key: key, raw: raw})
				continue
			}
		case "call_id":
			if ri.callIDK = s.peekKind(); ri.callIDK == kindString {
				ri.callID = s.text()
				continue
			}
		case "base_url":
			if s.peekKind() == kindString {
				ri.baseURL = s.text()
				continue
			}
		case "reason":
			if s.peekKind() == kindString {
				ri.reason = s.text()
				continue
			}
		case "context":
			if s.peekKind() == kindObject {
				ri.hasContext, ri.context = true, s.skipRaw()
				continue
			}
		case "parent":
			ri.hasParent = s.peekKind() == kindString
		case "cleared":
			if s.peekKind() != kindNull {
				ri.cleared = s.skipRaw()
				continue
			}
		case "tools":
			if k := s.peekKind(); k != kindArray && k != kindNull {
				ri.toolsKind = k
				break
			}
			ri.hasTools = true
			names = v.readTools(n)
			continue
		}
		// Every other field is checked for its type once the record's
		// type is known (it may come last).
		v.fields = append(v.fields, rawField{key: key, raw: s.skipRaw()})
	}
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return
	}
	v.badText(n)
	v.checkFields(n, string(ri.typ), &ri)
	v.records++
	if v.records == 1 && string(ri.typ) != TypeHeader {
		v.fileFinding(n, Error, "missing-header", "the first record is not a header: the provider and tools are unknown")
	}
	if v.ended {
		v.fileFinding(n, Error, "record-after-end", "%s record after the end record", recordName(string(ri.typ)))
	}
	switch string(ri.typ) {
	case TypeHeader:
		if v.headerLine > 0 {
			v.fileFinding(n, Error, "duplicate-header", "second header record (the first is at line %d)", v.headerLine)
			return
		}
		v.headerLine = n
		v.checkVersion(n)
		if v.records > 1 {
			v.fileFinding(n, Error, "missing-header", "the header is not the first record")
		}
		// A transcript that goes on from another starts with its records,
		// clearings and all, whatever its own run's policy.
		v.clearing.policy = ri.hasContext || ri.hasParent
		if ri.hasContext && !ri.hasParent {
			v.clearing.usePolicy(ri.context)
		}
		v.applyHeader(n, &ri, names)
	case TypeMessage:
		v.messageRecord(n, &ri)
	case TypeResult:
		v.resultRecord(n, &ri)
	case TypeEnd:
		v.ended = true
		v.endReason = string(ri.reason)
		if !slices.Contains(Reasons, string(ri.reason)) {
			v.fileFinding(n, Error, "invalid-record", "end record with reason %q (want %s or %s)", ri.reason, strings.Join(Reasons[:len(Reasons)-1], ", "), Reasons[len(Reasons)-1])
		}
	default:
		if !ri.hasType {
			v.fileFinding(n, Error, "invalid-record", `record without a "type" (want header, message, result or end)`)
		} else {
			v.fileFinding(n, Error, "invalid-record", "unknown record type %q (want header, message, result or end)", ri.typ)
		}
	}
}

// checkVersion reports a header of another format version than this
// agentloop reads, or of none, as the reader refuses it.
func (v *validator) checkVersion(n int) {
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
		v.fileFinding(n, Error, "invalid-record", "header record: %v", err)
	}
}

func recordName(typ string) string {
	if typ == "" {
		return "a"
	}
	return typ
}

func (v *validator) applyHeader(n int, ri *recordInfo, names map[string]struct{}) {
	c := &v.conv
	switch string(ri.provider) {
	case "openai", "responses":
		if v.opts.Shape == "" && c.n == 0 {
			c.shape = shapeOpenAI
			if string(ri.provider) == "responses" {
				c.shape = shapeResponses
				// agentloop sends store false unless --store, and
				// asks for every reasoning item's ciphertext either way.
				c.stateless = true
			}
		}
		u := string(ri.baseURL)
		c.openAI = u == "" || strings.Contains(u, "://api.openai.com")
	case "anthropic":
		if v.opts.Shape == "" && c.n == 0 {
			c.shape = shapeAnthropic
		}
	default:
		v.fileFinding(n, Error, "invalid-record", "header with provider %q (want openai, responses or anthropic)", ri.provider)
	}
	if ri.hasTools {
		c.setTools(names)
	}
}

func (v *validator) messageRecord(n int, ri *recordInfo) {
	c := &v.conv
	seq, seqOK := int64(0), false
	if ri.seqK != kindNumber {
		v.fileFinding(n, Error, "invalid-record", "message record without a numeric seq")
	} else if s, err := strconv.ParseInt(string(ri.seq), 10, 64); err != nil {
		v.fileFinding(n, Error, "invalid-record", "message record with seq %s; want a whole number", ri.seq)
	} else {
		if s <= v.lastSeq {
			v.fileFinding(n, Error, "seq-order", "seq %d does not follow seq %d", s, v.lastSeq)
		}
		v.lastSeq = s
		seq, seqOK = s, true
	}
	if ri.messageK != kindObject {
		if !ri.hasMessage {
			v.fileFinding(n, Error, "invalid-record", `message record without a "message"`)
		} else {
			v.fileFinding(n, Error, "invalid-record", `"message" is %s; want the message object`, kindName(ri.messageK))
		}
		c.lost()
		return
	}
	m := &v.msg
	m.step = ri.step
	c.add(m)
	v.noteCalls(m)
	if seqOK {
		// The results a request cleared are earlier ones; this message's
		// own may be cleared by later requests.
		if ri.cleared != nil {
			v.checkCleared(n, seq, ri.cleared, m)
		}
		v.noteResults(n, seq, m)
	}
	if ri.results == kindAbsent || ri.results == kindNull {
		return
	}
	if ri.results != kindArray {
		v.fileFinding(n, Error, "invalid-record", `"results" is %s; want an array`, kindName(ri.results))
		return
	}
	v.checkResults(n, m)
}

// resultRecord checks a result record: it must name a call of the last
// assistant message that is still waiting for its result, once.
func (v *validator) resultRecord(n int, ri *recordInfo) {
	id := ri.callID
	switch ri.callIDK {
	case kindString:
	case kindAbsent, kindNull:
		v.fileFinding(n, Error, "invalid-record", `result record without a "call_id"`)
		return
	default:
		return // reported with the types of the fields
	}
	if why := v.conv.recordResult(id); why != "" {
		v.emitFinding(Finding{File: v.name, Line: n, Index: -1, Severity: Error, Code: "stray-result-record",
			IDs: []string{string(id)}, Message: "result record for " + string(id) + ": " + why})
	}
}

// readResults collects the call_id of each entry of a record's results,
// and what is wrong with the types of the entries' fields.
func (v *validator) readResults() {
	s := &v.sc
	s.enter('[')
	for i := 0; s.next(']', &i); {
		var id []byte
		if k := s.peekKind(); k == kindObject {
			s.enter('{')
			for k := 0; s.next('}', &k); {
				key := s.key()
				if string(key) == "call_id" && s.peekKind() == kindString {
					id = s.text()
					continue
				}
				raw := s.skipRaw()
				if t, ok := resultFields[string(key)]; ok {
					if why := fieldProblem(t, raw); why != "" {
						v.resultProblems = append(v.resultProblems, fmt.Sprintf("results[%d].%s %s", i-1, key, why))
					}
				}
			}
		} else {
			s.skip()
			if k != kindNull {
				v.resultProblems = append(v.resultProblems, fmt.Sprintf("results[%d] is %s; want an object", i-1, kindName(k)))
			}
		}
		v.resultIDs = append(v.resultIDs, id)
	}
}

// checkResults compares a record's results with the tool results in its
// message: the same ids, in the same order.
func (v *validator) checkResults(n int, m *wireMsg) {
	got := v.gotIDs[:0]
	defer func() { v.gotIDs = got[:0] }()
	switch {
	case string(m.role) == "tool":
		got = append(got, m.toolCallID)
	case len(m.typ) > 0 && !m.hasRole:
		// A Responses function_call_output item answers its call_id.
		if bytes.HasSuffix(m.typ, []byte("_output")) {
			got = append(got, m.callID)
		}
	default:
		for i := range m.blocks {
			if string(m.blocks[i].typ) == "tool_result" {
				got = append(got, m.blocks[i].toolUseID)
			}
		}
	}
	same := len(got) == len(v.resultIDs)
	for i := 0; same && i < len(got); i++ {
		same = bytes.Equal(got[i], v.resultIDs[i])
	}
	if same {
		return
	}
	v.emitFinding(Finding{File: v.name, Line: n, Index: m.index, Severity: Error, Code: "results-mismatch",
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
