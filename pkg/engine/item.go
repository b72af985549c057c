package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/agentloop/agentloop/internal/english"
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

// ItemPrompt is the prompt an item sends: its prompt, and its stdin as
// `agentloop run` adds what it reads there.
func ItemPrompt(it batch.Item) string {
	if text := strings.TrimSpace(it.Stdin); text != "" {
		return WithInput(it.Prompt, text)
	}
	return it.Prompt
}

// ReadItemTranscript reads an item's transcript as replay --resume does
// (checked, a torn last line left out, its warnings to errOut); nil when
// it holds no message (a run stopped before its prompt was written),
// which starts over.
func ReadItemTranscript(path string, in io.Reader, errOut io.Writer) (*transcript.Conversation, error) {
	held, err := batch.HoldsMessage(path)
	if err != nil || !held {
		return nil, err
	}
	return LoadConversation(path, in, errOut, RefuseInvalid)
}

// EndedResult is the result of an item whose run ended, read from its
// transcript conv, in place of res (its id, line, metadata and transcript
// kept), the run after earlier attempts.
func EndedResult(conv *transcript.Conversation, res batch.Result, earlier int) batch.Result {
	r := batch.FromTranscript(conv, agent.DialectFor(conv.Shape))
	r.ID, r.Line, r.Metadata, r.Transcript, r.Attempts = res.ID, res.Line, res.Metadata, res.Transcript, earlier+1
	return r
}

// FileSystemError reports whether setting an item's run up failed in a
// system call: creating or writing its transcript in OUTDIR. Its other
// failures (a budget without a price, a provider's settings, a tool
// definition the API refuses) are no system call's.
func FileSystemError(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno)
}

// SetOutcome writes what the item's loop ended with into res: its
// reason, steps, tokens, cost (and, paid at a discount of 0 or more, the
// live cost), provider and model, its answer through redact, and its
// answer to a schema.
func SetOutcome(res *batch.Result, loop *agent.Loop, out *agent.Outcome, discount float64, redact func(string) string) {
	res.Reason, res.Steps, res.Usage = out.Reason, out.Steps, out.Usage
	res.Answer = redact(out.Answer)
	if out.CostKnown {
		cost := out.Cost
		res.Cost = &cost
		if discount >= 0 {
			res.CostLive = LiveCost(cost, discount)
		}
	}
	res.Provider, res.Model = loop.Provider.Name(), loop.Provider.Model()
	res.AnswerJSON, res.SchemaOK = ItemAnswerJSON(loop, out)
}

// ItemAnswerJSON is what a batch item's result says of its answer to a
// schema: the value when it matched, and whether it did; nothing for an
// item without a schema.
func ItemAnswerJSON(loop *agent.Loop, out *agent.Outcome) (json.RawMessage, *bool) {
	if loop.Answer == nil {
		return nil, nil
	}
	ok := out.Checked != nil && out.Checked.OK
	if !ok {
		return nil, &ok
	}
	return out.Checked.JSON, &ok
}

// ItemBudgetError is the error of an item that used up the step budget
// of its input line.
func ItemBudgetError(steps, maxSteps, line int) string {
	return fmt.Sprintf("step budget exhausted after %d step%s (max_steps %d on input line %d)", steps, english.Plural(steps, "", "s"), maxSteps, line)
}

// ItemRestart is how a batch item runs, from what an earlier run of it
// left in OUTDIR.
type ItemRestart struct {
	How ItemStart
	// Conv is its latest transcript (ItemEnded, ItemResume).
	Conv *transcript.Conversation
	// Earlier counts its earlier attempts kept.
	Earlier int
	// Aside is where its transcript was set aside (ItemAgain,
	// ItemResume): a continued run's transcript names it as its parent.
	Aside string
}

// UnrecordedError is a failure of OUTDIR to take an item's transcript (a
// full disk): its run has no outcome, and the next run runs it.
type UnrecordedError struct{ Err error }

func (e *UnrecordedError) Error() string { return e.Err.Error() }
func (e *UnrecordedError) Unwrap() error { return e.Err }

// RestartItem makes the item id of dir ready to run, given what an
// earlier run of it left (ItemPlan decides how): a transcript holding no
// message is removed, and one that is gone on from or run again is set
// aside as an earlier attempt. resumable checks, before anything is set
// aside, that a run can go on from conv (the tools its calls need); its
// error, as any but an UnrecordedError, fails the item with its
// transcript kept. An error returns an empty ItemRestart, but for one
// setting the transcript aside. in and errOut are what reading a transcript asks and
// warns on.
func RestartItem(dir *batch.Dir, id, prompt, provider string, retrying bool, in io.Reader, errOut io.Writer, resumable func(*transcript.Conversation) error) (ItemRestart, error) {
	path, earlier, ok := dir.Latest(id)
	if !ok {
		return ItemRestart{How: ItemFresh}, nil
	}
	conv, err := ReadItemTranscript(path, in, errOut)
	if err != nil {
		return ItemRestart{}, fmt.Errorf("%w; remove it to run the item from the start", err)
	}
	how, err := ItemPlan(conv, path, prompt, provider, retrying)
	if err != nil {
		return ItemRestart{}, err
	}
	r := ItemRestart{How: how, Conv: conv, Earlier: earlier}
	switch how {
	case ItemFresh:
		// Nothing on record (the disk filled, or a kill came, before the
		// prompt was written): the item starts over in its place.
		if err := dir.DiscardEmpty(id); err != nil {
			return ItemRestart{}, &UnrecordedError{err}
		}
		return r, nil
	case ItemEnded:
		return r, nil
	case ItemResume:
		if err := resumable(conv); err != nil {
			return ItemRestart{}, err
		}
	}
	if r.Aside, err = dir.SetAside(id); err != nil {
		// How it was to run stays said: an attempt was begun.
		return r, &UnrecordedError{err}
	}
	return r, nil
}
