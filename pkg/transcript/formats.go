package transcript

import (
	"github.com/agentloop/agentloop/pkg/transcript/format/bedrock"
	"github.com/agentloop/agentloop/pkg/transcript/format/cassette"
	"github.com/agentloop/agentloop/pkg/transcript/format/claudecode"
	"github.com/agentloop/agentloop/pkg/transcript/format/codex"
	"github.com/agentloop/agentloop/pkg/transcript/format/conversations"
	"github.com/agentloop/agentloop/pkg/transcript/format/gemini"
	"github.com/agentloop/agentloop/pkg/transcript/format/geminicli"
	"github.com/agentloop/agentloop/pkg/transcript/format/har"
	"github.com/agentloop/agentloop/pkg/transcript/format/inspect"
	"github.com/agentloop/agentloop/pkg/transcript/format/messages"
	"github.com/agentloop/agentloop/pkg/transcript/format/ollama"
	"github.com/agentloop/agentloop/pkg/transcript/format/request"
	"github.com/agentloop/agentloop/pkg/transcript/format/swe"
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// registry is every format Validate reads, in the order --list-formats
// lists them; a file is read by the one whose sniff is surest of it (the
// first of those equally sure). A new format is a folder under format/
// and a line here.
var registry = func() check.Registry {
	r := check.Registry{
		agentloopFormat{},
		messages.Format,
		bedrock.Format,
		ollama.Format,
		conversations.Format,
		request.Format,
		claudecode.Format,
		codex.Format,
		inspect.Format,
		swe.Format,
		cassette.Format,
		har.Format,
		gemini.Format,
		geminicli.Format,
	}
	r.Check()
	return r
}()

// Input formats: the names Options.Input takes.
const (
	InputAgentloop     = "agentloop"        // agentloop transcript: header, message and end records
	InputMessages      = messages.Name      // JSONL, one message a line: one conversation
	InputBedrock       = bedrock.Name       // Amazon Bedrock Converse request bodies: one for the file, or one a line
	InputOllama        = ollama.Name        // Ollama /api/chat request bodies: one for the file, or one a line
	InputConversations = conversations.Name // JSONL, one {"messages": […]} (or request body) a line
	InputRequest       = request.Name       // one JSON request body, or an array of messages, for the whole file
	InputClaudeCode    = claudecode.Name    // Claude Code session log: a tree of user and assistant lines
	InputCodex         = codex.Name         // Codex CLI rollout: Responses items under response_item lines
	InputInspect       = inspect.Name       // Inspect AI eval log: samples[].messages
	InputSWEAgent      = swe.Name           // SWE-agent trajectory (.traj): history
	InputVCR           = cassette.Name      // VCR cassette (vcrpy, go-vcr, Ruby's VCR): the request bodies recorded
	InputHAR           = har.Name           // HTTP Archive: the request bodies recorded
	InputGemini        = gemini.Name        // Gemini API contents: request bodies, chat histories
	InputGeminiCLI     = geminicli.Name     // Gemini CLI session: messages with their tool calls
)

// Inputs are the input formats, in the order help and errors list them.
var Inputs = registry.Names()

// FormatInfo describes a format validate reads.
type FormatInfo = check.Info

// Formats describes every format validate reads, in the order Inputs
// lists them.
func Formats() []FormatInfo {
	out := make([]FormatInfo, len(registry))
	for i, f := range registry {
		out[i] = f.Info()
	}
	return out
}
