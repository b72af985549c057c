package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// What a run that goes on with a recorded conversation (replay --resume,
// run -c, a batch item run again) goes on with.

// State is a recorded conversation as the loop goes on with it: its
// messages, the model calls and tokens it spent, and the results of calls
// that finished before its run stopped; and its turns.
func State(conv *transcript.Conversation) (agent.State, []agent.TurnSpan) {
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

// ResumeState is the state replay --resume goes on from: the
// conversation without the answer a budget asked for (WithoutBudgetAnswer).
// ended, when not "", says the conversation ended with an answer and holds
// nothing to resume: "an answer", "the model's refusal", "an answer cut
// off by the output token limit".
func ResumeState(conv *transcript.Conversation) (c *transcript.Conversation, st agent.State, ended string) {
	st, turns := State(conv)
	if c, ok := WithoutBudgetAnswer(conv, st.Messages, turns); ok {
		conv = c
		st, turns = State(conv)
	}
	if n := len(turns); n > 0 && turns[n-1].End == len(st.Messages) && !paused(conv, turns[n-1]) {
		if t, err := agent.ParseTurn(agent.DialectFor(conv.Shape), st.Messages[turns[n-1].Start:]); err == nil && len(t.Calls) == 0 {
			return conv, st, endedWith(conv, turns[n-1])
		}
	}
	return conv, st, ""
}

// WithoutBudgetAnswer leaves out the conversation's last turn when it is
// the answer a budget asked for (a request with tool choice "none", sent
// because --max-steps, a token or cost budget or the context limit was
// about to run out) and holds no calls: that answer is the model made to
// stop, not the model done, and a resume goes on from before it, with the
// tools offered again. The recording is not changed; the copy returned
// (with true) is. msgs and turns are the conversation's (State).
func WithoutBudgetAnswer(conv *transcript.Conversation, msgs []agent.Message, turns []agent.TurnSpan) (*transcript.Conversation, bool) {
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

// WithoutUnanswered leaves out the conversation's last message when it is a
// question the model never answered (the run failed or was interrupted
// before): the new prompt of run -c takes its place rather than following
// it. The recording is not changed; the copy is.
func WithoutUnanswered(conv *transcript.Conversation) *transcript.Conversation {
	d := agent.DialectFor(conv.Shape)
	n := len(conv.Messages)
	for n > 0 {
		msg := conv.Messages[n-1].Message
		// The pictures of tool results (Chat Completions) answer calls
		// as the results before them do: they stay.
		if len(conv.Messages[n-1].ImagesOf) > 0 {
			break
		}
		if role, text := transcript.MessageText(msg); role != "user" || text == "" || len(d.ParseResults(msg)) > 0 {
			break
		}
		n--
	}
	if n == len(conv.Messages) {
		return conv
	}
	c := *conv
	c.Messages = conv.Messages[:n]
	return &c
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

// CalledTools are the names of the tools a conversation's turns call.
func CalledTools(d agent.Dialect, conv *transcript.Conversation) []string {
	var names []string
	for _, rec := range conv.Messages {
		if d.Role(rec.Message) != "assistant" {
			continue
		}
		if t, err := d.ParseAssistant(rec.Message); err == nil {
			for _, c := range t.Calls {
				if !slices.Contains(names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	return names
}

// RecordedBaseURL is the address to go on with a transcript whose header
// names a base URL and that no flag or variable overrides: the one the
// configuration file names, when it is the same address (its top level's
// or a profile's). A transcript never chooses where the API key goes: it
// may come from anywhere (a CI artifact, a bug report, a file put in a
// shared folder) and name any server, on this machine (a port anyone can
// listen on, an ssh -R forward) or not. Any other address is refused
// before any request, saying the flag that names it. cfg may be nil.
func RecordedBaseURL(cfg *config.Config, file string, h *transcript.Header) (string, config.Source, error) {
	if strings.Contains(h.BaseURL, transcript.Redacted) {
		return "", config.Source{}, flagf("%s was recorded against %s, whose credentials a transcript does not keep; give the address again with --base-url", file, h.BaseURL)
	}
	if cfg != nil {
		if v, src, ok := cfg.ConfiguredBaseURL(h.BaseURL); ok {
			return v, src, nil
		}
	}
	u := transcript.RedactURL(h.BaseURL)
	return "", config.Source{}, usagef(
		"%s was recorded against %s, an address you have not configured: agentloop sends your API key only to an address you give (--base-url, %s, %s or base_url in the configuration file), never to one a transcript names; to go on there, pass --base-url %s (or --base-url of the server to use)",
		file, u, "AGENTLOOP_BASE_URL", config.ProviderBaseURLEnv(h.Provider), shell.Quote(u))
}

// RecordedSettings are the model settings a recorded conversation gives a
// run that goes on with it, where no flag gives them.
type RecordedSettings struct {
	Provider string
	Model    string
	// ModelFrom says where Model was read, for its errors.
	ModelFrom   string
	System      string
	Temperature *float64
	MaxTokens   int64
}

// RecordedModel reads the model settings of a recorded conversation: its
// header's first, then what its requests say (the model of a request
// body, the system prompt, the provider of the messages' shape).
func RecordedModel(conv *transcript.Conversation) RecordedSettings {
	var r RecordedSettings
	if h := conv.Header; h != nil {
		if h.Model != "" {
			r.Model, r.ModelFrom = h.Model, "the transcript's model"
		}
		r.Provider, r.System, r.Temperature, r.MaxTokens = h.Provider, h.System, h.Temperature, h.MaxTokens
	}
	if r.System == "" {
		r.System = conv.System
	}
	if r.Model == "" && conv.Model != "" {
		r.Model, r.ModelFrom = conv.Model, "the request body's model"
	}
	if r.Provider == "" {
		r.Provider = conv.Shape
	}
	return r
}

// LeadingSystemRole is the role of the recorded messages' first message
// when it is a system prompt of an API that sends it as a message (Chat
// Completions): a log that starts with one (another tool's) is sent as
// it is, without a second. "" otherwise.
func LeadingSystemRole(conv *transcript.Conversation) string {
	if !wire.Shape(conv.Shape).SystemAsMessage() || len(conv.Messages) == 0 {
		return ""
	}
	if role := agent.DialectFor(conv.Shape).Role(conv.Messages[0].Message); role == "system" || role == "developer" {
		return role
	}
	return ""
}

// ReplayHeader is the header of the transcript a replay of conv writes
// (replay -o): the tools it offered, and of the recording's header the
// model, address and system prompt, the clearing policy the replay clears
// by, and the schema its answer is held to.
func ReplayHeader(conv *transcript.Conversation, provider string, tools []json.RawMessage, dirs []string, servers []transcript.MCPServer, version string) transcript.Header {
	h := transcript.Header{Command: "replay", Provider: provider, Tools: tools, ToolsDirs: dirs, MCPServers: servers, Agentloop: version}
	if rh := conv.Header; rh != nil {
		h.Model, h.BaseURL, h.System = rh.Model, rh.BaseURL, rh.System
		h.Context, h.AnswerSchema = rh.Context, rh.AnswerSchema
	}
	return h
}
