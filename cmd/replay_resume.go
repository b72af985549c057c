package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"

	"github.com/agentloop/agentloop/pkg/engine"
)

// runReplayResume continues a recorded conversation with the live model.
func runReplayResume(ctx context.Context, opts *ReplayOptions) error {
	ios := opts.IO
	conv, err := loadConversation(ios, opts.File, forcePolicy(opts.Force))
	var invalid *invalidError
	if errors.As(err, &invalid) {
		// What a live model is sent, not a replay: the API would refuse it.
		return fmt.Errorf("%s fails validation (%d error%s): it cannot be resumed as it is (the API would refuse it); fix it, or pass --force", invalid.file, invalid.n, plural(invalid.n, "", "s"))
	}
	if err != nil {
		return err
	}
	conv, st, ended := engine.ResumeState(conv)
	if ended != "" {
		// Nothing is sent or written: the file does not fit the command,
		// a usage mistake (exit 2), not a failure.
		name, file := opts.File, opts.File
		if file == "-" {
			// run --continue reads a file, not stdin.
			name, file = "the conversation on stdin", "FILE"
		}
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s ended with %s: there is nothing to resume (to go on with a new message: agentloop run --continue=%s MESSAGE)",
			name, ended, file)}
	}
	opts.Limits.useRecorded(conv.Header, opts.File)
	if err := opts.Schema.useRecorded(conv.Header, opts.File); err != nil {
		return err
	}

	// Decided once the file is known to have something to resume: what
	// it says of its model and address matters only then.
	mo, err := recordedModel(ios, opts.Config, opts.Model, opts.File, conv, "resumed")
	if err != nil {
		return err
	}
	// A tool the recording offered that cannot be loaded now stops the
	// run before any request (narrowTools).
	run, err := startLive(ctx, ios, &opts.liveOptions, liveSetup{
		command: "resume", model: &mo, tools: opts.recordedTools(conv), parent: opts.File, conv: conv, force: opts.Force, state: &st,
	})
	if err != nil {
		return err
	}
	out, err := run.goOn()
	return run.finish(ios, out, err)
}

// recordedModel decides the model settings of a run that goes on with a
// recorded conversation: a flag, then the recording, then the environment
// and the configuration file (the recorded base URL comes after an
// environment variable too, and is used only when the configuration file
// names it: recordedBaseURL; the temperature and the output cap, flags
// only, come from a flag or the recording). The provider cannot change: the messages are
// in the recorded provider's wire shape. how says what the conversation is
// ("resumed", "continued") in the refusal.
func recordedModel(ios *IOStreams, cfg *config.Config, flags modelOptions, file string, conv *transcript.Conversation, how string) (modelOptions, error) {
	mo := flags
	if h := conv.Header; h != nil {
		if mo.Model == "" && h.Model != "" {
			mo.Model, mo.modelFrom = h.Model, "the transcript's model"
		}
		if mo.Provider == "" {
			mo.Provider = h.Provider
		}
		if mo.System == "" {
			mo.System = h.System
		}
		if !mo.setTemp && h.Temperature != nil {
			mo.Temperature, mo.setTemp = *h.Temperature, true
		}
		if mo.MaxTokens == 0 {
			mo.MaxTokens = h.MaxTokens
		}
	}
	if mo.System == "" {
		mo.System = conv.System
	}
	if mo.Model == "" && conv.Model != "" {
		mo.Model, mo.modelFrom = conv.Model, "the request body's model"
	}
	if mo.Provider == "" {
		mo.Provider = conv.Shape
	}
	if mo.Provider != conv.Shape {
		return mo, flagErrorf("the transcript's messages are in the %s shape; it can be %s only with --provider %s", conv.Shape, how, conv.Shape)
	}
	if h := conv.Header; h != nil && mo.BaseURL == "" && !baseURLFromEnv(ios, cfg, h.Provider) && h.BaseURL != "" &&
		!engine.IsDefaultBaseURL(h.BaseURL) {
		v, src, err := engine.RecordedBaseURL(cfg, file, h)
		if err != nil {
			return mo, err
		}
		mo.BaseURL, mo.baseURLFrom = v, baseURLSetting(src)
	}
	if cfg != nil {
		fillModel(cfg, &mo)
	}
	// The system prompt goes first in a Chat Completions request; a log
	// whose messages already start with it (another tool's) is sent as it
	// is, without a second one.
	if wire.Shape(conv.Shape).SystemAsMessage() && len(conv.Messages) > 0 {
		if role := agent.DialectFor(conv.Shape).Role(conv.Messages[0].Message); role == "system" || role == "developer" {
			if flags.System != "" {
				return mo, flagErrorf("--system: the messages of %s start with a %s message already", file, role)
			}
			mo.System = ""
		}
	}
	return mo, nil
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
