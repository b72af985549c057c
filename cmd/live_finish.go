package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// runEnd is what a live run needs to finish.
type runEnd struct {
	w        *transcript.Writer
	prog     *runview.Progress
	stream   *runview.Stream
	asJSON   bool
	maxSteps int
	limits   *limitOptions
	redact   *transcript.Redactor
	// resumeArgs are the flags the command to go on with the run names
	// (see resumeArgs).
	resumeArgs []string
	// schema is the run's --schema, nil or off for none.
	schema *schemaOptions
}

// finishRun closes the transcript, prints the outcome and maps it to an
// exit status.
func finishRun(ios *iostreams.IOStreams, out *agent.Outcome, err error, e runEnd) error {
	if e.stream != nil {
		e.stream.Close()
	}
	e.prog.Close()
	path := ""
	if e.w != nil {
		path = e.w.Path()
		if cerr := e.w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	e.prog.Summary(out)
	err = outcomeError(out, err, path, e)
	if err != nil {
		err = redactError(err, e.redact)
	}
	if e.asJSON {
		res := runview.NewResult(out, path, err, e.schema.on())
		enc := json.NewEncoder(jsonOut(ios))
		enc.SetEscapeHTML(false)
		if werr := enc.Encode(res); werr != nil && !errors.Is(werr, syscall.EPIPE) {
			return werr
		}
	} else if e.schema.on() {
		printSchemaAnswer(ios, out)
	} else if out.Answer != "" && !e.stream.Answered() && (out.Reason == wire.ReasonStop || out.Reason == wire.ReasonMaxTokens || out.Reason == wire.ReasonRefusal || out.Exhausted != "") {
		fmt.Fprintln(ios.Out, terminalText(ios, strings.TrimRight(out.Answer, "\n")))
	}
	if err == nil && stdoutClosed(ios) {
		// The reader went away (| head -1) with the run's work done: say
		// where the rest of the answer is, not what write failed.
		msg := "standard output was closed before the whole answer was written"
		if path != "" {
			msg += "; the transcript holds it: " + path
		}
		return &ExitError{Code: ExitFailure, Err: errors.New(msg)}
	}
	return err
}

// stdoutClosed reports whether a write to standard output found that
// nobody reads it any more (EPIPE).
func stdoutClosed(ios *iostreams.IOStreams) bool {
	w, ok := ios.Out.(*iostreams.WatchedWriter)
	return ok && errors.Is(w.Err(), syscall.EPIPE)
}

// outcomeError maps how a run ended to the error Execute turns into an
// exit status.
func outcomeError(out *agent.Outcome, err error, path string, e runEnd) error {
	resume := ""
	if path != "" {
		resume = "; continue it with: " + engine.ResumeCommand(path, e.resumeArgs)
	}
	if err != nil {
		var pe *agent.ProviderError
		switch {
		case errors.Is(err, errInterrupted):
			return &ExitError{Code: ExitInterrupted, Err: errors.New("interrupted" + resume)}
		case errors.Is(err, errStdoutClosed):
			return &ExitError{Code: ExitInterrupted, Err: errors.New(errStdoutClosed.Error() + resume)}
		case errors.Is(err, engine.ErrTimeout):
			return &ExitError{Code: ExitProvider, Err: fmt.Errorf("%w%s", err, resume)}
		case errors.As(err, &pe):
			if !engine.Passing(pe) {
				resume = "" // the same request would be refused again
			}
			return &ExitError{Code: ExitProvider, Err: fmt.Errorf("%w%s", err, resume)}
		}
		return err
	}
	if out.Exhausted != "" {
		// Answered or not, the work was cut short: a resume leaves out an
		// answer the budget asked for and goes on with the tools. Under
		// the same context limit it would stop where this run did: the
		// results it may not clear fill it.
		if out.Exhausted == agent.ExhaustedContext && path != "" {
			resume = "; continue it under a larger limit with: " + engine.ResumeCommand(path, append([]string{"--context-limit", "TOKENS"}, e.resumeArgs...))
		}
		return &ExitError{Code: ExitBudget, Err: errors.New(engine.ExhaustedMessage(out, e.maxSteps, e.limits.Limits, e.limits.givenAs) + resume)}
	}
	switch out.Reason {
	case wire.ReasonSchema:
		return schemaError(e.schema, out)
	case wire.ReasonMaxTokens:
		return fmt.Errorf("the answer was cut off by the output token limit (raise --max-tokens)")
	case wire.ReasonRefusal:
		return fmt.Errorf("the model refused to answer")
	}
	return nil
}

// redactError keeps secrets out of an error message.
func redactError(err error, r *transcript.Redactor) error {
	msg := err.Error()
	clean := r.RedactString(msg)
	if clean == msg {
		return err
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Err: errors.New(clean)}
	}
	if k := engine.KindOf(err); k != 0 {
		return &engine.SetupError{Kind: k, Err: errors.New(clean)}
	}
	return errors.New(clean)
}
