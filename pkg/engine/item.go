package engine

import (
	"fmt"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// ItemStart is how a batch item runs, given what an earlier run of it left
// in OUTDIR.
type ItemStart int

const (
	// ItemFresh: nothing on record; the item runs from the start, its
	// transcript in its place.
	ItemFresh ItemStart = iota
	// ItemEnded: the run ended and only its result line was not written;
	// the result is read from its transcript and nothing runs.
	ItemEnded
	// ItemAgain: the transcript holds the prompt and no model turn, so no
	// tool ran; it is set aside as an earlier attempt and the item runs
	// from the start.
	ItemAgain
	// ItemResume: the run stopped mid-way, or ended in an error a rerun
	// of failed items runs again; it is set aside and the item goes on
	// from its state, as replay --resume goes on.
	ItemResume
)

// ItemPlan decides how a batch item runs. conv is the conversation of its
// latest transcript (at path), nil when there is none or it holds no
// message; prompt is what the item sends, provider what it runs with, and
// retrying is set when an earlier result of the item is being run again
// (--retry-failed). A transcript of another prompt, or in another
// provider's shape, is refused.
func ItemPlan(conv *transcript.Conversation, path, prompt, provider string, retrying bool) (ItemStart, error) {
	if conv == nil {
		return ItemFresh, nil
	}
	d := agent.DialectFor(conv.Shape)
	if !batch.SamePrompt(conv, d.UserMessage(prompt)) {
		return 0, fmt.Errorf("%s holds a conversation with another prompt (the input changed since it ran?); remove it to run the item again", path)
	}
	switch batch.StageOf(conv, d) {
	case batch.Unstarted:
		return ItemAgain, nil
	case batch.Ended:
		if !retrying || conv.End == nil || conv.End.Reason != wire.ReasonError {
			return ItemEnded, nil
		}
	}
	if provider != conv.Shape {
		return 0, fmt.Errorf("%s holds a conversation in the %s shape; it cannot go on with the %s provider", path, conv.Shape, provider)
	}
	return ItemResume, nil
}
