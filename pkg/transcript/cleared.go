package transcript

import (
	"encoding/json"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
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

	// The call names, to check an entry's name and the tools whose
	// results are never cleared: call id → name of the last call of that
	// id, (seq, call id) → name of the call a result answered (a server
	// may use an id again), the names interned.
	names       map[uint64]string
	resultNames map[uint64]string
	interned    map[string]string

	// The header's policy, for a run that started the transcript (one that
	// goes on from another starts with the clearings of its own policy):
	// the last keep results are never cleared, nor those of keepTools.
	// latest holds the last keep results noted, oldest first.
	rules     bool
	keep      int
	keepTools []string
	latest    []uint64
}

// usePolicy reads the header's clearing policy (its "context" object).
func (c *clearedCheck) usePolicy(raw []byte) {
	var p struct {
		Keep      int      `json:"keep"`
		KeepTools []string `json:"keep_tools"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Keep < 0 {
		return
	}
	c.rules, c.keep, c.keepTools = true, p.Keep, p.KeepTools
}

func (c *clearedCheck) init() {
	if c.results == nil {
		c.results, c.cleared, c.seed = map[uint64]int{}, map[uint64]int{}, maphash.MakeSeed()
		c.names, c.resultNames, c.interned = map[uint64]string{}, map[uint64]string{}, map[string]string{}
	}
}

func (c *clearedCheck) idKey(id []byte) uint64 {
	return maphash.Bytes(c.seed, id)
}

// nameCall remembers the name of call id.
func (c *clearedCheck) nameCall(id, name []byte) {
	if len(id) == 0 {
		return
	}
	n, ok := c.interned[string(name)]
	if !ok {
		n = string(name)
		c.interned[n] = n
	}
	c.names[c.idKey(id)] = n
}

// noteCalls remembers the names of the calls a message makes.
func (v *agentloopReader) noteCalls(m *check.Msg) {
	c := &v.clearing
	if !c.policy {
		return
	}
	c.init()
	m.Calls(c.nameCall)
}

// noteResult remembers a result a message record holds.
func (c *clearedCheck) noteResult(n int, seq int64, id []byte) {
	k := c.key(seq, id)
	c.results[k] = n
	if name, ok := c.names[c.idKey(id)]; ok {
		c.resultNames[k] = name
	}
	if c.rules && c.keep > 0 {
		if len(c.latest) == c.keep {
			c.latest = append(c.latest[:0], c.latest[1:]...)
		}
		c.latest = append(c.latest, k)
	}
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
	Name        *string `json:"name"`
	Seq         *int64  `json:"seq"`
	Placeholder *string `json:"placeholder"`
}

// noteResults remembers the results a message record holds.
func (v *agentloopReader) noteResults(n int, seq int64, m *check.Msg) {
	c := &v.clearing
	if !c.policy {
		return
	}
	c.init()
	if len(m.Role()) == 0 && len(m.Type()) > 0 && string(m.Type()) != "function_call_output" {
		return // the other output items are never cleared
	}
	v.gotIDs = m.AppendResults(v.gotIDs[:0])
	for _, id := range v.gotIDs {
		c.noteResult(n, seq, id)
	}
}

// checkCleared checks the cleared entries of the message record at line n,
// whose seq is seq and message m.
func (v *agentloopReader) checkCleared(n int, seq int64, raw []byte, m *check.Msg) {
	c := &v.clearing
	finding := func(format string, args ...any) {
		v.f.Finding(n, check.Error, "cleared-result", format, args...)
	}
	// A request's clearings go on the model's answer to it, not on what
	// the conversation sent.
	if role := string(m.Role()); role == "user" || role == "tool" || role == "system" || role == "developer" || strings.HasSuffix(string(m.Type()), "_output") {
		what := role + " message"
		if role == "" {
			what = string(m.Type()) + " item"
		}
		finding(`"cleared" on a %s: a request's clearings are recorded on the answer it got`, what)
		return
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
		name, named := c.resultNames[k]
		if named && e.Name != nil && *e.Name != name {
			finding("cleared[%d]: names %s %s, but the call was to %s", i, *e.Name, *e.CallID, name)
		}
		if !c.rules {
			continue
		}
		if slices.Contains(c.latest, k) {
			finding("cleared[%d]: the result of %s is one of the last %d before this request, which the header's policy (keep %d) never clears", i, *e.CallID, c.keep, c.keep)
		}
		if named && slices.Contains(c.keepTools, name) {
			finding("cleared[%d]: the result of %s is from %s, whose results the header's policy (keep_tools) never clears", i, *e.CallID, name)
		}
	}
}
