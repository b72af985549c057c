package transcript

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
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
}

func (v *validator) record(text []byte, n int, complete bool) {
	s := &v.sc
	s.reset(text)
	if s.peekKind() != kindObject {
		s.skip()
		s.end()
		if s.err != nil {
			v.notJSON(text, n, complete)
			return
		}
		v.fileFinding(n, Error, "invalid-record", "line is %s, not a transcript record", kindName(kindOf(bytes.TrimSpace(text)[0])))
		return
	}
	if v.conv.v == nil {
		v.startConv(n, kindTranscript, "")
	}
	c := &v.conv
	m := &v.msg
	m.reset(n, c.n)
	var ri recordInfo
	v.resultIDs = v.resultIDs[:0]
	var names map[string]struct{}
	s.enter('{')
	for k := 0; s.next('}', &k); {
		switch string(s.key()) {
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
		case "tools":
			ri.hasTools = true
			names = v.readTools(n)
			continue
		}
		s.skip()
	}
	s.end()
	if s.err != nil {
		v.notJSON(text, n, complete)
		return
	}
	v.records++
	if v.records == 1 && string(ri.typ) != TypeHeader {
		v.fileFinding(n, Error, "missing-header", "the first record is not a header: the provider and tools are unknown")
	}
	if v.ended {
		v.fileFinding(n, Error, "record-after-end", "%s record after the end record", recordName(string(ri.typ)))
	}
	switch string(ri.typ) {
	case TypeHeader:
		if v.header {
			v.fileFinding(n, Error, "duplicate-header", "second header record (the first was before line %d)", n)
			return
		}
		v.header = true
		if v.records > 1 {
			v.fileFinding(n, Error, "missing-header", "the header is not the first record")
		}
		v.applyHeader(n, &ri, names)
	case TypeMessage:
		v.messageRecord(n, &ri)
	case TypeEnd:
		v.ended = true
		switch string(ri.reason) {
		case ReasonStop, ReasonMaxSteps, ReasonMaxTokens, ReasonRefusal, ReasonError, ReasonInterrupted:
		default:
			v.fileFinding(n, Error, "invalid-record", "end record with reason %q (want stop, max_steps, max_tokens, refusal, error or interrupted)", ri.reason)
		}
	default:
		if !ri.hasType {
			v.fileFinding(n, Error, "invalid-record", `record without a "type" (want header, message or end)`)
		} else {
			v.fileFinding(n, Error, "invalid-record", "unknown record type %q (want header, message or end)", ri.typ)
		}
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
	case "openai":
		if v.opts.Shape == "" && c.n == 0 {
			c.shape = shapeOpenAI
		}
		u := string(ri.baseURL)
		c.openAI = u == "" || strings.Contains(u, "://api.openai.com")
	case "anthropic":
		if v.opts.Shape == "" && c.n == 0 {
			c.shape = shapeAnthropic
		}
	default:
		v.fileFinding(n, Error, "invalid-record", "header with provider %q (want openai or anthropic)", ri.provider)
	}
	if ri.hasTools {
		// The header's tools outlive this line; copy the set.
		own := make(map[string]struct{}, len(names))
		for k := range names {
			own[k] = struct{}{}
		}
		c.setTools(own)
	}
}

func (v *validator) messageRecord(n int, ri *recordInfo) {
	c := &v.conv
	if ri.seqK != kindNumber {
		v.fileFinding(n, Error, "invalid-record", "message record without a numeric seq")
	} else if seq, err := strconv.ParseInt(string(ri.seq), 10, 64); err != nil {
		v.fileFinding(n, Error, "invalid-record", "message record with seq %s; want a whole number", ri.seq)
	} else {
		if seq <= v.lastSeq {
			v.fileFinding(n, Error, "seq-order", "seq %d does not follow seq %d", seq, v.lastSeq)
		}
		v.lastSeq = seq
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
	c.add(m)
	if ri.results == kindAbsent || ri.results == kindNull {
		return
	}
	if ri.results != kindArray {
		v.fileFinding(n, Error, "invalid-record", `"results" is %s; want an array`, kindName(ri.results))
		return
	}
	v.checkResults(n, m)
}

// readResults collects the call_id of each entry of a record's results.
func (v *validator) readResults() {
	s := &v.sc
	s.enter('[')
	for i := 0; s.next(']', &i); {
		var id []byte
		if s.peekKind() == kindObject {
			s.enter('{')
			for k := 0; s.next('}', &k); {
				if string(s.key()) == "call_id" && s.peekKind() == kindString {
					id = s.text()
					continue
				}
				s.skip()
			}
		} else {
			s.skip()
		}
		v.resultIDs = append(v.resultIDs, id)
	}
}

// checkResults compares a record's results with the tool results in its
// message: the same ids, in the same order.
func (v *validator) checkResults(n int, m *wireMsg) {
	got := v.gotIDs[:0]
	defer func() { v.gotIDs = got[:0] }()
	if string(m.role) == "tool" {
		got = append(got, m.toolCallID)
	} else {
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
