package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/approval"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// batchItems is what the items of one batch share: the tools behind one
// approver, one connection pool and rate limiter, OUTDIR, the progress.
type batchItems struct {
	ios  *iostreams.IOStreams
	opts *BatchOptions
	dir  *batch.Dir
	ap   *approver
	net  liveNet
	prog *runview.Batch
	// rounds, with --batch-api, takes the items' requests.
	rounds *engine.Rounds
}

// run runs one item to its end: from the start, or on from the transcript
// an earlier run left (the way replay --resume goes on), or, when that run
// ended but its result was not written, from nothing at all.
func (b *batchItems) run(ctx context.Context, t batch.Task) batch.Result {
	it := t.Item
	start := time.Now()
	res := batch.Result{ID: it.ID, Line: it.Line, Metadata: it.Metadata, Transcript: batch.FileName(it.ID) + ".jsonl", Attempts: 1}
	fail := func(err error) batch.Result {
		code, msg := exitCode(redactError(err, toolSecrets(b.ios, b.ap.tools)))
		res.Reason, res.ExitCode, res.Error = wire.ReasonError, code, msg
		res.DurationMS, res.Time = time.Since(start).Milliseconds(), time.Now().UTC()
		return res
	}
	// OUTDIR could not take the item's transcript (a full disk): its run
	// has no outcome, and the next run runs it. A transcript left with no
	// message in it is removed; one with messages is gone on from.
	unrecorded := func(err error) batch.Result {
		if derr := b.dir.DiscardEmpty(it.ID); derr != nil {
			err = fmt.Errorf("%w; %v", err, derr)
		}
		r := fail(err)
		r.Reason = batch.ReasonUnrecorded
		return r
	}

	o := b.opts.liveOptions
	o.Model = b.opts.itemModel(it)
	if it.MaxSteps > 0 {
		o.MaxSteps = it.MaxSteps
	}
	s := b.opts.setup(&o.Model)
	s.path = b.dir.TranscriptPath(it.ID)
	s.schema = it.Schema
	prompt := engine.ItemPrompt(it)
	s.prompt = prompt
	// An item's messages (a torn line of a killed run's transcript) are
	// not the batch's to print; its failures are in its result.
	var log bytes.Buffer
	ios := *b.ios
	ios.Out, ios.ErrOut = io.Discard, &log

	rs, err := engine.RestartItem(b.dir, it.ID, prompt, o.Model.providerName(), t.Prior != nil, ios.In, ios.ErrOut, func(conv *transcript.Conversation) error {
		// Its calls need the tools it had: without one it stops before
		// any request, its transcript kept.
		if absent := b.ap.tools.Absent(conv.Header, o.Approval.Deny); len(absent) > 0 {
			return recordedToolsError(&ios, s.tools, conv.Header.ToolsDirs, absent)
		}
		return nil
	})
	if rs.How == engine.ItemAgain || rs.How == engine.ItemResume {
		res.Attempts = rs.Earlier + 2
	}
	var unrec *engine.UnrecordedError
	switch {
	case errors.As(err, &unrec):
		return unrecorded(unrec.Err)
	case err != nil:
		return fail(err)
	case rs.How == engine.ItemEnded:
		// The run ended; only its result line was not written.
		r := engine.EndedResult(rs.Conv, res, rs.Earlier)
		r.ExitCode = recordedExit(r.Reason, r.Error)
		return r
	case rs.How == engine.ItemResume:
		st, _ := engine.State(rs.Conv)
		s.state, s.conv, s.parent = &st, rs.Conv, rs.Aside
	}

	run, err := newLoop(&ios, &o, s, b.ap, b.net)
	if err != nil {
		if engine.FileSystemError(err) {
			return unrecorded(err)
		}
		return fail(err)
	}
	loop, w := run.Loop, run.Transcript
	// The item's questions keep its own order of calls, and name it.
	order := approval.NewOrder()
	loop.Tools = b.ap.For(order, it.ID)
	loop.OnEvent = order.Observe(b.prog.Events(it.ID))
	discount := -1.0
	if b.rounds != nil {
		if discount, err = b.rounds.Attach(loop, it.ID, o.Model.MaxRetries); err != nil {
			_ = w.Close()
			return fail(err)
		}
	}
	out, err := run.Go(ctx)
	// A transcript that could not be written whole (its first write
	// error, or its sync) is not the item's outcome.
	werr := w.Close()
	// The results file is written beside the transcript and keeps out
	// what it keeps out: a key the model repeated, a credential's shape.
	// (A result read back from a transcript has it redacted already.)
	engine.SetOutcome(&res, loop, out, discount, toolSecrets(b.ios, b.ap.tools).RedactString)
	if werr != nil {
		// The steps, tokens and cost it spent stay counted; its answer,
		// not on record, is no outcome.
		res.Answer = ""
		return unrecorded(werr)
	}
	if err := outcomeError(out, err, "", runEnd{maxSteps: o.MaxSteps, limits: &o.Limits, schema: o.Schema.with(it.Schema)}); err != nil {
		res.ExitCode, res.Error = exitCode(redactError(err, toolSecrets(b.ios, b.ap.tools)))
		if out.Reason == "" {
			res.Reason = wire.ReasonError
		}
		if out.Reason == wire.ReasonMaxSteps && it.MaxSteps > 0 {
			// The budget is the input line's, not --max-steps.
			res.Error = engine.ItemBudgetError(out.Steps, it.MaxSteps, it.Line)
		}
	}
	res.DurationMS, res.Time = time.Since(start).Milliseconds(), time.Now().UTC()
	return res
}

// recordedExit is the exit status of a run that ended as its transcript
// says: the one outcomeError gives for the same end.
func recordedExit(reason, errText string) int {
	switch {
	case reason == wire.ReasonStop && errText == "":
		return ExitOK
	case reason == wire.ReasonMaxSteps, reason == "budget", reason == "context":
		return ExitBudget
	case reason == wire.ReasonSchema:
		return ExitSchema
	case reason == wire.ReasonError && engine.ProviderErrorText(errText):
		return ExitProvider
	}
	return ExitFailure
}
