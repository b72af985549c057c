// Package wire is agentloop's vocabulary of the wire, in one place: the
// shapes a conversation's messages come in (each the grammar of one API,
// and the name of the provider that speaks it), the kinds of a tool call's
// result, and the reasons a run ends. It imports nothing: the loop, the
// tools, the transcript and the commands all take their words from it.
package wire

// Shape is the wire shape of a conversation's messages, as a transcript's
// header names it (its "provider"), --provider takes it and validate's
// formats are named by it: the grammar of one API.
type Shape string

const (
	// Chat is OpenAI Chat Completions, and every server that speaks it.
	Chat Shape = "openai"
	// Responses is OpenAI Responses: a conversation is a list of items.
	Responses Shape = "responses"
	// Messages is Anthropic Messages.
	Messages Shape = "anthropic"
)

// Shapes are the shapes, in the order help and errors list them.
var Shapes = []Shape{Chat, Responses, Messages}

// Known reports whether s is one of Shapes.
func (s Shape) Known() bool {
	for _, k := range Shapes {
		if s == k {
			return true
		}
	}
	return false
}

// What differs between the APIs that more than one package asks about is
// said here, of the shape, never by comparing names where it is used.

// CacheApart reports whether the API's input token count leaves out the
// tokens read from and written to its prompt cache, counting (and
// billing) them apart: Anthropic's input_tokens does. Chat Completions'
// prompt_tokens and Responses' input_tokens hold the cached tokens, and
// no cache write is billed.
func (s Shape) CacheApart() bool { return s == Messages }

// ResultsInOneMessage reports whether the results of a turn's calls go
// back together in one message (Anthropic's user message of tool_result
// blocks) rather than one message each.
func (s Shape) ResultsInOneMessage() bool { return s == Messages }

// SystemAsMessage reports whether the system prompt goes as the first of
// the messages (Chat Completions), rather than in a field of its own
// (Responses' instructions, Anthropic's system).
func (s Shape) SystemAsMessage() bool { return s == Chat }

// StrictAnswerSchema reports whether the API takes the schema of a
// structured answer in OpenAI's strict form (Chat Completions'
// response_format, Responses' text.format), rather than in the form of
// Anthropic's structured outputs (output_config.format).
func (s Shape) StrictAnswerSchema() bool { return s != Messages }

// Kind is the kind of a tool call's result, recorded as a results entry's
// error. Every part that answers a call (the tool executor, an MCP server,
// the approval between the loop and the tools, the loop itself) takes its
// kind from this one table, and replay reads them back from it.
type Kind = string

const (
	// KindOK is a call that ran and succeeded: no error.
	KindOK Kind = ""

	// From the tool executor.
	KindUnknownTool  Kind = "unknown_tool"  // no tool of that name is loaded
	KindBadArguments Kind = "bad_arguments" // not JSON, or not what the schema asks
	KindExit         Kind = "exit"          // the tool exited non-zero
	KindTimeout      Kind = "timeout"       // killed at its time limit
	KindStart        Kind = "start"         // the tool could not be started
	KindCanceled     Kind = "canceled"      // the run was interrupted while it ran
	KindBadOutput    Kind = "bad_output"    // output: image or content, and the output is not that

	// From an MCP server.
	KindToolError Kind = "tool_error" // the server's tool answered with isError
	KindServer    Kind = "server"     // the server failed: it exited, could not be reached, or broke the protocol

	// From approval, between the loop and the tools.
	KindDenied  Kind = "denied"  // a person said no, or nobody could be asked
	KindSkipped Kind = "skipped" // an offline replay did not re-run the call

	// From the loop.
	KindDeclined Kind = "declined" // not run: the turn was refused or cut off
	KindPanic    Kind = "panic"    // the executor panicked
)

// ResultKinds are the kinds of a failed call, in the order the documentation
// lists them.
var ResultKinds = []Kind{
	KindUnknownTool, KindBadArguments, KindExit, KindTimeout, KindStart, KindCanceled, KindBadOutput,
	KindToolError, KindServer,
	KindDenied, KindSkipped, KindDeclined, KindPanic,
}

// NotRun reports whether a result of this kind answered a call without
// running it: a person or the flags kept it from running, or the loop
// declined it. Replaying such a call must not run it either.
func NotRun(kind Kind) bool {
	switch kind {
	case KindDenied, KindSkipped, KindDeclined:
		return true
	}
	return false
}

// SourceMCP is a result's source when the tool is one of an MCP server's;
// a script tool's result has no source.
const SourceMCP = "mcp"

// Reason is why a run ended, as its transcript's end record says.
type Reason = string

const (
	ReasonStop        Reason = "stop"        // the model answered without tool calls
	ReasonMaxSteps    Reason = "max_steps"   // the step budget ran out
	ReasonMaxTokens   Reason = "max_tokens"  // the model hit its output token limit
	ReasonRefusal     Reason = "refusal"     // the model refused; pending calls were not run
	ReasonError       Reason = "error"       // a provider, tool-layer or transcript error
	ReasonInterrupted Reason = "interrupted" // SIGINT/SIGTERM or a cancelled context
	ReasonBudget      Reason = "budget"      // the token or cost budget ran out
	ReasonContext     Reason = "context"     // clearing old results could not keep a request within the context limit
	ReasonSchema      Reason = "schema"      // the answer still did not match the run's schema after its retries
)

// Reasons are the end reasons, in the order the schema lists them.
var Reasons = []Reason{ReasonStop, ReasonMaxSteps, ReasonMaxTokens, ReasonRefusal, ReasonBudget, ReasonContext, ReasonSchema, ReasonError, ReasonInterrupted}
