package transcript

import (
	"encoding/json"
	"hash/maphash"
	"strconv"
	"strings"
)

// ClearedPrefix starts every placeholder that stands in for a cleared tool
// result, so that a reader (or the model) tells it from a result.
const ClearedPrefix = "[cleared"

// clearedCheck follows the cleared entries of an agentloop transcript: each
// names a tool result of an earlier message, not cleared before, and a
// placeholder that says it is one. It keeps, only in transcripts whose
// header records a clearing policy or a parent (whose records it starts
// with), a hash of every result's message and call id (the memory grows
// with the calls, as the id checks' does).
type clearedCheck struct {
	policy  bool           // the header records a clearing policy
	results map[uint64]int // (seq, call id) → the line of the message
	cleared map[uint64]int // (seq, call id) → the line that cleared it
	seed    maphash.Seed
}

func (c *clearedCheck) key(seq int64, id []byte) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(strconv.FormatInt(seq, 10))
	h.WriteByte(0)
	h.Write(id)
	return h.Sum64()
}

// clearedFields are what the check reads of an entry.
type clearedEntry struct {
	CallID      *string `json:"call_id"`
	Seq         *int64  `json:"seq"`
	Placeholder *string `json:"placeholder"`
}

// noteResults remembers the results a message record holds.
func (v *validator) noteResults(n int, seq int64, m *wireMsg) {
	c := &v.clearing
	if !c.policy {
		return
	}
	if c.results == nil {
		c.results, c.cleared, c.seed = map[uint64]int{}, map[uint64]int{}, maphash.MakeSeed()
	}
	switch {
	case string(m.role) == "tool":
		c.results[c.key(seq, m.toolCallID)] = n
	case string(m.typ) == "function_call_output":
		c.results[c.key(seq, m.callID)] = n
	default:
		for i := range m.blocks {
			if string(m.blocks[i].typ) == "tool_result" {
				c.results[c.key(seq, m.blocks[i].toolUseID)] = n
			}
		}
	}
}

// checkCleared checks the cleared entries of the message record at line n,
// whose seq is seq.
func (v *validator) checkCleared(n int, seq int64, raw []byte) {
	c := &v.clearing
	finding := func(format string, args ...any) {
		v.fileFinding(n, Error, "cleared-result", format, args...)
	}
	var entries []clearedEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		finding(`"cleared" is not an array of entries {call_id, name, seq, bytes, placeholder}`)
		return
	}
	if !c.policy {
		finding("results are cleared, but the header records no clearing policy (\"context\") and continues no other transcript")
		return
	}
	for i, e := range entries {
		if e.CallID == nil || e.Seq == nil || e.Placeholder == nil {
			finding("cleared[%d] lacks call_id, seq or placeholder", i)
			continue
		}
		if !strings.HasPrefix(*e.Placeholder, ClearedPrefix) {
			finding("cleared[%d]: the placeholder of %s does not start with %q: %s", i, *e.CallID, ClearedPrefix, strconv.Quote(*e.Placeholder))
		}
		if *e.Seq >= seq {
			finding("cleared[%d]: the result of %s is at seq %d, not before this message (seq %d)", i, *e.CallID, *e.Seq, seq)
			continue
		}
		k := c.key(*e.Seq, []byte(*e.CallID))
		if _, ok := c.results[k]; !ok {
			finding("cleared[%d]: message seq %d holds no result of %s", i, *e.Seq, *e.CallID)
			continue
		}
		if line, dup := c.cleared[k]; dup {
			finding("cleared[%d]: the result of %s was cleared before (line %d)", i, *e.CallID, line)
			continue
		}
		c.cleared[k] = n
	}
}
