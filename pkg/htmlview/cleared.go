package htmlview

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Clearings says of each tool result that requests carried cleared (a
// placeholder sent in its place, the transcript keeping it whole) the step
// whose request was the first to. The page and --show mark a result from
// it; both read it off the turn records' cleared entries, never off the
// result's text.
type Clearings map[clearedKey]int

// clearedKey is a result by the seq of the message that holds it and its
// call id: one message answers several calls on Anthropic.
type clearedKey struct {
	seq int
	id  string
}

// ClearingsOf reads the clearings of a conversation's messages.
func ClearingsOf(recs []transcript.Message) Clearings {
	c := Clearings{}
	for i := range recs {
		c.Add(&recs[i])
	}
	return c
}

// Add records the results rec's request was the first to carry cleared.
func (c Clearings) Add(rec *transcript.Message) {
	for _, e := range rec.Cleared {
		c[clearedKey{e.Seq, e.CallID}] = rec.Step
	}
}

// Step is the step whose request first carried cleared the result of
// call id held by message seq.
func (c Clearings) Step(seq int, id string) (int, bool) {
	step, ok := c[clearedKey{seq, id}]
	return step, ok
}

// Note says when the result of call id held by message seq was cleared,
// "" if it never was.
func (c Clearings) Note(seq int, id string) string {
	if step, ok := c.Step(seq, id); ok {
		return fmt.Sprintf("cleared from step %d on", step)
	}
	return ""
}

// ClearedList names the results a turn's request was the first to carry
// cleared: tool, call id and size, each name made safe by safe.
func ClearedList(recs []transcript.Message, safe func(string) string) string {
	var parts []string
	for _, rec := range recs {
		for _, e := range rec.Cleared {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", safe(e.Name), safe(e.CallID), bytesize.Decimal(e.Bytes)))
		}
	}
	return strings.Join(parts, ", ")
}
