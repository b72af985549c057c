package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// runReplayResume continues a recorded conversation with the live model.
func runReplayResume(ctx context.Context, opts *ReplayOptions) error {
	ios := opts.IO
	conv, err := engine.LoadConversation(opts.File, ios.In, ios.ErrOut, engine.ForcePolicy(opts.Force))
	var invalid *engine.InvalidError
	if errors.As(err, &invalid) {
		// What a live model is sent, not a replay: the API would refuse it.
		return fmt.Errorf("%s fails validation (%d error%s): it cannot be resumed as it is (the API would refuse it); fix it, or pass --force", invalid.File, invalid.N, plural(invalid.N, "", "s"))
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
func recordedModel(ios *iostreams.IOStreams, cfg *config.Config, flags modelOptions, file string, conv *transcript.Conversation, how string) (modelOptions, error) {
	mo := flags
	rec := engine.RecordedModel(conv)
	if mo.Model == "" && rec.Model != "" {
		mo.Model, mo.modelFrom = rec.Model, rec.ModelFrom
	}
	if mo.Provider == "" {
		mo.Provider = rec.Provider
	}
	if mo.System == "" {
		mo.System = rec.System
	}
	if !mo.setTemp && rec.Temperature != nil {
		mo.Temperature, mo.setTemp = *rec.Temperature, true
	}
	if mo.MaxTokens == 0 {
		mo.MaxTokens = rec.MaxTokens
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
	if role := engine.LeadingSystemRole(conv); role != "" {
		if flags.System != "" {
			return mo, flagErrorf("--system: the messages of %s start with a %s message already", file, role)
		}
		mo.System = ""
	}
	return mo, nil
}

// baseURLFromEnv reports whether AGENTLOOP_BASE_URL or the provider's own
// *_BASE_URL variable sets the address.
func baseURLFromEnv(ios *iostreams.IOStreams, cfg *config.Config, provider string) bool {
	if cfg != nil {
		_, src := cfg.BaseURL(provider)
		return src.Kind == config.SourceEnv || src.Kind == config.SourceFlag
	}
	return ios.Getenv(config.ProviderBaseURLEnv(provider)) != ""
}
