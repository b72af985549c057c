package batch

import (
	"encoding/json"
	"reflect"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Stage is how far an item's transcript says it got.
type Stage int

// Stages.
const (
	// Unstarted: no model turn is on record, so no tool ran; the item
	// starts over.
	Unstarted Stage = iota
	// Ended: the run ended (its end record says how, and not that it was
	// interrupted) but its result was not written: it is read from the
	// transcript, and nothing runs.
	Ended
	// Stopped: the run was interrupted or killed mid-way; it is continued
	// from the transcript, the calls left pending first.
	Stopped
)

// StageOf reads how far a recorded conversation got.
func StageOf(conv *transcript.Conversation, d agent.Dialect) Stage {
	if conv.End != nil && conv.End.Reason != transcript.ReasonInterrupted {
		return Ended
	}
	if len(agent.Turns(d, messages(conv))) > 0 {
		return Stopped
	}
	return Unstarted
}

// messages are a conversation's messages as the loop takes them.
func messages(conv *transcript.Conversation) []agent.Message {
	msgs := make([]agent.Message, len(conv.Messages))
	for i, m := range conv.Messages {
		msgs[i] = m.Message
	}
	return msgs
}

// FromTranscript is the result an Ended conversation records; the caller
// sets the exit status, the item's fields and the time taken.
func FromTranscript(conv *transcript.Conversation, d agent.Dialect) Result {
	r := Result{Reason: conv.End.Reason, Steps: conv.End.Steps, Usage: conv.End.Usage, Error: conv.End.Error, Time: conv.End.Time}
	if h := conv.Header; h != nil {
		r.Provider, r.Model = h.Provider, h.Model
		if !h.Time.IsZero() && !conv.End.Time.IsZero() {
			r.DurationMS = conv.End.Time.Sub(h.Time).Milliseconds()
		}
	}
	switch r.Reason {
	case transcript.ReasonStop, transcript.ReasonMaxTokens, transcript.ReasonRefusal:
		msgs := messages(conv)
		if turns := agent.Turns(d, msgs); len(turns) > 0 {
			last := turns[len(turns)-1]
			if t, err := agent.ParseTurn(d, msgs[last.Start:last.End]); err == nil {
				r.Answer = t.Text
			}
		}
	}
	return r
}

// SamePrompt reports whether the conversation starts with the message
// first: the prompt an item would send now. An input edited since the item
// ran is not continued as if it were the same item.
func SamePrompt(conv *transcript.Conversation, first agent.Message) bool {
	if len(conv.Messages) == 0 {
		return false
	}
	var a, b any
	if json.Unmarshal(conv.Messages[0].Message, &a) != nil || json.Unmarshal(first, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}
