// Package transcript is agentloop's JSONL record of a run: the record types,
// a writer that puts each record on disk whole, a streaming reader, and the
// grammar checker behind `agentloop validate`.
package transcript

import (
	"encoding/json"
	"time"

	"github.com/agentloop/agentloop/pkg/wire"
)

// Version is the format version written in every header.
const Version = 1

// Record types, the value of every record's "type" field.
const (
	TypeHeader  = "header"
	TypeMessage = "message"
	TypeResult  = "result"
	TypeEnd     = "end"
)

// Header is the first record of a transcript: what ran, against what.
type Header struct {
	Type    string    `json:"type" jsonschema:"enum=header"`
	Version int       `json:"version" jsonschema:"description=Format version (1)"`
	ID      string    `json:"id" jsonschema:"description=Unique id of this transcript"`
	Time    time.Time `json:"time"`
	// Command is what wrote the transcript: run, replay, resume, continue
	// (run -c) or batch.
	Command  string `json:"command,omitempty" jsonschema:"enum=run,enum=replay,enum=resume,enum=continue,enum=batch"`
	Provider string `json:"provider" jsonschema:"enum=openai,enum=responses,enum=anthropic,description=Wire shape of every message record"`
	Model    string `json:"model"`
	BaseURL  string `json:"base_url,omitempty"`
	// ToolsDirs are the folders the tools were loaded from.
	ToolsDirs []string `json:"tools_dirs,omitempty"`
	// Tools are the tool definitions offered to the model, in the provider's wire form.
	Tools    []json.RawMessage `json:"tools,omitempty"`
	System   string            `json:"system,omitempty"`
	MaxSteps int               `json:"max_steps,omitempty"`
	Parallel int               `json:"parallel,omitempty" jsonschema:"description=How many tool calls of one turn could run at once"`
	// MaxTotalTokens and MaxCost are the run's budgets, when it had any.
	MaxTotalTokens int64   `json:"max_total_tokens,omitempty" jsonschema:"description=The run's budget of input and output tokens"`
	MaxCost        float64 `json:"max_cost,omitempty" jsonschema:"description=The run's budget in US dollars"`
	// Context is the policy that cleared old tool results, when one did.
	Context   *ContextPolicy `json:"context,omitempty"`
	Parent    string         `json:"parent,omitempty" jsonschema:"description=Path of the transcript this one continues or replays"`
	ParentID  string         `json:"parent_id,omitempty" jsonschema:"description=Id of that transcript"`
	Agentloop string         `json:"agentloop,omitempty" jsonschema:"description=Version of agentloop that wrote the file"`
	// MCPServers are the MCP servers whose tools were offered.
	MCPServers []MCPServer `json:"mcp_servers,omitempty"`
	// Temperature and MaxTokens are the sampling settings the run was
	// given, which a run going on with it keeps.
	Temperature *float64 `json:"temperature,omitempty" jsonschema:"description=The sampling temperature given; absent: the server's own"`
	MaxTokens   int64    `json:"max_tokens,omitempty" jsonschema:"description=The cap on each answer's output tokens given; absent: the default"`
	// TraceParent and TraceState are the W3C trace context the run was
	// started in (TRACEPARENT and TRACESTATE in its environment): its
	// spans are children of that span, and a trace exported later from
	// the transcript is the one the run was part of.
	TraceParent string `json:"traceparent,omitempty" jsonschema:"description=The W3C traceparent the run was started with: its spans' parent"`
	TraceState  string `json:"tracestate,omitempty" jsonschema:"description=The W3C tracestate the run was started with"`
	// BatchSpan is, for an item of a batch, the W3C traceparent of the
	// batch's span, whose children the items' spans are (and whose parent
	// is TraceParent).
	BatchSpan string `json:"batch_span,omitempty" jsonschema:"description=For a batch item: the W3C traceparent of the batch's span"`
	// AnswerSchema is the schema the run's final answer had to match
	// (run --schema), and how it was sent; absent for a run without one.
	AnswerSchema *AnswerSchema `json:"answer_schema,omitempty" jsonschema:"description=The schema the final answer had to match (--schema) and how it was sent"`
}

// Schema modes: how a run's answer schema was sent to the model.
const (
	// SchemaNative: in the API's own structured output field
	// (response_format, text.format, output_config.format).
	SchemaNative = "native"
	// SchemaPrompt: as text appended to the system prompt.
	SchemaPrompt = "prompt"
)

// AnswerSchema is what a header records of a run's answer schema: the
// schema as the user gave it, which checks the answer, and what every
// request carried of it, from which each can be rebuilt.
type AnswerSchema struct {
	// Schema is the user's schema as JSON (a concise one as the JSON
	// Schema it stands for): the one the final answer is checked against.
	Schema json.RawMessage `json:"schema" jsonschema:"description=The JSON Schema the final answer is checked against, as the user gave it"`
	// Mode is SchemaNative or SchemaPrompt.
	Mode string `json:"mode" jsonschema:"enum=native,enum=prompt,description=native: in the API's structured output field; prompt: appended to the system prompt"`
	// Name is the name it was sent under (OpenAI's APIs).
	Name string `json:"name,omitempty"`
	// Sent is the schema as each request carried it, in the API's form;
	// Strict says it was sent with strict: true (OpenAI's APIs).
	Sent   json.RawMessage `json:"sent,omitempty" jsonschema:"description=The schema in the form each request carried it (mode native)"`
	Strict bool            `json:"strict,omitempty" jsonschema:"description=OpenAI: sent with strict true; an optional property's null then means not given"`
	// Prompt is the text appended to the system prompt (mode prompt).
	Prompt string `json:"prompt,omitempty" jsonschema:"description=The text appended to the system prompt of every request (mode prompt)"`
	// Note says why the schema was sent as it was, when it could not be
	// sent as the API's enforced form.
	Note string `json:"note,omitempty"`
	// Retries is how many times an answer that did not match could be
	// asked for again.
	Retries int `json:"retries"`
}

// MCPServer is an MCP server as a header records it: how it was reached,
// never a secret (no environment values, no headers).
type MCPServer struct {
	Name string `json:"name"`
	// Transport is "stdio" (Command) or "http" (URL, streamable HTTP).
	Transport string   `json:"transport" jsonschema:"enum=stdio,enum=http"`
	Command   []string `json:"command,omitempty" jsonschema:"description=The command as configured; ${VAR} references are not expanded"`
	URL       string   `json:"url,omitempty" jsonschema:"description=The URL as configured, credentials redacted"`
	// Tools are the names the server's tools were offered under.
	Tools []string `json:"tools"`
}

// Message is one message of the conversation in the provider's wire shape,
// with what agentloop knows about how it came to be.
type Message struct {
	Type string    `json:"type" jsonschema:"enum=message"`
	Seq  int       `json:"seq" jsonschema:"description=1-based position of the message in the conversation"`
	Step int       `json:"step" jsonschema:"description=Model call that produced or answered this message; 0 for the prompt"`
	Time time.Time `json:"time"`
	// Message is the provider-native message exactly as sent to or received
	// from the API. The messages of a transcript, in order, form a request body.
	Message json.RawMessage `json:"message"`
	// Usage, LatencyMS and FinishReason are set on assistant messages.
	Usage        *Usage `json:"usage,omitempty"`
	LatencyMS    int64  `json:"latency_ms,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	// Results describe how each tool call answered by this message ran, in
	// the order of its results (one on an OpenAI tool message, one per
	// tool_result block on an Anthropic user message).
	Results []Result `json:"results,omitempty"`

	// What is known of the request that got an assistant message, on the
	// same record as its usage: the size of its body, its tool choice when
	// it was the last a budget allowed ("none"), and the tool results it
	// was the first to carry cleared (every later request carries them
	// cleared too). With these the request of every step can be rebuilt
	// from the messages before it.
	RequestBytes int       `json:"request_bytes,omitempty" jsonschema:"description=Size in bytes of the request body that got this message"`
	ToolChoice   string    `json:"tool_choice,omitempty" jsonschema:"enum=none,description=none when the request asked for an answer without tool calls"`
	Cleared      []Cleared `json:"cleared,omitempty" jsonschema:"description=Tool results replaced by a placeholder from this request on"`
	// ContextManagement is what the API said it cleared itself
	// (Anthropic's context management), as it said it.
	ContextManagement json.RawMessage `json:"context_management,omitempty" jsonschema:"description=The API's own account of the context it cleared"`
	// ImagesOf names the calls whose images this message carries: on Chat
	// Completions, whose tool messages take text only, they go in one user
	// message after the tool messages, which answers no call itself.
	ImagesOf []string `json:"images_of,omitempty"`
	// ResponseID and ResponseModel are the API's id of the response that
	// held the turn and the model it names, when it names them.
	ResponseID    string `json:"response_id,omitempty" jsonschema:"description=The API's id of the response that held this turn"`
	ResponseModel string `json:"response_model,omitempty" jsonschema:"description=The model that answered, as the response names it"`
	// BatchID and CustomID name the provider's batch that held the
	// request of a turn and the request in it, when it went out in a
	// batch (batch --batch-api) rather than on its own.
	BatchID  string `json:"batch_id,omitempty" jsonschema:"description=The provider's batch that held the request of this turn"`
	CustomID string `json:"custom_id,omitempty" jsonschema:"description=The request's custom_id in its batch"`
}

// Cleared is a tool result replaced, in a request and every later one, by
// a placeholder. The message that holds it keeps it whole.
type Cleared struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// Seq is the message that holds the result.
	Seq int `json:"seq" jsonschema:"description=seq of the message that holds the result"`
	// Bytes is the size of the content replaced, its JSON value as sent.
	Bytes       int    `json:"bytes"`
	Placeholder string `json:"placeholder" jsonschema:"description=The text sent in place of the result; it starts with [cleared"`
}

// ContextPolicy is how old tool results were cleared: by agentloop in what
// it sent ("client"), or by the API ("server").
type ContextPolicy struct {
	Limit        int64    `json:"limit" jsonschema:"description=Most input tokens a request may carry"`
	Keep         int      `json:"keep" jsonschema:"description=How many of the latest results are never cleared"`
	KeepTools    []string `json:"keep_tools,omitempty"`
	ClearAtLeast int64    `json:"clear_at_least,omitempty"`
	Editing      string   `json:"editing,omitempty" jsonschema:"enum=client,enum=server"`
	// With editing "server": the context management each request carried
	// and the anthropic-beta header sent with it.
	ContextManagement json.RawMessage `json:"context_management,omitempty" jsonschema:"description=With editing server: the context_management object each request carried (the API's clear_tool_uses edit)"`
	Beta              string          `json:"beta,omitempty" jsonschema:"description=With editing server: the anthropic-beta header each request carried"`
}

// Result is how one tool call ran.
type Result struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	ExitCode   int    `json:"exit_code" jsonschema:"description=The tool process's exit code; -1 when it did not run to an exit"`
	DurationMS int64  `json:"duration_ms"`
	Truncated  bool   `json:"truncated"`
	IsError    bool   `json:"is_error"`
	// Error classifies a failed call: its wire.Kind, "" for a call that
	// succeeded.
	Error wire.Kind `json:"error,omitempty"`
	// Source is "mcp" for a tool of an MCP server, named by Server; a
	// script tool's result has neither.
	Source string `json:"source,omitempty" jsonschema:"enum=mcp"`
	Server string `json:"server,omitempty"`
	// Sandbox is the sandbox mode the tool ran under and what of it the
	// kernel enforced ("read-only (landlock abi 7: fs+tcp)"); absent when
	// the tool ran without one.
	Sandbox string `json:"sandbox,omitempty" jsonschema:"description=The sandbox mode the tool ran under and what the kernel enforced of it; absent when there was none"`
}

// CallResult is the result of one call of a turn whose other calls are
// still running, recorded the moment the call finished. The message that
// answers the turn is written only once every call has its result; if the
// run stops first (an interrupt, a crash), these records are what it leaves
// of the calls that finished, and a resume answers those calls with them
// instead of running them again. A result record is not a message: it
// comes after the assistant message that made the call and before the
// message that answers it, which repeats its content in the provider's
// wire shape.
type CallResult struct {
	Type string    `json:"type" jsonschema:"enum=result"`
	Step int       `json:"step" jsonschema:"description=Model call whose tool call this answers"`
	Time time.Time `json:"time"`
	Result
	// Content is the result as the tool gave it (or the reason it did not
	// run), before it is written into a message: the text, not an OpenAI
	// {"error": …} wrapping or an Anthropic block.
	Content string `json:"content" jsonschema:"description=The result's text as the tool gave it; is_error says whether it is an error"`
	// Images are the pictures the result holds beside its text.
	Images []Image `json:"images,omitempty"`
}

// Image is a picture a tool returned, as a result record keeps it.
type Image struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data" jsonschema:"description=The image's bytes, base64"`
}

// Usage counts tokens.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens,omitempty"`
	ReasoningTokens          int64 `json:"reasoning_tokens,omitempty"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheCreationInputTokens += o.CacheCreationInputTokens
	u.CacheReadInputTokens += o.CacheReadInputTokens
	u.ReasoningTokens += o.ReasoningTokens
}

// End is the last record: why the run stopped.
type End struct {
	Type   string    `json:"type" jsonschema:"enum=end"`
	Time   time.Time `json:"time"`
	Reason string    `json:"reason" jsonschema:"enum=stop,enum=max_steps,enum=max_tokens,enum=refusal,enum=budget,enum=context,enum=schema,enum=error,enum=interrupted"`
	Error  string    `json:"error,omitempty"`
	Steps  int       `json:"steps"`
	Usage  Usage     `json:"usage"`
	// CostUSD is what the run cost, when the model's price was known.
	CostUSD *float64 `json:"cost_usd,omitempty" jsonschema:"description=What the run cost in US dollars, when the model's price was known"`
}

// ToolNames are the names of the tool definitions the header records, in
// either wire shape (Chat Completions' function, or Anthropic's and
// Responses' name at the top); a definition that is not an object is
// passed over.
func (h *Header) ToolNames() []string {
	var names []string
	for _, raw := range h.Tools {
		var t struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Name == "" {
			t.Name = t.Function.Name
		}
		names = append(names, t.Name)
	}
	return names
}
