// Package replay re-drives a recorded conversation offline: the recorded
// assistant turns stand in for the model, the tools run again on the
// recorded arguments, and each fresh result is compared with the recorded
// one. A replay re-drives what happened: a call the recording did not run
// (declined, denied or skipped then) is not run now either.
//
// The package knows the loop (pkg/agent) and the transcript records; the
// tools come in as an agent.Executor, and the report is the caller's.
package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Status is the verdict on one call.
type Status string

const (
	Same       Status = "same"
	Different  Status = "DIFFERENT"
	Missing    Status = "missing tool" // the tool is not loaded any more
	NowError   Status = "now an error" // recorded as a success, an error now
	Unrecorded Status = "not recorded" // the recording has no result to compare with
	Skipped    Status = "skipped"      // not re-run, for want of approval
	NotRun     Status = "not run"      // not run in the recording either
)

// Statuses are the statuses in the order a report counts them.
var Statuses = []Status{Same, Different, Missing, NowError, Unrecorded, Skipped, NotRun}

// Diverged reports whether a call of this status makes the replay fail:
// its fresh result is not the recorded one.
func (s Status) Diverged() bool {
	switch s {
	case Different, Missing, NowError:
		return true
	}
	return false
}

// Row is the verdict on one call.
type Row struct {
	Line   int // the conversation's line in a file of conversations; 0 otherwise
	Step   int
	Index  int // the call's position in its turn
	ID     string
	Name   string
	Status Status
	// Recorded is the kind the recording gave a call it did not run
	// (a wire.Kind), for a NotRun row.
	Recorded string
	// Diff is a unified diff of the recorded and the fresh content, for a
	// row that diverged.
	Diff []byte
}

// Options are what a replay runs with.
type Options struct {
	// Tools runs the calls that ran in the recording.
	Tools agent.Executor
	// Loaded reports whether a tool is loaded, to tell a missing tool from
	// one that now fails; nil takes every tool as loaded.
	Loaded func(name string) bool
	// Parallel caps the calls of one turn that run at once.
	Parallel int
	// Ignore masks the text each matches in both results before they are
	// compared.
	Ignore []*regexp.Regexp
	// Redact is applied to fresh results before they are compared, as the
	// recording's were when written.
	Redact *transcript.Redactor
	// Transcript, when set, records the replay: its header is written, and
	// Run writes every message and the end record.
	Transcript *transcript.Writer
	// OnEvent receives the loop's progress; nil ignores it.
	OnEvent func(agent.Event)
}

// Result is what a replay found.
type Result struct {
	// Rows are the calls in the order they were made.
	Rows []Row
	// Answer is the final answer the recording ended with, "" when it did
	// not end with one.
	Answer string
	// Schema is Answer checked against the schema the recording's header
	// records; nil when it records none or there is no answer.
	Schema *Conformance
}

// Diverged reports whether any call diverged.
func (r *Result) Diverged() bool {
	return slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Status.Diverged() })
}

type callKey struct {
	step int
	id   string
}

// Run replays one recorded conversation. Its error says why the replay
// could not go on (a recording it cannot read, an interrupt); the calls'
// verdicts are in the Result.
func Run(ctx context.Context, conv *transcript.Conversation, opts Options) (res *Result, err error) {
	d := agent.DialectFor(conv.Shape)
	turns, err := recordedTurns(d, conv)
	if err != nil {
		return nil, err
	}
	rec := readRecording(d, conv)
	w := opts.Transcript

	fresh := map[callKey]agent.ToolResult{}
	var order []callKey
	names := map[callKey]string{}
	index := map[callKey]int{}
	unrun := map[callKey]bool{} // answered by the loop without running
	scripted := agent.NewScripted(d, headerModel(conv), turns)
	tools := &rerun{tools: opts.Tools, rec: rec}
	reqs := recordedRequests(d, conv)
	loop := &agent.Loop{
		Provider: scripted, Tools: tools, Parallel: opts.Parallel, NoEnd: true,
		// One recorded turn at a time, so that the messages the recording
		// holds between one turn's results and the next turn go back in
		// where they were.
		MaxSteps: 1,
		OnEvent: func(e agent.Event) {
			if e.Kind == agent.EventCallDone {
				k := callKey{e.Step, e.Call.ID}
				if _, dup := fresh[k]; !dup {
					order = append(order, k)
				}
				fresh[k], names[k], index[k] = *e.Result, e.Call.Name, e.Index
			}
			if opts.OnEvent != nil {
				opts.OnEvent(e)
			}
		},
	}

	if w != nil {
		// (A nil writer in the interface would be a recorder.)
		loop.Transcript = w
	}

	var out *agent.Outcome
	if w != nil {
		// The replay's own transcript ends with an end record whatever
		// happens, as a run's does.
		defer func() {
			if werr := writeEnd(ctx, w, conv, out, scripted.Played(), err); err == nil {
				err = werr
			}
		}()
	}

	state := agent.State{Messages: append([]agent.Message(nil), rec.msgs[:rec.turnAt(0)]...)}
	if err := recordPrefix(w, conv.Messages[:rec.turnAt(0)]); err != nil {
		return nil, err
	}
	var cleared []transcript.Cleared
	for t := range turns {
		tools.step = t + 1
		// The request the recording sent: what it cleared, and whether it
		// was the last a budget allowed (asked for with tool choice
		// "none", by the one step the loop is allowed here).
		r := reqs[t]
		state.Cleared, state.ClearNow = cleared, r.cleared
		cleared = append(cleared, r.cleared...)
		loop.NoFinalAnswer = !r.final
		out, err = loop.Run(ctx, state)
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		// The calls of a turn that ended the run as it began (a refusal,
		// an answer cut off by max_tokens, the last a budget allowed) are
		// answered without running, as in the recording: still one row
		// each, or the report would count fewer calls than the recording
		// holds.
		for i, c := range turns[t].Calls {
			k := callKey{t + 1, c.ID}
			if _, done := fresh[k]; !done {
				order = append(order, k)
				fresh[k], names[k], index[k] = agent.ToolResult{Kind: wire.KindDeclined}, c.Name, i
				unrun[k] = true
			}
		}
		// Put back what the recording holds after this turn (and its
		// results) before the next one: a user's follow-up, say.
		var extra []transcript.Message
		for i := rec.turnEnd(t); i < rec.turnAt(t+1); i++ {
			// The images of recorded results come again with the fresh
			// results.
			if len(d.ParseResults(rec.msgs[i])) == 0 && len(conv.Messages[i].ImagesOf) == 0 {
				extra = append(extra, conv.Messages[i])
			}
		}
		if err := recordPrefix(w, extra); err != nil {
			return nil, err
		}
		state = agent.State{Messages: out.Messages, Steps: out.Steps, Usage: out.Usage}
		for _, m := range extra {
			state.Messages = append(state.Messages, m.Message)
		}
	}

	loaded := opts.Loaded
	if loaded == nil {
		loaded = func(string) bool { return true }
	}
	rows := make([]Row, 0, len(order))
	for _, k := range order {
		var row Row
		if unrun[k] {
			row = Row{Step: k.step, ID: k.id, Name: names[k], Status: NotRun, Recorded: rec.kinds[k]}
		} else {
			row = compareCall(d, k, names[k], fresh[k], rec, loaded, opts.Ignore, opts.Redact)
		}
		row.Index, row.Line = index[k], conv.Line
		rows = append(rows, row)
	}
	// Calls finish in any order; the report follows the order they were made.
	slices.SortStableFunc(rows, func(a, b Row) int {
		if a.Step != b.Step {
			return a.Step - b.Step
		}
		return a.Index - b.Index
	})
	answer := recordedAnswer(conv, turns, reqs)
	return &Result{Rows: rows, Answer: answer, Schema: conformance(conv, answer)}, nil
}

// writeEnd ends the replay's transcript: the recording's reason when the
// replay got through, else why it stopped.
func writeEnd(ctx context.Context, w *transcript.Writer, conv *transcript.Conversation, out *agent.Outcome, played int, err error) error {
	end := transcript.End{Reason: wire.ReasonStop, Steps: played}
	if out != nil {
		end.Steps, end.Usage, end.Reason = out.Steps, out.Usage, out.Reason
	}
	if conv.End != nil {
		end.Reason = conv.End.Reason
	}
	if err != nil {
		end.Reason, end.Error = wire.ReasonError, err.Error()
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			end.Reason = wire.ReasonInterrupted
		}
	}
	werr := w.WriteEnd(end)
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// rerun stands between the loop and the tools: a call the recording
// answered without running it is answered the same way now, and only the
// others reach the tools.
type rerun struct {
	tools agent.Executor
	rec   *recording
	// step is the step of the turn being replayed; the loop runs one turn
	// at a time, and its calls start after step is set.
	step int
}

func (r *rerun) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	k := callKey{r.step, callID}
	if kind := r.rec.kinds[k]; wire.NotRun(kind) {
		return agent.ToolResult{Content: r.rec.results[k].Content, IsError: true, Kind: kind, ExitCode: -1}
	}
	return r.tools.Call(ctx, name, callID, args)
}

// recordedTurns parses the assistant turns of a conversation (Responses: a
// run of output items each), with what the transcript recorded about how
// each ended, on the turn's last message.
func recordedTurns(d agent.Dialect, conv *transcript.Conversation) ([]*agent.Turn, error) {
	msgs := make([]agent.Message, len(conv.Messages))
	for i, rec := range conv.Messages {
		msgs[i] = rec.Message
	}
	var turns []*agent.Turn
	for _, span := range agent.Turns(d, msgs) {
		t, err := agent.ParseTurn(d, msgs[span.Start:span.End])
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", conv.Messages[span.Start].Seq, err)
		}
		for _, rec := range conv.Messages[span.Start:span.End] {
			if rec.FinishReason != "" {
				t.FinishReason = rec.FinishReason
			}
			if rec.Usage != nil {
				t.Usage.Add(*rec.Usage)
			}
		}
		if stop, ok := agent.RecordedStop(t.FinishReason); ok {
			t.Stop = stop
		}
		turns = append(turns, t)
	}
	return turns, nil
}

// recordedRequest is what a transcript says of the request of one step
// beyond its messages.
type recordedRequest struct {
	final   bool
	cleared []transcript.Cleared
}

// recordedRequests are the requests of the recorded turns, in order. The
// record that says it is the one with the turn's usage: the turn's last.
func recordedRequests(d agent.Dialect, conv *transcript.Conversation) []recordedRequest {
	var out []recordedRequest
	for _, rec := range conv.Messages {
		if d.Role(rec.Message) != "assistant" {
			continue
		}
		out = append(out, recordedRequest{final: rec.ToolChoice == "none", cleared: rec.Cleared})
	}
	return out
}

// recording is what a conversation recorded, arranged for a replay.
type recording struct {
	msgs []agent.Message
	// turns are where in msgs the assistant turns are.
	turns []agent.TurnSpan
	// results are the recorded results by step and call id; errKnown
	// marks those whose is_error the transcript's metadata gives (an
	// OpenAI tool message does not say it: it is guessed from its text),
	// and kinds holds the kind it gives a failed call.
	results  map[callKey]agent.RecordedResult
	errKnown map[callKey]bool
	kinds    map[callKey]string
}

func readRecording(d agent.Dialect, conv *transcript.Conversation) *recording {
	r := &recording{results: map[callKey]agent.RecordedResult{}, errKnown: map[callKey]bool{}, kinds: map[callKey]string{}}
	for _, m := range conv.Messages {
		r.msgs = append(r.msgs, m.Message)
	}
	r.turns = agent.Turns(d, r.msgs)
	t := 0 // the turns that start at or before the message
	for i, m := range conv.Messages {
		for t < len(r.turns) && r.turns[t].Start <= i {
			t++
		}
		if t > 0 && i < r.turns[t-1].End {
			continue
		}
		for j, res := range d.ParseResults(m.Message) {
			k := callKey{t, res.CallID}
			if j < len(m.Results) && m.Results[j].CallID == res.CallID {
				res.IsError = m.Results[j].IsError
				r.errKnown[k] = true
				r.kinds[k] = m.Results[j].Error
			}
			r.results[k] = res
		}
	}
	// Calls of the last turn that finished before the run stopped: their
	// results are in result records, written as a message would hold them.
	for _, f := range agent.FinishedFromRecords(conv.Finished) {
		k := callKey{len(r.turns), f.Call.ID}
		msgs, err := d.ResultMessages([]agent.CallResult{f})
		if _, ok := r.results[k]; ok || err != nil || len(msgs) != 1 {
			continue
		}
		if rs := d.ParseResults(msgs[0].Message); len(rs) == 1 {
			rs[0].IsError = f.Result.IsError
			r.results[k], r.errKnown[k], r.kinds[k] = rs[0], true, f.Result.Kind
		}
	}
	return r
}

// turnAt is the index of assistant turn t in msgs, or len(msgs) past the
// last one.
func (r *recording) turnAt(t int) int {
	if t < len(r.turns) {
		return r.turns[t].Start
	}
	return len(r.msgs)
}

// turnEnd is the index just past assistant turn t in msgs.
func (r *recording) turnEnd(t int) int {
	if t < len(r.turns) {
		return r.turns[t].End
	}
	return len(r.msgs)
}

// compareCall compares a call's fresh result with the recorded one.
func compareCall(d agent.Dialect, k callKey, name string, res agent.ToolResult, recorded *recording, loaded func(string) bool, ignore []*regexp.Regexp, redact *transcript.Redactor) Row {
	row := Row{Step: k.step, ID: k.id, Name: name}
	if kind := recorded.kinds[k]; wire.NotRun(kind) {
		row.Status, row.Recorded = NotRun, kind
		return row
	}
	if res.Kind == wire.KindSkipped {
		row.Status = Skipped
		return row
	}
	rec, ok := recorded.results[k]
	if !ok {
		row.Status = Unrecorded
		return row
	}
	// The fresh result, written as the recording wrote results. Without
	// the transcript's word on is_error, the recorded one was read from
	// the text, and so is the fresh one. The first message answers the
	// call; a second one holds its images (Chat Completions), which the
	// first one's text describes.
	msgs, err := d.ResultMessages([]agent.CallResult{{Call: agent.Call{ID: k.id, Name: name}, Result: res}})
	got, gotErr := res.Content, res.IsError
	if err == nil && len(msgs) > 0 {
		if rs := d.ParseResults(msgs[0].Message); len(rs) == 1 {
			got = rs[0].Content
			if !recorded.errKnown[k] {
				gotErr = rs[0].IsError
			}
		}
	}
	got = redact.RedactString(got)
	want := rec.Content
	for _, rx := range ignore {
		got = rx.ReplaceAllString(got, "<ignored>")
		want = rx.ReplaceAllString(want, "<ignored>")
	}
	switch {
	case got == want && gotErr == rec.IsError:
		row.Status = Same
		return row
	case res.Kind == wire.KindUnknownTool && !loaded(name) && !rec.IsError:
		row.Status = Missing
	case gotErr && !rec.IsError:
		row.Status = NowError
	default:
		row.Status = Different
	}
	row.Diff = unifiedDiff(want, got)
	return row
}

// unifiedDiff is a unified diff of the recorded and the replayed content.
func unifiedDiff(recorded, replayed string) []byte {
	nl := func(s string) []byte {
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return []byte(s)
	}
	d := diff.Diff("recorded", nl(recorded), "replayed", nl(replayed))
	// The first line repeats the two names; the ---/+++ lines say them.
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:]
	}
	return d
}

// recordedAnswer is the answer the recording ended with, if it ended with
// one: what its run printed. That is the text of the last turn when the
// model answered, refused or was cut off by max_tokens (calls or no calls:
// those were not run), or gave the answer a budget asked for.
func recordedAnswer(conv *transcript.Conversation, turns []*agent.Turn, reqs []recordedRequest) string {
	if len(turns) == 0 {
		return ""
	}
	last := turns[len(turns)-1]
	reason := wire.ReasonStop
	if conv.End != nil {
		reason = conv.End.Reason
	}
	switch {
	case last.Stop == agent.StopPause:
		// A turn the server paused is not over: the run was stopped.
		return ""
	case last.Stop == agent.StopRefusal || last.Stop == agent.StopMaxTokens:
		if reason == wire.ReasonRefusal || reason == wire.ReasonMaxTokens {
			return last.Text
		}
	case len(reqs) == len(turns) && reqs[len(reqs)-1].final:
		switch reason {
		case wire.ReasonMaxSteps, wire.ReasonBudget, wire.ReasonContext:
			return last.Text
		}
	case len(last.Calls) == 0 && (reason == wire.ReasonStop || reason == wire.ReasonSchema):
		return last.Text
	}
	return ""
}

func headerModel(conv *transcript.Conversation) string {
	if conv.Header != nil {
		return conv.Header.Model
	}
	return ""
}

// recordPrefix writes recorded messages the loop does not write itself.
func recordPrefix(w *transcript.Writer, msgs []transcript.Message) error {
	if w == nil {
		return nil
	}
	for _, m := range msgs {
		m.Seq = 0
		if err := w.WriteMessage(m); err != nil {
			return err
		}
	}
	return nil
}
