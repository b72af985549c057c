package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// runResult is what --json prints.
type runResult struct {
	Answer string           `json:"answer"`
	Reason string           `json:"reason"`
	Steps  int              `json:"steps"`
	Usage  transcript.Usage `json:"usage"`
	// CostUSD is null when the model's price is not known.
	CostUSD *float64 `json:"cost_usd"`
	// PerStep is this run's requests, one a step: how the run grew.
	PerStep    []stepJSON `json:"per_step"`
	Transcript string     `json:"transcript,omitempty"`
	Error      string     `json:"error,omitempty"`
	// With --schema: the answer's value and whether it matched.
	*schemaJSON
}

// runEnd is what a live run needs to finish.
type runEnd struct {
	w        *transcript.Writer
	prog     *progress
	stream   *answerStream
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
func finishRun(ios *IOStreams, out *agent.Outcome, err error, e runEnd) error {
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
		res := runResult{Answer: out.Answer, Reason: out.Reason, Steps: out.Steps, Usage: out.Usage, Transcript: path,
			PerStep: perStep(out.Requests), schemaJSON: schemaResult(e.schema, out)}
		if out.CostKnown {
			cost := agent.RoundCost(out.Cost)
			res.CostUSD = &cost
		}
		if err != nil {
			res.Error = err.Error()
		}
		enc := json.NewEncoder(jsonOut(ios))
		enc.SetEscapeHTML(false)
		if werr := enc.Encode(res); werr != nil && !errors.Is(werr, syscall.EPIPE) {
			return werr
		}
	} else if e.schema.on() {
		printSchemaAnswer(ios, out)
	} else if out.Answer != "" && !e.stream.answered() && (out.Reason == wire.ReasonStop || out.Reason == wire.ReasonMaxTokens || out.Reason == wire.ReasonRefusal || out.Exhausted != "") {
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
func stdoutClosed(ios *IOStreams) bool {
	w, ok := ios.Out.(*watchedWriter)
	return ok && errors.Is(w.Err(), syscall.EPIPE)
}

// outcomeError maps how a run ended to the error Execute turns into an
// exit status.
func outcomeError(out *agent.Outcome, err error, path string, e runEnd) error {
	resume := ""
	if path != "" {
		resume = "; continue it with: " + resumeCommand(path, e.resumeArgs)
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
			resume = "; continue it under a larger limit with: " + resumeCommand(path, append([]string{"--context-limit", "TOKENS"}, e.resumeArgs...))
		}
		return &ExitError{Code: ExitBudget, Err: errors.New(exhaustedMessage(out, e) + resume)}
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
	return errors.New(clean)
}

// resumeArgs are the flags of a command line that a run going on with its
// transcript needs given again: what the transcript does not carry on by
// itself. Its base URL is used only when the user names it, its tools
// folders only once trusted, and neither the MCP servers of --mcp-config
// nor the profile are recorded at all. Settings of the environment or
// the configuration file apply again as they are.
func resumeArgs(cfg *config.Config) []string {
	var args []string
	if cfg.Source("profile").Kind == config.SourceFlag {
		args = append(args, "--profile", cfg.Profile)
	}
	if u, src := cfg.BaseURL(cfg.ProviderName()); src.Kind == config.SourceFlag {
		// A key or password in it is never shown: the command says
		// where the address goes, for the user to give it again.
		if transcript.RedactURL(u) != u {
			u = "URL"
		}
		args = append(args, "--base-url", u)
	}
	if cfg.Source("tools_dirs").Kind == config.SourceFlag {
		for _, d := range cfg.ToolsDirs {
			args = append(args, "--tools-dir", d)
		}
	}
	if cfg.Source("mcp_config").Kind == config.SourceFlag {
		for _, f := range cfg.MCPConfig {
			args = append(args, "--mcp-config", f)
		}
	}
	return args
}

// resumeCommand is the command that goes on with the transcript at path,
// with the flags args, each word quoted for a shell.
func resumeCommand(path string, args []string) string {
	words := []string{"agentloop", "replay", "--resume"}
	for _, a := range append(slices.Clone(args), path) {
		words = append(words, shell.Quote(a))
	}
	return strings.Join(words, " ")
}
