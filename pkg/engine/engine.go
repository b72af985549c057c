// Package engine assembles and runs one conversation: the settings of a
// run, resolved by the command that starts it, become a provider (from a
// table of APIs), the tools behind their approval, the budgets, the
// tracing and the transcript, wired to the loop. run, run -c, replay
// --resume and each item of a batch start their runs through New the same
// way; the package also holds what a run that goes on with a recording
// needs (recorded.go, tools.go) and a batch item's policy of going on
// (item.go).
//
// It reads no flag, no environment variable and no standard stream, and
// decides no exit status: its setup errors say their Kind, and what it
// prints goes to the io.Writer it is given.
package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Settings are one run, every value resolved.
type Settings struct {
	// Command is the header's: "run", "resume", "continue" or "batch".
	Command string
	Model   Model
	System  string
	// Timeout bounds the whole run (Run.Go); 0 is none.
	Timeout            time.Duration
	MaxSteps, Parallel int
	Limits             Limits
	Output             Output
	// ToolsDirs are the folders the tools came from, nil for the default
	// ones; the header records them.
	ToolsDirs []string
	// Prompt starts a new conversation; State, when set, goes on with a
	// recorded one instead (State, ResumeState).
	Prompt string
	State  *agent.State
	// Parent is the transcript continued and Conv its conversation, which
	// the new transcript starts with; "" and nil for a new run.
	Parent string
	Conv   *transcript.Conversation
	// BatchSpan is a batch item's batch span (tracing.NewBatchSpan);
	// TraceParent and TraceState the trace agentloop was started in
	// (TraceParent).
	BatchSpan               string
	TraceParent, TraceState string
	// Version is agentloop's, recorded in the header.
	Version string
	// Answer, when set, holds the final answer to a schema.
	Answer *Answer
}

// Tools are the tools of a run: the set loaded, and the executor the loop
// calls them through (the approval before them). Redact keeps the keys
// and the values the servers were given out of the transcript.
type Tools struct {
	Set    *toolset.Set
	Exec   agent.Executor
	Redact *transcript.Redactor
}

// Run is a run set up: the loop wired to the provider, the tools and the
// transcript. The caller may set the loop's OnEvent and OnText before Go.
type Run struct {
	Loop *agent.Loop
	// Transcript is nil when none is written.
	Transcript *transcript.Writer
	Header     transcript.Header
	settings   Settings
}

// New builds the provider, creates the transcript (at the output's path,
// else a new file in its folder; its file name and header carry one id)
// and wires a loop to them and to the tools. The runs of a batch share
// tools and net; tracer may be nil.
func New(s Settings, tools Tools, net Net, tracer *Tracer) (*Run, error) {
	m := s.Model
	if m.Model == "" {
		m.Model = config.DefaultModelFor(m.Provider)
	}
	if err := s.Limits.Check(m.Provider, m.Model); err != nil {
		return nil, err
	}
	var serverClearing *agent.ContextPolicy
	if s.Limits.ServerClearing() {
		serverClearing = s.Limits.Policy()
	}
	prov, err := NewProvider(m, net, serverClearing)
	if err != nil {
		return nil, err
	}
	defs, err := tools.Set.ToolDefs(prov)
	if err != nil {
		return nil, err
	}
	r := &Run{settings: s}
	answer, answerRecord := s.Answer.setup(prov.Shape())
	if !s.Output.None {
		id := transcript.NewID()
		path := s.Output.Path
		if path == "" {
			path = NewPath(s.Output.Dir, id)
		}
		h := transcript.Header{
			ID: id, Command: s.Command, Provider: prov.Name(), Model: prov.Model(), BaseURL: BaseURLOf(prov),
			ToolsDirs: HeaderToolsDirs(s.ToolsDirs), Tools: defs, System: s.System, MaxSteps: s.MaxSteps,
			Parallel: s.Parallel, MCPServers: tools.Set.Header(), MaxTokens: m.MaxTokens, Temperature: m.Temperature,
			TraceParent: s.TraceParent, TraceState: s.TraceState, BatchSpan: s.BatchSpan, Agentloop: s.Version,
		}
		s.Limits.record(&h)
		h.AnswerSchema = answerRecord
		if r.Transcript, err = createTranscript(path, s.Output, s.Parent, s.Conv, h, tools.Redact); err != nil {
			return nil, err
		}
		r.Header = h
	}
	r.Loop = &agent.Loop{
		Provider: prov, Tools: tools.Exec, ToolDefs: defs, System: s.System,
		MaxSteps: s.MaxSteps, Parallel: s.Parallel, Answer: answer,
	}
	if r.Transcript != nil {
		// (A nil writer in the interface would be a recorder.)
		r.Loop.Transcript = r.Transcript
	}
	tracer.attach(r.Loop, r.Transcript, r.Header)
	s.Limits.apply(r.Loop, m.MaxTokens)
	return r, nil
}

// Go runs the conversation to its end, within the settings' time limit:
// from the prompt, or on from the recorded state. The caller closes the
// transcript.
func (r *Run) Go(ctx context.Context) (*agent.Outcome, error) {
	ctx, cancel := WithTimeout(ctx, r.settings.Timeout)
	defer cancel()
	if r.settings.State != nil {
		return r.Loop.Run(ctx, *r.settings.State)
	}
	return r.Loop.Prompt(ctx, r.settings.Prompt)
}

// ErrTimeout is the cause of a run stopped by its time limit.
var ErrTimeout = errors.New("run timed out")

// WithTimeout bounds a run's context by d (--timeout), none when d is 0.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("%w after %s (--timeout)", ErrTimeout, d))
}
