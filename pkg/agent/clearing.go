package agent

import (
	"fmt"
	"slices"

	"github.com/agentloop/agentloop/internal/bytesize"
)

// ContextPolicy says when old tool results are cleared from what is sent.
// A cleared result stays answered under its call id: its content is
// replaced, in the request and every later one, by a short placeholder
// saying what it was. The conversation itself (and the transcript) keeps it
// whole.
type ContextPolicy struct {
	// Limit is the most input tokens a request may carry; 0 clears nothing.
	Limit int64
	// Keep is how many of the latest results are never cleared.
	Keep int
	// KeepTools are tools whose results are never cleared.
	KeepTools []string
	// ClearAtLeast is how many tokens a clearing frees when it can: one
	// clearing changes the start of every later request, which the
	// provider's prompt cache then reads afresh, so results are cleared in
	// batches rather than one a step. 0 is a fifth of Limit.
	ClearAtLeast int64
}

// On reports whether the policy clears anything.
func (p *ContextPolicy) On() bool { return p != nil && p.Limit > 0 }

// Batch is the least a clearing frees.
func (p *ContextPolicy) Batch() int64 {
	if p.ClearAtLeast > 0 {
		return p.ClearAtLeast
	}
	return p.Limit / 5
}

// ResultRef is one tool result of a conversation as clearing sees it.
type ResultRef struct {
	// Msg is the index of the message that holds it.
	Msg    int
	CallID string
	// Name is the tool's.
	Name string
	// Bytes is the size of its content as sent.
	Bytes int
	// Cleared is set once it has been replaced by a placeholder.
	Cleared bool
	// Unread is set while no request has carried it: the model has not
	// read it yet.
	Unread bool
}

// ClearPlan is what clearing decided for one request.
type ClearPlan struct {
	// Clear are the indexes, in the refs given, of the results to clear
	// now, oldest first.
	Clear []int
	// Tokens is the request's estimate once they are cleared.
	Tokens int64
	// Fits reports whether that is within the limit.
	Fits bool
}

// Plan decides which results to clear before a request estimated at
// tokens input tokens, perByte tokens a byte of content. Nothing is cleared
// while the request fits. Otherwise the oldest results that may be cleared
// go first (never the last Keep, never those of KeepTools, never one whose
// placeholder would be no shorter), until the request fits and at least
// ClearAtLeast tokens are freed; when no batch that large is to be had,
// every result that may be cleared is. Results the model has not read yet
// come after all the others, and only as far as the request needs to fit:
// never to make up a batch. When even clearing all it may does not make
// the request fit, Fits is false.
func (p *ContextPolicy) Plan(refs []ResultRef, tokens int64, perByte float64) ClearPlan {
	if !p.On() || tokens <= p.Limit {
		return ClearPlan{Tokens: tokens, Fits: true}
	}
	need := tokens - p.Limit
	target := max(need, p.Batch())
	var plan ClearPlan
	var freed int64
	for i := range p.clearable(refs, false) {
		if freed >= target {
			break
		}
		freed += freedTokens(refs[i], perByte)
		plan.Clear = append(plan.Clear, i)
	}
	for i := range p.clearable(refs, true) {
		if freed >= need {
			break
		}
		freed += freedTokens(refs[i], perByte)
		plan.Clear = append(plan.Clear, i)
	}
	slices.Sort(plan.Clear)
	plan.Tokens = tokens - freed
	plan.Fits = plan.Tokens <= p.Limit
	return plan
}

// clearable yields the indexes of the results the policy may clear, oldest
// first: those the model has read, or those it has not.
func (p *ContextPolicy) clearable(refs []ResultRef, unread bool) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		for i := range len(refs) - max(p.Keep, 0) {
			r := refs[i]
			if r.Unread != unread || r.Cleared || slices.Contains(p.KeepTools, r.Name) || freedTokens(r, 1) <= 0 {
				continue
			}
			if !yield(i) {
				return
			}
		}
	}
}

// freedTokens is what clearing a result saves.
func freedTokens(r ResultRef, perByte float64) int64 {
	return int64(float64(r.Bytes-len(placeholderJSON(r))) * perByte)
}

// Placeholder is the text that stands in for a cleared result: it says what
// was there and how to have it again, and starts with "[cleared" so that a
// reader of the transcript (or the model) can tell it from a result.
func Placeholder(name string, bytes int) string {
	return fmt.Sprintf("[cleared to save context: %s from %s; call it again if you need it]", bytesize.Decimal(bytes), name)
}

// placeholderJSON is a result's placeholder as a JSON string.
func placeholderJSON(r ResultRef) []byte {
	return quoteJSON(Placeholder(r.Name, r.Bytes))
}
