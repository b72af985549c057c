package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// runReplayResume continues a recorded conversation with the live model.
func runReplayResume(ctx context.Context, opts *ReplayOptions) error {
	ios := opts.IO
	conv, err := loadConversation(ios, opts.File, opts.Force)
	if err != nil {
		return err
	}
	d := dialectFor(conv.Shape)

	// What the recording says, unless a flag says otherwise.
	mo := opts.Model
	if h := conv.Header; h != nil {
		if mo.Model == "" {
			mo.Model = h.Model
		}
		if mo.Provider == "" {
			mo.Provider = h.Provider
		}
		// The recorded address stands in for the configuration file: a
		// flag or an environment variable still wins.
		if mo.BaseURL == "" && !baseURLFromEnv(ios, opts.Config, h.Provider) &&
			h.BaseURL != "" && h.BaseURL != agent.OpenAIBaseURL && h.BaseURL != agent.AnthropicBaseURL {
			if strings.Contains(h.BaseURL, transcript.Redacted) {
				return flagErrorf("%s was recorded against %s, whose credentials a transcript does not keep; give the address again with --base-url", opts.File, h.BaseURL)
			}
			mo.BaseURL, mo.baseURLFrom = h.BaseURL, "the transcript's base_url"
		}
		if mo.System == "" {
			mo.System = h.System
		}
	}
	if mo.System == "" {
		mo.System = conv.System
	}
	if mo.Provider == "" {
		mo.Provider = conv.Shape
	}
	if mo.Provider != conv.Shape {
		return flagErrorf("the transcript's messages are in the %s shape; it can be resumed only with --provider %s", conv.Shape, conv.Shape)
	}
	// Then what the environment and the configuration file say.
	if opts.Config != nil {
		opts.Config.fillModel(&mo)
	}

	// The system prompt goes first in a Chat Completions request; a log
	// whose messages already start with it (another tool's) is sent as it
	// is, without a second one.
	if d.Name() == "openai" && len(conv.Messages) > 0 {
		if role := d.Role(conv.Messages[0].Message); role == "system" || role == "developer" {
			if opts.Model.System != "" {
				return flagErrorf("--system: the messages of %s start with a %s message already", opts.File, role)
			}
			mo.System = ""
		}
	}

	msgs := make([]agent.Message, len(conv.Messages))
	steps := 0
	var usage transcript.Usage
	for i, rec := range conv.Messages {
		msgs[i] = rec.Message
		if d.Role(rec.Message) == "assistant" {
			steps++
			if rec.Usage != nil {
				usage.Add(*rec.Usage)
			}
		}
	}
	if last := msgs[len(msgs)-1]; d.Role(last) == "assistant" {
		if t, err := d.ParseAssistant(last); err == nil && len(t.Calls) == 0 {
			return fmt.Errorf("%s ended with an answer: there is nothing to resume", opts.File)
		}
	}

	// --tools-dir, else the folders the run recorded (those that still
	// exist: a tool gone since is a "missing tool" row), else the
	// configured ones.
	dirs, explicit := opts.ToolsDirs, opts.toolsDirsSet
	if !explicit && conv.Header != nil && len(conv.Header.ToolsDirs) > 0 {
		dirs = conv.Header.ToolsDirs
	}
	reg, err := loadTools(ios, dirs, explicit)
	if err != nil {
		return err
	}
	if err := opts.Approval.check(reg); err != nil {
		return err
	}
	reg = reg.Without(opts.Approval.Deny...)
	prov, baseURL, err := newProvider(ios, &mo)
	if err != nil {
		return err
	}
	defs, err := prov.ToolDefs(reg.Definitions())
	if err != nil {
		return err
	}

	var w *transcript.Writer
	if !opts.NoTranscript {
		path := opts.Output
		if path == "" {
			path = defaultTranscriptPath(ios, opts.TranscriptDir, transcript.NewID())
		}
		h := transcript.Header{
			Command: "resume", Provider: prov.Name(), Model: prov.Model(), BaseURL: baseURL,
			ToolsDirs: toolsDirsForHeader(dirs), Tools: defs, System: mo.System, MaxSteps: opts.MaxSteps,
		}
		if w, err = createChild(ios, path, opts.Output != "", opts.Force, opts.File, conv, h); err != nil {
			return err
		}
		// The new transcript holds the whole conversation, so it stands on
		// its own for validate, replay and a later resume.
		for _, rec := range conv.Messages {
			if err := w.WriteMessage(rec); err != nil {
				w.Close()
				return err
			}
		}
	}

	prog := newProgress(ios, opts.Verbose, opts.Quiet)
	if w != nil {
		prog.transcriptPath(fmt.Sprintf("transcript: %s (continues %s)", w.Path(), opts.File))
	}
	ctx, cancel := withRunTimeout(ctx, mo.Timeout)
	defer cancel()
	ap := newApprover(ios, reg, opts.Approval, false, prog)
	defer ap.Close()
	loop := &agent.Loop{
		Provider: prov, Tools: ap, ToolDefs: defs, System: mo.System,
		MaxSteps: opts.MaxSteps, Parallel: opts.Parallel, Transcript: w, OnEvent: ap.Observe(prog.Event),
	}
	stream := attachStream(ios, loop, prog, wantStream(ios, opts.Stream, opts.NoStream, opts.JSON))
	out, err := loop.Run(ctx, agent.State{Messages: msgs, Steps: steps, Usage: usage})
	return finishRun(ios, out, err, runEnd{w: w, prog: prog, stream: stream, asJSON: opts.JSON, maxSteps: opts.MaxSteps, redact: secrets(ios)})
}

// baseURLFromEnv reports whether AGENTLOOP_BASE_URL or the provider's own
// *_BASE_URL variable sets the address.
func baseURLFromEnv(ios *IOStreams, cfg *Config, provider string) bool {
	if cfg != nil {
		_, src := cfg.baseURL(provider)
		return src.kind == sourceEnv || src.kind == sourceFlag
	}
	env := "OPENAI_BASE_URL"
	if provider == "anthropic" {
		env = "ANTHROPIC_BASE_URL"
	}
	return ios.Getenv(env) != ""
}
