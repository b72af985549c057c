package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
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
				return flagErrorf("%s was recorded against %s, whose password a transcript does not keep; give the address again with --base-url", opts.File, h.BaseURL)
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
		fillModel(opts.Config, &mo)
	}

	st, err := resumeState(conv)
	if err != nil {
		return fmt.Errorf("%s %w", opts.File, err)
	}

	// A tool gone since the recording is not offered; a pending call of it
	// is answered as an unknown tool.
	run, err := startLive(ctx, ios, &opts.liveOptions, liveSetup{
		command: "resume", model: &mo, tools: opts.recordedTools(conv), parent: opts.File, conv: conv,
	})
	if err != nil {
		return err
	}
	out, err := run.loop.Run(run.ctx, st)
	return run.finish(ios, out, err)
}

// resumeState is where a recorded conversation stands, for the loop to go
// on from: its messages, the steps and tokens spent, and the results of
// pending calls that finished before the run stopped, which are answered
// with their recorded results, not run (or asked about) again.
func resumeState(conv *transcript.Conversation) (agent.State, error) {
	d := agent.DialectFor(conv.Shape)
	msgs := make([]agent.Message, len(conv.Messages))
	for i, rec := range conv.Messages {
		msgs[i] = rec.Message
	}
	turns := agent.Turns(d, msgs)
	var usage transcript.Usage
	for _, span := range turns {
		for _, rec := range conv.Messages[span.Start:span.End] {
			if rec.Usage != nil {
				usage.Add(*rec.Usage)
			}
		}
	}
	if n := len(turns); n > 0 && turns[n-1].End == len(msgs) {
		if t, err := agent.ParseTurn(d, msgs[turns[n-1].Start:]); err == nil && len(t.Calls) == 0 {
			return agent.State{}, errors.New("ended with an answer: there is nothing to resume")
		}
	}
	return agent.State{Messages: msgs, Finished: agent.FinishedFromRecords(conv.Finished), Steps: len(turns), Usage: usage}, nil
}

// baseURLFromEnv reports whether AGENTLOOP_BASE_URL or the provider's own
// *_BASE_URL variable sets the address.
func baseURLFromEnv(ios *IOStreams, cfg *config.Config, provider string) bool {
	if cfg != nil {
		_, src := cfg.BaseURL(provider)
		return src.Kind == config.SourceEnv || src.Kind == config.SourceFlag
	}
	return ios.Getenv(config.ProviderBaseURLEnv(provider)) != ""
}
