package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/provider/anthropic"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
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
	st, turns := recordedState(conv)
	if c, ok := withoutBudgetAnswer(conv, st.Messages, turns); ok {
		conv = c
		st, turns = recordedState(conv)
	}
	opts.Limits.useRecorded(conv.Header, opts.File)
	if err := opts.Schema.useRecorded(conv.Header, opts.File); err != nil {
		return err
	}
	d := agent.DialectFor(conv.Shape)
	if n := len(turns); n > 0 && turns[n-1].End == len(st.Messages) && !paused(conv, turns[n-1]) {
		if t, err := agent.ParseTurn(d, st.Messages[turns[n-1].Start:]); err == nil && len(t.Calls) == 0 {
			// Nothing is sent or written: the file does not fit the
			// command, a usage mistake (exit 2), not a failure.
			name, file := opts.File, opts.File
			if file == "-" {
				// run --continue reads a file, not stdin.
				name, file = "the conversation on stdin", "FILE"
			}
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s ended with %s: there is nothing to resume (to go on with a new message: agentloop run --continue=%s MESSAGE)",
				name, endedWith(conv, turns[n-1]), file)}
		}
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
		command: "resume", model: &mo, tools: opts.recordedTools(conv), parent: opts.File, conv: conv, force: opts.Force,
	})
	if err != nil {
		return err
	}
	out, err := run.loop.Run(run.ctx, st)
	return run.finish(ios, out, err)
}

// withoutBudgetAnswer leaves out the conversation's last turn when it is
// the answer a budget asked for (a request with tool choice "none", sent
// because --max-steps, a token or cost budget or the context limit was
// about to run out) and holds no calls: that answer is the model made to
// stop, not the model done, and a resume goes on from before it, with the
// tools offered again. The recording is not changed; the copy returned
// (with true) is. msgs and turns are the conversation's (recordedState).
func withoutBudgetAnswer(conv *transcript.Conversation, msgs []agent.Message, turns []agent.TurnSpan) (*transcript.Conversation, bool) {
	if len(turns) == 0 {
		return conv, false
	}
	last := turns[len(turns)-1]
	if last.End != len(msgs) {
		return conv, false
	}
	forced := false
	for _, rec := range conv.Messages[last.Start:last.End] {
		forced = forced || rec.ToolChoice == "none"
	}
	if !forced {
		return conv, false
	}
	if t, err := agent.ParseTurn(agent.DialectFor(conv.Shape), msgs[last.Start:]); err != nil || len(t.Calls) > 0 {
		return conv, false
	}
	c := *conv
	c.Messages = conv.Messages[:last.Start]
	return &c, true
}

// paused reports whether a turn is one the server paused (stop reason
// pause_turn): it is not over, and sending it back goes on with it.
func paused(conv *transcript.Conversation, span agent.TurnSpan) bool {
	for _, rec := range conv.Messages[span.Start:span.End] {
		if stop, _ := agent.RecordedStop(rec.FinishReason); stop == agent.StopPause {
			return true
		}
	}
	return false
}

// endedWith says what a conversation's last turn, one without calls, was:
// its end record says, else how the turn finished.
func endedWith(conv *transcript.Conversation, span agent.TurnSpan) string {
	reason := ""
	if conv.End != nil {
		reason = conv.End.Reason
	}
	for _, rec := range conv.Messages[span.Start:span.End] {
		switch stop, _ := agent.RecordedStop(rec.FinishReason); stop {
		case agent.StopRefusal:
			reason = wire.ReasonRefusal
		case agent.StopMaxTokens:
			reason = wire.ReasonMaxTokens
		}
	}
	switch reason {
	case wire.ReasonRefusal:
		return "the model's refusal"
	case wire.ReasonMaxTokens:
		return "an answer cut off by the output token limit"
	}
	return "an answer"
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
		!config.SameBaseURL(h.BaseURL, openai.BaseURL) && !config.SameBaseURL(h.BaseURL, anthropic.BaseURL) {
		v, src, err := recordedBaseURL(cfg, file, h)
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

// recordedState is a recorded conversation as the loop goes on with it:
// its messages, the model calls and tokens it spent, and the results of
// calls that finished before its run stopped; and its turns.
func recordedState(conv *transcript.Conversation) (agent.State, []agent.TurnSpan) {
	msgs := make([]agent.Message, len(conv.Messages))
	st := agent.State{Messages: msgs}
	for i, rec := range conv.Messages {
		msgs[i] = rec.Message
		st.Cleared = append(st.Cleared, rec.Cleared...)
	}
	turns := agent.Turns(agent.DialectFor(conv.Shape), msgs)
	st.Steps = len(turns)
	for _, span := range turns {
		for _, rec := range conv.Messages[span.Start:span.End] {
			if rec.Usage != nil {
				st.Usage.Add(*rec.Usage)
				if in, _ := transcript.RequestTokens(conv.Shape, *rec.Usage); in > 0 && rec.RequestBytes > 0 {
					st.TokensPerByte = float64(in) / float64(rec.RequestBytes)
				}
			}
		}
	}
	// A pending call that had finished before the run stopped is answered
	// with its recorded result, not run (or asked about) again.
	st.Finished = agent.FinishedFromRecords(conv.Finished)
	return st, turns
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

// recordedBaseURL is the address to go on with a transcript whose header
// names a base URL and that no flag or variable overrides: the one the
// configuration file names, when it is the same address (its top level's
// or a profile's). A transcript never chooses where the API key goes: it
// may come from anywhere (a CI artifact, a bug report, a file put in a
// shared folder) and name any server, on this machine (a port anyone can
// listen on, an ssh -R forward) or not. Any other address is refused
// before any request, saying the flag that names it.
func recordedBaseURL(cfg *config.Config, file string, h *transcript.Header) (string, config.Source, error) {
	if strings.Contains(h.BaseURL, transcript.Redacted) {
		return "", config.Source{}, flagErrorf("%s was recorded against %s, whose credentials a transcript does not keep; give the address again with --base-url", file, h.BaseURL)
	}
	if cfg != nil {
		if v, src, ok := cfg.ConfiguredBaseURL(h.BaseURL); ok {
			return v, src, nil
		}
	}
	u := transcript.RedactURL(h.BaseURL)
	return "", config.Source{}, &ExitError{Code: ExitUsage, Err: fmt.Errorf(
		"%s was recorded against %s, an address you have not configured: agentloop sends your API key only to an address you give (--base-url, %s, %s or base_url in the configuration file), never to one a transcript names; to go on there, pass --base-url %s (or --base-url of the server to use)",
		file, u, "AGENTLOOP_BASE_URL", config.ProviderBaseURLEnv(h.Provider), shell.Quote(u))}
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && fa.IsDir() && os.SameFile(fa, fb)
}
