// Package agent runs the ReAct tool-calling loop: it sends the conversation
// to a model, runs the tools the model asks for, answers every call under its
// id, and repeats until the model answers without calling a tool.
//
// Messages are kept in each provider's own wire shape (OpenAI Chat
// Completions, OpenAI Responses or Anthropic Messages) from the moment they
// arrive: the loop never rebuilds one by hand. A Dialect knows one shape; a
// Provider is a Dialect that can also talk to a model.
//
// A turn of the model is one assistant message in Chat Completions and
// Messages, and a run of output items (reasoning, message, function_call,
// and whatever else the API returned) in Responses: each item is a message
// of its own, in the conversation and in the transcript.
package agent

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Message is one provider-native message in its wire JSON form.
type Message = json.RawMessage

// Call is one tool call the model asked for.
type Call struct {
	ID   string
	Name string
	// Arguments is the JSON text of the arguments as the model produced it
	// (OpenAI: the content of the arguments string; Anthropic: the input
	// object). It may not be valid JSON; the executor says so.
	Arguments []byte
}

// StopReason says why the model ended its turn, across providers.
type StopReason string

const (
	StopEnd       StopReason = "end"        // a final answer (stop, end_turn, stop_sequence)
	StopToolUse   StopReason = "tool_use"   // the turn asks for tools
	StopMaxTokens StopReason = "max_tokens" // cut off by the output token limit
	StopRefusal   StopReason = "refusal"    // the model refused
	StopPause     StopReason = "pause"      // a long turn paused; send it back to go on
)

// RecordedStop is the stop reason a recorded finish_reason (any
// provider's) gives, and false for one that leaves it to the turn's
// content: a turn with calls asks for tools, one without is an answer.
func RecordedStop(finishReason string) (StopReason, bool) {
	switch finishReason {
	case "refusal", "content_filter":
		return StopRefusal, true
	case "length", "max_tokens", "max_output_tokens", "model_context_window_exceeded":
		return StopMaxTokens, true
	case "pause_turn":
		return StopPause, true
	}
	return "", false
}

// Turn is one answer of the model as it returned it.
type Turn struct {
	// Messages are what the turn adds to the conversation, exactly as they
	// go back to the API: one assistant message, or (Responses) every output
	// item in order.
	Messages []Message
	// Text is the message's text content (the plan, or the final answer).
	Text  string
	Calls []Call
	Stop  StopReason
	// FinishReason is the provider's own value (finish_reason, stop_reason).
	FinishReason string
	Usage        transcript.Usage
	Latency      time.Duration
	// ResponseID and ResponseModel are the response's id and the model
	// that answered, as the API names them ("" when it does not).
	ResponseID    string
	ResponseModel string
	// RequestBytes is the size of the request body that got the turn.
	RequestBytes int
	// ContextManagement is what the API said it cleared itself, as it
	// said it (Anthropic's context management), or nil.
	ContextManagement json.RawMessage
	// BatchID and CustomID name the provider's batch the request went out
	// in and the request in it; "" for a request sent on its own.
	BatchID, CustomID string
}

// Empty reports whether a turn says nothing: no text, no calls. As a
// final answer it would print nothing and exit 0, a silent failure for a
// script reading the answer; and an API refuses it in a later request.
func (t *Turn) Empty() bool {
	return len(t.Calls) == 0 && strings.TrimSpace(t.Text) == ""
}

// ToolSpec is a tool as the model is offered it.
type ToolSpec struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object, sent as it is.
	Parameters json.RawMessage
	// Strict asks the API to hold the model to the schema (OpenAI strict
	// mode); the schema is then in strict form.
	Strict bool
}

// ToolResult is the outcome of one tool call, success or failure.
type ToolResult struct {
	// Content is what the model reads: the tool's output, or a plain-text
	// account of why there is none.
	Content string
	IsError bool
	// Kind is wire.KindOK on success, else why the call failed.
	Kind wire.Kind
	// ExitCode is the tool process's; -1 when it did not run to an exit.
	ExitCode int
	Duration time.Duration
	// Truncated is set when the output was cut at the tool's limit.
	Truncated bool
	// Images are pictures the tool returned beside Content. Each provider
	// puts them where its API lets the model see them (see ResultMessages);
	// one it cannot send is described in the text instead.
	Images []Image
	// Source is where the tool came from: "" for a script tool, "mcp" for
	// a tool of an MCP server, named by Server.
	Source string
	Server string
	// Sandbox is the sandbox the tool ran under and what of it was
	// enforced; "" for none.
	Sandbox string
}

// Image is a picture in a tool's result.
type Image struct {
	// MIMEType is the type the tool gave. What is sent is decided by the
	// bytes: a PNG, JPEG, GIF or WebP image under MaxImageBytes.
	MIMEType string
	Data     []byte
}

// CallResult is the answer to one call.
type CallResult struct {
	Call   Call
	Result ToolResult
}

// ResultMessage is a message that answers calls: Results indexes the
// CallResults it carries, in order. A message that only carries the images
// of results (Chat Completions' user message after the tool messages) has
// no Results, and Images indexes those results.
type ResultMessage struct {
	Message Message
	Results []int
	Images  []int
}

// RecordedResult is a tool result read back from a message.
type RecordedResult struct {
	CallID string
	// Content is the result as the model read it.
	Content string
	// Text is what the tool or agentloop said: Content, but for an OpenAI
	// error result the text inside its {"error": …}.
	Text    string
	IsError bool
}

// ResultContent locates one tool result's content in a wire message, so
// that clearing can replace it and leave every other byte as it was.
type ResultContent struct {
	CallID string
	// Start and End are the byte range of the content's JSON value in the
	// message; both 0 for a result sent without content.
	Start, End int
}

// Dialect is the message grammar of one API: how a prompt, tool results and
// tool definitions are written, and how an assistant message is read.
type Dialect interface {
	// Name is the provider's name as recorded in a transcript header: its
	// Shape's.
	Name() string
	// Shape is the wire shape the dialect reads and writes.
	Shape() wire.Shape
	// UserMessage is a user message holding text.
	UserMessage(text string) Message
	// ResultMessages answers one turn's calls, in call order: one tool
	// message per call (OpenAI) or one user message of tool_result blocks
	// (Anthropic).
	ResultMessages(results []CallResult) ([]ResultMessage, error)
	// ParseAssistant reads a recorded assistant message (Responses: one
	// output item; ParseTurn reads a whole turn).
	ParseAssistant(msg Message) (*Turn, error)
	// ParseResults returns the tool results a message carries (none for a
	// message that answers no call).
	ParseResults(msg Message) []RecordedResult
	// ResultContents locates the content of each tool result msg carries,
	// in result order (none for a message that answers no call).
	ResultContents(msg Message) []ResultContent
	// Role is the message's role ("user", "assistant", "tool", "system").
	// Responses output items are "assistant", and function_call_output
	// items "tool".
	Role(msg Message) string
	// ItemTurns reports whether a turn is a run of output items
	// (Responses) rather than one assistant message: consecutive
	// "assistant" messages are then one turn.
	ItemTurns() bool
	// ToolDefs are the tool definitions in the API's wire form.
	ToolDefs(specs []ToolSpec) ([]json.RawMessage, error)
}

// Request is one call to the model.
type Request struct {
	System   string
	Messages []Message
	// Tools are the tool definitions in wire form (from ToolDefs).
	Tools []json.RawMessage
	// ToolChoiceNone asks for an answer without tool calls: the last
	// request a budget allows. The tools are still sent (a conversation
	// with tool calls in it needs them), and the model may not call them.
	ToolChoiceNone bool
	// OnText, when set, receives the answer's text as it is generated.
	OnText func(delta string)
	// Answer, when set, asks the API to hold the answer to a schema in its
	// own structured output field. It governs the answer only: the model
	// may still call tools.
	Answer *AnswerFormat
}

// AnswerFormat is a schema the final answer must match, in the form one
// API takes it (see wire.Shape.StrictAnswerSchema).
type AnswerFormat struct {
	// Name is the name OpenAI's APIs send it under.
	Name string
	// Schema is the JSON Schema as the API takes it.
	Schema json.RawMessage
	// Strict sends it with strict: true (OpenAI's APIs): the API then
	// holds the model to it.
	Strict bool
}

// Provider is a Dialect that can ask a model for the next turn.
type Provider interface {
	Dialect
	// Model is the model asked.
	Model() string
	// Complete sends the conversation and returns the assistant's turn.
	// Errors are *ProviderError unless the context ended.
	Complete(ctx context.Context, req *Request) (*Turn, error)
}

// Executor runs the tool calls the model asks for. A tool's failure is a
// ToolResult with IsError set, never an error or a panic. The loop owns
// this interface: cmd wires the script tools (and approval) to it, and any
// other source of tools plugs in the same way.
type Executor interface {
	Call(ctx context.Context, name, callID string, args []byte) ToolResult
}

// Recorder records a run as the loop goes: each message appended (a
// turn's in one write), the result of each call that finishes before its
// turn's results are sent, and the end. *transcript.Writer is the
// recorder of a transcript file. An error stops the run: what it did is
// not on record.
type Recorder interface {
	WriteMessage(transcript.Message) error
	WriteMessages(...transcript.Message) error
	WriteResult(transcript.CallResult) error
	WriteEnd(transcript.End) error
}

var _ Recorder = (*transcript.Writer)(nil)

// dialects are the grammars, by the shape each reads and writes.
var dialects = map[wire.Shape]Dialect{
	wire.Chat:      OpenAIDialect{},
	wire.Responses: ResponsesDialect{},
	wire.Messages:  AnthropicDialect{},
}

// DialectFor is the grammar of a message shape as a transcript names it
// (and of the provider of that name); OpenAI Chat Completions' for a shape
// it does not know.
func DialectFor(shape string) Dialect {
	if d, ok := dialects[wire.Shape(shape)]; ok {
		return d
	}
	return dialects[wire.Chat]
}
