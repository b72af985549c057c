package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
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
	mo, err := recordedModel(ios, opts.Config, opts.Model, opts.File, conv, "resumed")
	if err != nil {
		return err
	}
	st, turns := recordedState(conv)
	if c, ok := withoutBudgetAnswer(conv, st.Messages, turns); ok {
		conv = c
		st, turns = recordedState(conv)
	}
	opts.Limits.useRecorded(conv.Header, opts.File)
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
			reason = transcript.ReasonRefusal
		case agent.StopMaxTokens:
			reason = transcript.ReasonMaxTokens
		}
	}
	switch reason {
	case transcript.ReasonRefusal:
		return "the model's refusal"
	case transcript.ReasonMaxTokens:
		return "an answer cut off by the output token limit"
	}
	return "an answer"
}

// recordedModel decides the model settings of a run that goes on with a
// recorded conversation: a flag, then the recording, then the environment
// and the configuration file (the recorded base URL comes after an
// environment variable too; the temperature and the output cap, flags
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
		if mo.BaseURL == "" && !baseURLFromEnv(ios, cfg, h.Provider) &&
			h.BaseURL != "" && h.BaseURL != agent.OpenAIBaseURL && h.BaseURL != agent.AnthropicBaseURL {
			if strings.Contains(h.BaseURL, transcript.Redacted) {
				return mo, flagErrorf("%s was recorded against %s, whose credentials a transcript does not keep; give the address again with --base-url", file, h.BaseURL)
			}
			if !recordedAddressTrusted(ios, cfg, file, h) {
				u := transcript.RedactURL(h.BaseURL)
				return mo, flagErrorf("%s was recorded against %s: agentloop sends your API key only to an address you give, your configuration names or a run of your own recorded; give it with --base-url %s to go on there, or --base-url of the server to use", file, u, u)
			}
			mo.BaseURL, mo.baseURLFrom = h.BaseURL, "the transcript's base_url"
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
	if cfg != nil {
		fillModel(cfg, &mo)
	}
	// The system prompt goes first in a Chat Completions request; a log
	// whose messages already start with it (another tool's) is sent as it
	// is, without a second one.
	if conv.Shape == "openai" && len(conv.Messages) > 0 {
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

// recordedAddressTrusted reports whether the base URL a transcript's header
// names may have the user's API key sent to it without the user naming it:
// it is on this machine (localhost, a loopback address), it is the one the
// configuration file gives, or the transcript lies in the user's own
// transcripts folder, where agentloop writes. A transcript from anywhere
// else (a CI artifact, a bug report) could name any server, and resuming it
// would send that server the key.
func recordedAddressTrusted(ios *IOStreams, cfg *config.Config, file string, h *transcript.Header) bool {
	if u, err := url.Parse(h.BaseURL); err == nil {
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return true
		}
	}
	if cfg != nil {
		if v, _ := cfg.BaseURL(h.Provider); v != "" && strings.TrimRight(v, "/") == strings.TrimRight(h.BaseURL, "/") {
			return true
		}
	}
	dir := ""
	if cfg != nil {
		dir = cfg.TranscriptDir
	}
	// The folder is the user's own only when no one else can put a file
	// in it: a transcript planted in a shared one would choose the server.
	folder := filepath.Dir(file)
	return sameDir(folder, transcriptsDir(ios, dir)) && trust.NotPrivate(folder) == "" && trust.NotPrivate(file) == ""
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && fa.IsDir() && os.SameFile(fa, fb)
}
