package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Defaults of the loop's limits.
const (
	DefaultMaxSteps = 10
	DefaultParallel = 8
	// DefaultContextKeep is how many of the latest tool results clearing
	// never touches.
	DefaultContextKeep = 3
)

// EventKind says what an Event reports.
type EventKind int

const (
	EventRequest     EventKind = iota // a model request starts
	EventTurn                         // the model answered
	EventCallStart                    // a tool call starts
	EventCallDone                     // a tool call finished
	EventAnswerCheck                  // a final answer was checked against the schema
)

// Event reports the loop's progress. Events are delivered one at a time,
// never concurrently.
type Event struct {
	Kind   EventKind
	Step   int
	Turn   *Turn       // EventTurn
	Call   *Call       // EventCallStart, EventCallDone
	Index  int         // the call's position in its turn
	Result *ToolResult // EventCallDone
	// Recorded is set on the EventCallDone of a call that is not run: it
	// finished before the run that made it stopped, and is answered with
	// the result recorded then (State.Finished).
	Recorded bool
	// Request is what the turn's request carried and cost (EventTurn).
	Request *RequestStats
	// Final is set on the EventRequest of the last request a budget
	// allows, which asks for an answer without tools.
	Final bool
	// Check is the answer checked (EventAnswerCheck); Retry says that it
	// did not match and is sent back for another.
	Check *AnswerCheck
	Retry bool
}

// State is a conversation to continue.
type State struct {
	Messages []Message
	// Finished are results of calls of the last assistant message that
	// finished before the run that made them stopped (a transcript's result
	// records). Those calls are answered with them and not run again;
	// results for calls that are not pending are ignored.
	Finished []CallResult
	// Steps and Usage are what earlier runs of this conversation spent.
	Steps int
	Usage transcript.Usage
	// Cleared are the results earlier runs cleared from what they sent
	// (the transcript's cleared entries), cleared again before the first
	// request so that it is the one the earlier run would have sent.
	Cleared []transcript.Cleared
	// ClearNow are results to clear before the first request and to record
	// with it as cleared there (replay re-drives a recorded clearing).
	ClearNow []transcript.Cleared
	// TokensPerByte is what the last request of an earlier run gave, to
	// estimate the next one's tokens by; 0 when unknown.
	TokensPerByte float64
	// Prompt, when set, is a new user message: the conversation goes on
	// with it once the pending calls are answered.
	Prompt string
}

// Outcome is how a run ended.
type Outcome struct {
	// Answer is the final answer's text: the model's last turn when it
	// called no tool (Reason stop, max_tokens, refusal; or a budget's, when
	// its last request was answered).
	Answer string
	// Reason is one of the wire.Reason* values.
	Reason string
	// Exhausted names the budget that ended the run (Exhausted*), "" for
	// none; Estimate says what was estimated when one left no room for a
	// request at all.
	Exhausted, Estimate string
	// Requests are the run's requests, one a step.
	Requests []RequestStats
	// Cost is what the run's requests cost in US dollars, when Price is
	// known (CostKnown).
	Cost      float64
	CostKnown bool
	// Steps counts all model calls of the conversation, earlier runs included.
	Steps int
	Usage transcript.Usage
	// Messages is the whole conversation.
	Messages []Message
	// Checked is the last answer checked against the schema (Loop.Answer),
	// nil when none was: Answer's value and whether it matched. A run
	// whose answer still did not match after the retries ends with
	// Reason schema.
	Checked *AnswerCheck

	// kept holds the messages the run appends to Messages.
	kept keeper
}

// Loop runs the tool-calling loop. The zero values of MaxSteps and Parallel
// mean their defaults.
type Loop struct {
	Provider Provider
	Tools    Executor
	// ToolDefs are the tools offered, in the provider's wire form.
	ToolDefs []Message
	System   string
	// MaxSteps caps the model calls of this run (earlier runs not counted).
	MaxSteps int
	// Parallel caps the calls of one turn that run at once.
	Parallel int
	// Transcript records every message appended; nil records nothing.
	Transcript Recorder
	// OnEvent receives progress; nil ignores it.
	OnEvent func(Event)
	// OnText receives the text of every turn as it streams (a turn that
	// goes on to call tools included; EventTurn says how each ended); nil
	// asks for each turn whole.
	OnText func(delta string)
	// NoEnd leaves the end record to the caller, who runs a conversation
	// in several parts (replay of a log with several user turns).
	NoEnd bool

	// NoFinalAnswer ends a run whose budget runs out without a last
	// request. By default the last request a budget allows (steps, tokens,
	// cost, context) is sent with tool choice "none", so that the model
	// answers from what it has.
	NoFinalAnswer bool
	// Budget caps the run's tokens and cost; nil caps neither.
	Budget *Budget
	// Price is the model's, for the cost of each request; nil when unknown.
	Price *Price
	// Context clears old tool results from what is sent; nil clears none.
	Context *ContextPolicy
	// MaxOutputTokens is each answer's cap the provider was given, 0 when
	// none: the budgets take it as the next answer's size.
	MaxOutputTokens int64
	// Answer holds the final answer to a schema; nil takes any answer.
	Answer *AnswerSpec

	eventMu sync.Mutex
	// read is what the last run read of its conversation's messages (see
	// gauge.read).
	readMu sync.Mutex
	read   []msgFacts
}

// ErrResume is returned when a conversation cannot be continued as it is.
var ErrResume = errors.New("cannot continue this conversation")

// Prompt starts a conversation with one user message and runs it.
func (l *Loop) Prompt(ctx context.Context, text string) (*Outcome, error) {
	return l.Run(ctx, State{Prompt: text})
}

// Run continues a conversation until the model answers without tool calls,
// the step budget runs out, or an error or cancellation stops it. Calls of
// the last assistant turn that no later message answers are run first.
// The end record is written on every path; the returned error says why a
// run ended in error or interruption.
func (l *Loop) Run(ctx context.Context, st State) (*Outcome, error) {
	out := &Outcome{Steps: st.Steps, Usage: st.Usage, Messages: append([]Message(nil), st.Messages...), CostKnown: l.Price != nil}
	maxSteps := l.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}

	g := newGauge(l, &st)
	g.sync(out.Messages)
	g.added, g.addedRefs = 0, nil
	pending, step, err := l.pendingCalls(out.Messages, g.facts)
	if err != nil {
		out.Reason = wire.ReasonError
		return l.finish(out, err)
	}
	if err := g.restore(st.Cleared, st.ClearNow); err != nil {
		out.Reason = wire.ReasonError
		return l.finish(out, err)
	}
	final := "" // the budget whose last request was sent
	finished := st.Finished
	retries := 0 // answers sent back for not matching the schema
	for newSteps := 0; ; {
		if len(pending) > 0 {
			if err := l.answer(ctx, out, step, pending, finished); err != nil {
				out.Reason = reasonFor(ctx, err)
				return l.finish(out, err)
			}
			pending, finished = nil, nil
		}
		if st.Prompt != "" {
			// The question the conversation goes on with, after the
			// answers the calls before it were owed.
			msg := l.Provider.UserMessage(st.Prompt)
			out.Messages = append(out.Messages, out.kept.keep(msg))
			if err := l.record(transcript.Message{Step: out.Steps, Message: msg}); err != nil {
				out.Reason = wire.ReasonError
				return l.finish(out, err)
			}
			st.Prompt = ""
		}
		if newSteps >= maxSteps {
			out.Reason, out.Exhausted = wire.ReasonMaxSteps, ExhaustedSteps
			return l.finish(out, nil)
		}
		// Before the request: what it may carry, and whether a budget
		// leaves room for it, or for it only as the last.
		g.sync(out.Messages)
		d, err := g.decide(newSteps+1 == maxSteps && !l.NoFinalAnswer)
		if err != nil {
			out.Reason = wire.ReasonError
			return l.finish(out, err)
		}
		if l.NoFinalAnswer {
			// Without a last request for an answer, requests go on while
			// they fit; the run ends before one that would not.
			d.final = ""
		}
		if d.stop != "" {
			out.Reason, out.Exhausted, out.Estimate = exhaustedReason(d.stop), d.stop, d.why
			return l.finish(out, nil)
		}
		final = d.final
		newSteps++
		out.Steps++
		step = out.Steps

		turn, err := l.complete(ctx, step, g.sent, final != "")
		if err == nil {
			err = l.checkCalls(turn.Calls)
		}
		if err != nil {
			out.Reason = reasonFor(ctx, err)
			return l.finish(out, err)
		}
		cleared := g.sentRequest()
		stats := g.observe(turn, step, final != "", cleared)
		out.Requests = append(out.Requests, stats)
		out.Cost += stats.Cost
		out.Usage.Add(turn.Usage)
		if turn.Empty() && turn.Stop != StopPause {
			// A turn that says nothing (the output token limit spent on
			// reasoning before any text) ends the run as its kind does, but
			// joins neither the conversation nor the transcript: an
			// assistant message without content is one the API refuses.
			switch {
			case turn.Stop == StopMaxTokens:
				out.Reason = wire.ReasonMaxTokens
				return l.finish(out, nil)
			case turn.Stop == StopRefusal:
				out.Reason = wire.ReasonRefusal
				return l.finish(out, nil)
			case final != "":
				out.Reason, out.Exhausted = exhaustedReason(final), final
				return l.finish(out, nil)
			}
			out.Reason = wire.ReasonError
			return l.finish(out, &ProviderError{Provider: l.Provider.Name(), Message: "the response has no content: neither text nor tool calls"})
		}
		for _, m := range turn.Messages {
			out.Messages = append(out.Messages, out.kept.keep(m))
		}
		if len(turn.Messages) == 0 {
			// Nothing to record them on: the next request carries them.
			g.cleared = append(cleared, g.cleared...)
			cleared = nil
		}
		if err := l.recordTurn(step, turn, cleared, final != ""); err != nil {
			out.Reason = wire.ReasonError
			return l.finish(out, err)
		}
		l.emit(Event{Kind: EventTurn, Step: step, Turn: turn, Request: &stats})

		switch {
		case turn.Stop == StopRefusal:
			// As the reference runners do, a refusal ends the run and its
			// calls are not run; they are still answered, so the
			// conversation stays one the API accepts.
			out.Reason, out.Answer = wire.ReasonRefusal, turn.Text
			return l.finish(out, l.decline(out, step, turn.Calls, "not run: the model refused this turn"))
		case turn.Stop == StopMaxTokens:
			out.Reason, out.Answer = wire.ReasonMaxTokens, turn.Text
			return l.finish(out, l.decline(out, step, turn.Calls, "not run: the response was cut off by the output token limit, so the call may be incomplete"))
		case final != "":
			// The last request a budget allowed. A server that does not
			// honour the tool choice may still have called tools: they are
			// answered, not run, and the run ends with what the model said.
			out.Reason, out.Exhausted, out.Answer = exhaustedReason(final), final, turn.Text
			if len(turn.Calls) == 0 {
				// Checked, and not asked again: no request is left.
				l.checkAnswer(out, step, turn.Text, false)
			}
			return l.finish(out, l.decline(out, step, turn.Calls, "not run: "+exhaustedText(final)+" ran out"))
		case turn.Stop == StopPause && len(turn.Calls) == 0:
			// The server paused a long turn; sending it back resumes it.
			continue
		case len(turn.Calls) == 0:
			out.Reason, out.Answer = wire.ReasonStop, turn.Text
			c := l.checkAnswer(out, step, turn.Text, l.Answer != nil && retries < l.Answer.Retries)
			if c == nil || c.OK {
				return l.finish(out, nil)
			}
			if retries >= l.Answer.Retries {
				out.Reason = wire.ReasonSchema
				return l.finish(out, nil)
			}
			// Told what is wrong, the model answers again: a user message,
			// recorded, and a step the budgets count like any other.
			retries++
			msg := l.Provider.UserMessage(c.Feedback)
			out.Messages = append(out.Messages, out.kept.keep(msg))
			if err := l.record(transcript.Message{Step: step, Message: msg}); err != nil {
				out.Reason = wire.ReasonError
				return l.finish(out, err)
			}
			continue
		}
		pending = turn.Calls
	}
}

// exhaustedReason is the end reason of a run a budget ended.
func exhaustedReason(budget string) string {
	switch budget {
	case ExhaustedSteps:
		return wire.ReasonMaxSteps
	case ExhaustedContext:
		return wire.ReasonContext
	}
	return wire.ReasonBudget
}

// exhaustedText names a budget in a sentence.
func exhaustedText(budget string) string {
	switch budget {
	case ExhaustedSteps:
		return "the step budget"
	case ExhaustedTokens:
		return "the token budget"
	case ExhaustedCost:
		return "the cost budget"
	}
	return "the context limit"
}

// checkCalls refuses a turn whose calls cannot each be answered under an
// id of its own. Answered as they are, the conversation would be one the
// API refuses (a result without an id, two results for one id), and it
// cannot be mended without rewriting the model's message, so the turn is
// a provider error: it is neither run nor appended.
func (l *Loop) checkCalls(calls []Call) error {
	seen := make(map[string]bool, len(calls))
	for i, c := range calls {
		var why string
		switch {
		case c.ID == "":
			why = fmt.Sprintf("tool call %d of the turn (%s) has no id, so it cannot be answered", i+1, c.Name)
		case seen[c.ID]:
			why = fmt.Sprintf("two tool calls of the turn have the id %q, so they cannot be answered apart", c.ID)
		case c.Name == "":
			why = fmt.Sprintf("tool call %s has no tool name", c.ID)
		}
		if why != "" {
			return &ProviderError{Provider: l.Provider.Name(), Message: "the response is malformed: " + why}
		}
		seen[c.ID] = true
	}
	return nil
}

// complete asks the model for the next turn; final asks for one without
// tool calls.
func (l *Loop) complete(ctx context.Context, step int, msgs []Message, final bool) (*Turn, error) {
	if ctx.Err() != nil {
		// The cause says why (an interrupt, a time limit) to the caller.
		return nil, context.Cause(ctx)
	}
	l.emit(Event{Kind: EventRequest, Step: step, Final: final})
	start := time.Now()
	turn, err := l.Provider.Complete(ctx, &Request{System: l.system(), Messages: msgs, Tools: l.ToolDefs, OnText: l.OnText, ToolChoiceNone: final, Answer: l.answerFormat()})
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if turn.Latency == 0 {
		turn.Latency = time.Since(start)
	}
	return turn, nil
}

// answer runs calls concurrently and appends their results in call order.
// Calls with a result in finished are answered with it and not run.
//
// The results go out in one piece (Anthropic wants them all in one
// message), so a call that finishes while others of its turn still run
// would be lost with them if the run stopped first: each such call's
// result is written to the transcript as a result record the moment it
// finishes. When the context ends while tools run, nothing is appended:
// the calls cut short stay pending, and a resume answers the recorded ones
// from their records and runs only the others.
func (l *Loop) answer(ctx context.Context, out *Outcome, step int, calls []Call, finished []CallResult) error {
	results := make([]CallResult, len(calls))
	var run []int
	for i, c := range calls {
		if r, ok := recordedResult(finished, c.ID); ok {
			results[i] = CallResult{Call: c, Result: r}
			l.emit(Event{Kind: EventCallDone, Step: step, Call: &calls[i], Index: i, Result: &r, Recorded: true})
			continue
		}
		run = append(run, i)
	}
	if err := l.runCalls(ctx, step, calls, run, results); err != nil {
		return err
	}
	if ctx.Err() != nil {
		for _, i := range run {
			if results[i].Result.Kind == wire.KindCanceled {
				return context.Cause(ctx)
			}
		}
		// Every call finished before the interrupt took hold: the results
		// are appended, and the run stops before the next request.
	}
	return l.appendResults(out, step, results)
}

// FinishedFromRecords turns a transcript's result records (see
// transcript.Conversation.Finished) into State.Finished.
func FinishedFromRecords(recs []transcript.CallResult) []CallResult {
	out := make([]CallResult, len(recs))
	for i, r := range recs {
		out[i] = CallResult{
			Call: Call{ID: r.CallID, Name: r.Name},
			Result: ToolResult{
				Content: r.Content, IsError: r.IsError, Kind: r.Error, ExitCode: r.ExitCode,
				Duration: time.Duration(r.DurationMS) * time.Millisecond, Truncated: r.Truncated,
				Source: r.Source, Server: r.Server, Sandbox: r.Sandbox,
			},
		}
		for _, im := range r.Images {
			out[i].Result.Images = append(out[i].Result.Images, Image{MIMEType: im.MIMEType, Data: im.Data})
		}
	}
	return out
}

// recordedResult finds the result of call id in finished.
func recordedResult(finished []CallResult, id string) (ToolResult, bool) {
	for _, f := range finished {
		if f.Call.ID == id {
			return f.Result, true
		}
	}
	return ToolResult{}, false
}

// decline answers calls without running them.
func (l *Loop) decline(out *Outcome, step int, calls []Call, why string) error {
	if len(calls) == 0 {
		return nil
	}
	results := make([]CallResult, len(calls))
	for i, c := range calls {
		results[i] = CallResult{Call: c, Result: ToolResult{Content: why, IsError: true, Kind: wire.KindDeclined, ExitCode: -1}}
	}
	return l.appendResults(out, step, results)
}

func (l *Loop) appendResults(out *Outcome, step int, results []CallResult) error {
	msgs, err := l.Provider.ResultMessages(results)
	if err != nil {
		return fmt.Errorf("encode tool results: %w", err)
	}
	for _, m := range msgs {
		out.Messages = append(out.Messages, out.kept.keep(m.Message))
		meta := make([]transcript.Result, len(m.Results))
		for i, ri := range m.Results {
			meta[i] = resultMeta(&results[ri].Call, results[ri].Result)
		}
		var imagesOf []string
		for _, ri := range m.Images {
			imagesOf = append(imagesOf, results[ri].Call.ID)
		}
		if err := l.record(transcript.Message{Step: step, Message: m.Message, Results: meta, ImagesOf: imagesOf}); err != nil {
			return err
		}
	}
	return nil
}

// runCalls runs the calls at the indexes in run, at most Parallel at a
// time, into results. When more than one runs, each result is recorded as
// it comes (see answer); a failed write stops calls from starting and is
// returned once those running have finished.
func (l *Loop) runCalls(ctx context.Context, step int, calls []Call, run []int, results []CallResult) error {
	parallel := l.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	record := len(run) > 1 && l.Transcript != nil
	sem := make(chan struct{}, parallel)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		recErr error
	)
	for _, i := range run {
		c := &calls[i]
		sem <- struct{}{}
		mu.Lock()
		stop := recErr != nil
		mu.Unlock()
		if stop {
			<-sem
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			l.emit(Event{Kind: EventCallStart, Step: step, Call: c, Index: i})
			r := l.call(ctx, c)
			results[i] = CallResult{Call: *c, Result: r}
			if record && r.Kind != wire.KindCanceled {
				if err := l.recordResult(step, c, r); err != nil {
					mu.Lock()
					if recErr == nil {
						recErr = err
					}
					mu.Unlock()
				}
			}
			l.emit(Event{Kind: EventCallDone, Step: step, Call: c, Index: i, Result: &r})
		}()
	}
	wg.Wait()
	return recErr
}

// recordResult writes the result record of a call that finished.
func (l *Loop) recordResult(step int, c *Call, r ToolResult) error {
	rec := transcript.CallResult{Step: step, Result: resultMeta(c, r), Content: r.Content}
	for _, im := range r.Images {
		rec.Images = append(rec.Images, transcript.Image{MIMEType: im.MIMEType, Data: im.Data})
	}
	return l.Transcript.WriteResult(rec)
}

// resultMeta is what a transcript records of how a call ran.
func resultMeta(c *Call, r ToolResult) transcript.Result {
	return transcript.Result{
		CallID: c.ID, Name: c.Name, ExitCode: r.ExitCode,
		DurationMS: r.Duration.Milliseconds(), Truncated: r.Truncated,
		IsError: r.IsError, Error: r.Kind, Source: r.Source, Server: r.Server, Sandbox: r.Sandbox,
	}
}

// call runs one tool. An executor that panics is a bug, but it must not take
// the run and its transcript down with it: the panic becomes the result.
func (l *Loop) call(ctx context.Context, c *Call) (r ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			// The model gets what went wrong, not agentloop's stack.
			r = ToolResult{IsError: true, Kind: wire.KindPanic, ExitCode: -1,
				Content: fmt.Sprintf("internal error running %s: %v", c.Name, p)}
		}
	}()
	return l.Tools.Call(ctx, c.Name, c.ID, c.Arguments)
}

// pendingCalls finds the calls of the last assistant turn that no later
// message answers, and that turn's step.
func (l *Loop) pendingCalls(msgs []Message, facts []msgFacts) ([]Call, int, error) {
	// The turns as Turns finds them, from what the gauge read of each
	// message rather than by reading them all again.
	turns := turnSpans(len(facts), l.Provider.ItemTurns(), func(i int) bool { return facts[i].assistant })
	if len(turns) == 0 {
		return nil, 0, nil
	}
	span := turns[len(turns)-1]
	last := span.End - 1
	turn, err := ParseTurn(l.Provider, msgs[span.Start:span.End])
	if err != nil {
		return nil, 0, fmt.Errorf("%w: message %d: %v", ErrResume, span.Start+1, err)
	}
	if len(turn.Calls) == 0 {
		return nil, 0, nil
	}
	answered := map[string]bool{}
	other := -1 // the first message after the turn that answers no call
	for i, m := range msgs[last+1:] {
		rs := l.Provider.ParseResults(m)
		if len(rs) == 0 && other < 0 {
			other = last + 1 + i
		}
		for _, r := range rs {
			answered[r.CallID] = true
		}
	}
	var pending []Call
	for _, c := range turn.Calls {
		if !answered[c.ID] {
			pending = append(pending, c)
		}
	}
	// Answered calls may be followed by anything (a user's follow-up); a
	// call still pending can be answered only if nothing but results came
	// after its turn (and, Anthropic's results being one message, nothing).
	switch {
	case len(pending) == 0:
	case other >= 0:
		return nil, 0, fmt.Errorf("%w: message %d follows a turn whose calls are not all answered", ErrResume, other+1)
	case len(msgs) > last+1 && l.Provider.Shape().ResultsInOneMessage():
		return nil, 0, fmt.Errorf("%w: the message after the last assistant turn answers only some of its calls", ErrResume)
	}
	return pending, len(turns), nil
}

// recordTurn writes a turn's messages; what is known of the whole turn
// (usage, latency, finish reason, its request) goes on its last one.
func (l *Loop) recordTurn(step int, turn *Turn, cleared []transcript.Cleared, final bool) error {
	if l.Transcript == nil || len(turn.Messages) == 0 {
		return nil
	}
	recs := make([]transcript.Message, len(turn.Messages))
	for i, m := range turn.Messages {
		recs[i] = transcript.Message{Step: step, Message: m}
	}
	usage := turn.Usage
	last := &recs[len(recs)-1]
	last.Usage, last.LatencyMS, last.FinishReason = &usage, turn.Latency.Milliseconds(), turn.FinishReason
	last.ResponseID, last.ResponseModel = turn.ResponseID, turn.ResponseModel
	last.BatchID, last.CustomID = turn.BatchID, turn.CustomID
	// And what is known of the request: with it, and the messages before
	// the turn, the request can be rebuilt.
	last.RequestBytes, last.Cleared, last.ContextManagement = turn.RequestBytes, cleared, turn.ContextManagement
	if final {
		last.ToolChoice = "none"
	}
	return l.Transcript.WriteMessages(recs...)
}

func (l *Loop) record(m transcript.Message) error {
	if l.Transcript == nil {
		return nil
	}
	return l.Transcript.WriteMessage(m)
}

func (l *Loop) emit(e Event) {
	if l.OnEvent == nil {
		return
	}
	l.eventMu.Lock()
	defer l.eventMu.Unlock()
	l.OnEvent(e)
}

// finish writes the end record and returns the outcome.
func (l *Loop) finish(out *Outcome, err error) (*Outcome, error) {
	if err != nil && out.Reason == "" {
		out.Reason = wire.ReasonError
	}
	if l.Transcript != nil && !l.NoEnd {
		end := transcript.End{Reason: out.Reason, Steps: out.Steps, Usage: out.Usage}
		if out.CostKnown {
			cost := transcript.RoundCost(out.Cost)
			end.CostUSD = &cost
		}
		if err != nil {
			end.Error = err.Error()
		} else if out.Reason == wire.ReasonSchema {
			end.Error = schemaEndError(out.Checked)
		}
		if werr := l.Transcript.WriteEnd(end); werr != nil && err == nil {
			err = werr
			out.Reason = wire.ReasonError
		}
	}
	return out, err
}

// reasonFor names why an error ended the run.
func reasonFor(ctx context.Context, err error) string {
	if ctx.Err() != nil && (errors.Is(err, ctx.Err()) || errors.Is(err, context.Cause(ctx))) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return wire.ReasonError
		}
		return wire.ReasonInterrupted
	}
	return wire.ReasonError
}
