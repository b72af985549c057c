package batch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
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

// StageOf reads how far a recorded conversation got. A conversation whose
// last turn answers without calling a tool has ended even without its end
// record (a kill came between the two).
func StageOf(conv *transcript.Conversation, d agent.Dialect) Stage {
	if conv.End != nil && conv.End.Reason != wire.ReasonInterrupted {
		return Ended
	}
	msgs := messages(conv)
	turns := agent.Turns(d, msgs)
	if len(turns) == 0 {
		return Unstarted
	}
	if last := turns[len(turns)-1]; last.End == len(msgs) {
		if t, err := agent.ParseTurn(d, msgs[last.Start:]); err == nil && len(t.Calls) == 0 {
			return Ended
		}
	}
	return Stopped
}

// FromTranscript is the result an Ended conversation records; the caller
// sets the exit status, the item's fields and the attempts.
func FromTranscript(conv *transcript.Conversation, d agent.Dialect) Result {
	msgs := messages(conv)
	turns := agent.Turns(d, msgs)
	var last *agent.Turn
	if n := len(turns); n > 0 {
		last, _ = agent.ParseTurn(d, msgs[turns[n-1].Start:turns[n-1].End])
	}
	var r Result
	if e := conv.End; e != nil {
		r.Reason, r.Steps, r.Usage, r.Error, r.Time = e.Reason, e.Steps, e.Usage, e.Error, e.Time
		r.Cost = e.CostUSD
	} else {
		// The answer is on record, its end record is not.
		r.Reason, r.Steps = wire.ReasonStop, len(turns)
		if last != nil {
			switch last.Stop {
			case agent.StopRefusal:
				r.Reason = wire.ReasonRefusal
			case agent.StopMaxTokens:
				r.Reason = wire.ReasonMaxTokens
			}
		}
		for _, m := range conv.Messages {
			if m.Usage != nil {
				r.Usage.Add(*m.Usage)
			}
		}
		if n := len(conv.Messages); n > 0 {
			r.Time = conv.Messages[n-1].Time
		}
	}
	if h := conv.Header; h != nil {
		r.Provider, r.Model = h.Provider, h.Model
		if !h.Time.IsZero() && !r.Time.IsZero() {
			r.DurationMS = r.Time.Sub(h.Time).Milliseconds()
		}
	}
	switch r.Reason {
	case wire.ReasonStop, wire.ReasonMaxTokens, wire.ReasonRefusal, wire.ReasonSchema:
		if last != nil {
			r.Answer = last.Text
		}
	case wire.ReasonMaxSteps, wire.ReasonBudget, wire.ReasonContext:
		// A budget's last request asks for an answer without tools.
		if last != nil && len(last.Calls) == 0 {
			r.Answer = last.Text
		}
	}
	r.AnswerJSON, r.SchemaOK = recordedAnswerJSON(conv.Header, r)
	return r
}

// messages are a conversation's messages as the loop takes them.
func messages(conv *transcript.Conversation) []agent.Message {
	msgs := make([]agent.Message, len(conv.Messages))
	for i, m := range conv.Messages {
		msgs[i] = m.Message
	}
	return msgs
}

// SamePrompt reports whether the conversation starts with the message
// first: the prompt an item would send now. An input edited since the item
// ran is not continued as if it were the same item.
func SamePrompt(conv *transcript.Conversation, first agent.Message) bool {
	if len(conv.Messages) == 0 {
		return false
	}
	return sameMessage(conv.Messages[0].Message, first)
}

// sameMessage reports whether two messages hold the same JSON value.
func sameMessage(x, y agent.Message) bool {
	var a, b any
	if json.Unmarshal(x, &a) != nil || json.Unmarshal(y, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// OtherPrompts finds the finished items of dir whose transcript starts with
// another prompt than the one the item sends now (prompt says which): the
// input was edited since they ran, or dir holds the results of another
// input whose ids are the same (the line numbers of two text files). Their
// results are not this input's answers. An item whose transcript is gone,
// or holds no message, cannot be told apart and is not reported.
func OtherPrompts(dir string, items []Item, finished []Result, prompt func(Item) string) []Problem {
	byID := make(map[string]Item, len(items))
	for _, it := range items {
		byID[it.ID] = it
	}
	var probs []Problem
	for _, r := range finished {
		it, ok := byID[r.ID]
		if !ok {
			continue
		}
		path := filepath.Join(dir, FileName(it.ID)+".jsonl")
		shape, first := firstMessage(path)
		if first == nil || sameMessage(first, agent.DialectFor(shape).UserMessage(prompt(it))) {
			continue
		}
		probs = append(probs, Problem{it.Line, fmt.Sprintf("item %s finished in %s with another prompt (%s): the input changed since it ran, or %s holds the results of another input; give another -d",
			strconv.Quote(it.ID), dir, path, dir)})
	}
	return probs
}

// firstMessage reads the wire shape and the first message of a transcript;
// first is nil when there is no such file or it holds no message.
func firstMessage(path string) (shape string, first agent.Message) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	r := transcript.NewReader(f)
	for {
		rec, err := r.Next()
		if err != nil {
			return "", nil
		}
		switch {
		case rec.Header != nil:
			shape = rec.Header.Provider
		case rec.Message != nil:
			return shape, rec.Message.Message
		}
	}
}
