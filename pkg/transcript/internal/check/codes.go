package check

import "fmt"

// Severity says whether a finding makes a transcript one the API would
// refuse (Error) or one that is accepted but risky (Warning).
type Severity int

// Severities, in increasing order.
const (
	Warning Severity = iota + 1
	Error
)

func (s Severity) String() string {
	switch s {
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return fmt.Sprintf("severity(%d)", int(s))
}

// MarshalText writes the severity as "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Code describes one kind of finding. Codes are stable: scripts match on them.
type Code struct {
	Code string
	// Rules are the numbers of the rules in transcript-rules.md the code
	// stands for, ", "-separated; empty for checks no rule there states (of
	// the file, of agentloop's own records, of the message schemas).
	Rules string
	// OpenAI and Anthropic are the severities in each shape (OpenAI covers
	// Chat Completions and Responses); zero where the code does not apply.
	OpenAI, Anthropic Severity
	// Note qualifies the severities where context changes them; a code
	// without rules has one saying what it checks instead.
	Note    string
	Summary string
	// Evidence says how the API's refusal behind an error is known: one of
	// the Evidence constants; empty for warnings and checks of the file.
	Evidence string
}

// Evidence for the errors of Codes.
const (
	// EvidenceRecorded: a request the API answered with a 400 for this is
	// in the recorded corpus (testdata/corpus), flagged with the code.
	EvidenceRecorded = "400 recorded"
	// EvidenceReported: the API's 400 error text for it is quoted in
	// public issue threads (transcript-rules.md names them).
	EvidenceReported = "400 reported"
	// EvidenceInferred: from the API's published schemas and SDK types;
	// no 400 for it has been seen.
	EvidenceInferred = "inferred"
)

// Codes is every finding the checker reports, in the order of the rules.
var Codes = []Code{
	{"unanswered-call", "1, 12, 14", Error, Error, "a warning in Codex rollouts, whose writer sends an \"aborted\" output in place of a missing one", "a tool call is not answered before the next message", EvidenceRecorded},
	{"pending-call", "1, 14, 29", Error, Error, "a warning in fine-tuning files, Inspect AI logs, SWE-agent trajectories and Codex rollouts; not reported with --allow-pending", "the conversation ends with tool calls still unanswered", EvidenceReported},
	{"orphan-result", "2, 15", Error, Error, "a warning in Codex rollouts, whose writer drops such outputs", "a tool result follows no message with tool calls", EvidenceReported},
	{"unknown-result-id", "3, 12, 15", Error, Error, "", "a tool result answers an id the previous assistant message did not call", EvidenceReported},
	{"duplicate-result", "4, 18", Error, Error, "", "a tool call is answered more than once", EvidenceReported},
	{"duplicate-call-id", "4, 17", Warning, Error, "", "the same id twice in one assistant message", EvidenceReported},
	// The 400s quoted for rule 17 name a block of the message that holds
	// the id twice (messages.1.content.1); across turns the Messages API
	// answered 200 (testdata/logs/pydantic-ai_gemini-then-anthropic_reused_tool_use_id.yaml).
	{"reused-call-id", "4, 17", Warning, Warning, "the same id twice in one message is duplicate-call-id, an error in the Anthropic shape; the Messages API answered 200 to a request of two turns calling with one id", "an id already used by an earlier tool call", ""},
	{"missing-tool-call-id", "5", Error, 0, "", "a tool message without tool_call_id", EvidenceReported},
	{"arguments-not-string", "6", Error, 0, "", "function.arguments is not a string", EvidenceReported},
	{"arguments-not-json", "6", Warning, 0, "", "function.arguments is not valid JSON", ""},
	{"arguments-not-object", "6", Warning, 0, "", "function.arguments is JSON but not an object", ""},
	{"invalid-tool-call", "7", Error, 0, "", "a tool call lacks id, type, function.name or function.arguments, or has an unknown type", EvidenceInferred},
	{"call-id-too-long", "8", Error, 0, "an error when the target is known to be api.openai.com, a warning otherwise", "a tool call id longer than 40 characters (64 for Responses)", EvidenceReported},
	{"invalid-tool-name", "9, 23", Error, Error, "", "a tool name that does not match ^[a-zA-Z0-9_-]{1,64}$", EvidenceReported},
	{"undefined-tool", "9", Warning, Warning, "", "a call to a tool the conversation's tools list does not define", ""},
	{"invalid-message-name", "10", Error, 0, "", "a message name that does not match ^[a-zA-Z0-9_-]+$", EvidenceReported},
	{"tool-message-name", "10", Warning, 0, "", "a name on a tool message (rejected by some providers)", ""},
	{"missing-content", "11, 20", Error, Error, "", "a message without content where content is required", EvidenceReported},
	{"empty-content", "11, 20", Warning, Error, "in the Anthropic shape, a warning for a text block of whitespace beside other content, which the API accepts; an empty one is an error wherever it is", "empty content, or a text block of whitespace only", EvidenceReported},
	{"content-with-tool-calls", "11", Warning, 0, "", "text content beside tool_calls (rejected by some providers)", ""},
	{"orphan-reasoning", "12", Error, 0, "", "a Responses reasoning item without the output item that followed it", EvidenceRecorded},
	{"missing-reasoning", "12", Error, 0, "", "a Responses item of a response whose reasoning item is not in front of it: elsewhere in the input, or, in an agentloop transcript, left out of a step whose usage records reasoning tokens", EvidenceReported},
	{"reasoning-not-found", "12", Error, 0, "when the server keeps nothing: store false, or an agentloop transcript", "a Responses reasoning item without its encrypted_content", EvidenceReported},
	{"result-not-first", "16", 0, Error, "", "a tool_result block after other content in its message", EvidenceReported},
	{"role-order", "19", 0, Warning, "", "two messages of the same role in a row (the API merges them)", ""},
	{"error-result-empty", "21", 0, Error, "", "a tool_result with is_error true and no content", EvidenceReported},
	{"invalid-call-id", "22", 0, Error, "", "a tool_use id that does not match ^[a-zA-Z0-9_-]+$", EvidenceReported},
	{"input-not-object", "24", 0, Error, "", "a tool_use input that is not a JSON object", EvidenceReported},
	{"misplaced-block", "25", 0, Error, "", "a tool_use in a user message or a tool_result in an assistant message", EvidenceInferred},
	{"invalid-block", "25", 0, Error, "", "a content block that is not an object, has no type, or lacks a required field", EvidenceInferred},
	{"text-after-tool-use", "25", 0, Warning, "", "text after a tool_use block in the same message", ""},
	{"thinking-not-first", "26", 0, Error, "only when the request enables thinking of type \"enabled\"", "the final assistant message with tool_use does not start with a thinking block", EvidenceReported},
	{"system-in-messages", "28", 0, Warning, "", "a system message inside messages (a provider extension)", ""},
	{"first-not-user", "28", 0, Warning, "", "the first message is not a user message", ""},
	{"mixed-shapes", "30", Warning, Warning, "", "OpenAI and Anthropic tool calls in one conversation", ""},
	{"missing-tool-config", "", 0, Error, "Amazon Bedrock Converse requests only", "a request with toolUse or toolResult blocks and no toolConfig", ""},
	{"text-beside-results", "", 0, Warning, "Amazon Bedrock Converse only", "text after the toolResult blocks of a user message (refused by some of Bedrock's models)", ""},
	{"call-turn-order", "", Error, Error, "Gemini contents only", "a model turn with function calls that does not come right after a user turn or a function response turn", EvidenceReported},
	{"unchecked-conversation", "", Error, Error, "a warning with --allow-unchecked", "a conversation whose tool calls are not checked: in none of the shapes validate reads (Gemini's, Bedrock Converse's and Ollama's besides OpenAI's and Anthropic's), or a recorded request to an endpoint validate does not read", ""},
	{"invalid-message", "", Error, Error, "each API's message schema; a warning for an image, audio or file part in a tool message, which some models and endpoints accept", "a message that is not an object, has no role or an unknown one, or fields of the wrong type", EvidenceInferred},
	{"unknown-tool", "", Error, Error, "only with --tools-dir", "a call to a tool the tools directories do not define", ""},
	{"arguments-invalid", "", Error, Error, "only with --tools-dir", "arguments that do not match the tool's schema", ""},
	{"invalid-utf8", "", Error, Error, "the Messages API answers 400 \"The request body is not valid JSON: no low surrogate in string\"; encoding/json would read such text as U+FFFD", "a string holding bytes that are not UTF-8, or a \\u escape of half a surrogate pair (\\ud800–\\udfff) with no other half", ""},
	{"not-json", "", Error, Error, "a check of the file", "a line (or file, or recorded body) that is not JSON", ""},
	{"not-yaml", "", Error, Error, "a check of the file", "an interaction of a cassette that is not YAML", ""},
	{"truncated-line", "", Error, Error, "a warning in agentloop transcripts, whose writer was killed mid-line", "the last line is cut off before its end", ""},
	{"line-too-long", "", Error, Error, "a check of the file", "a line (or a message of a JSON document) longer than --max-line: not checked", ""},
	{"binary-file", "", Error, Error, "a check of the file", "binary data (a NUL byte): the file is not checked further", ""},
	{"not-a-conversation", "", Error, Error, "a check of the file", "a JSON value that holds no messages", ""},
	{"no-conversation", "", Error, Error, "a warning with --allow-pending for an empty file or an agentloop transcript without messages (a run stopped before its first)", "a file in which no conversation or message was recognised: nothing was checked", ""},
	{"missing-header", "", Error, Error, "agentloop transcripts only", "an agentloop transcript whose first record is not a header", ""},
	{"duplicate-header", "", Error, Error, "agentloop transcripts only", "a second header record", ""},
	{"seq-order", "", Error, Error, "agentloop transcripts only", "message records whose seq does not increase", ""},
	{"record-after-end", "", Error, Error, "agentloop transcripts only", "a record after the end record", ""},
	{"invalid-record", "", Error, Error, "agentloop transcripts, the lines of Claude Code and Codex logs, and lines of another log after the messages of a file", "a record of unknown type or with fields of the wrong type, a header of another format version or of none, a log line that is not an object, or a line in a Claude Code log that Claude Code does not write (another log's line, a bare message, a user or assistant line without its message or whose type and message role differ), or a Claude Code or Codex line after the messages of a file of another format: not checked", ""},
	{"missing-parent", "", Warning, Warning, "Claude Code logs only", "a line whose parentUuid names no line before it (a line was removed?)", ""},
	{"stray-result-record", "", Error, Error, "agentloop transcripts only", "a result record that names no call of the last assistant message still waiting for its result", ""},
	{"results-mismatch", "", Error, Error, "agentloop transcripts only", "a record's results do not name the tool results its message holds", ""},
	{"cleared-result", "", Error, Error, "agentloop transcripts only", "a cleared entry on a record other than the answer to the request (a user or tool message, a tool output item), one that names no earlier result, one cleared before, a tool other than the call's, a result the header's policy never clears (one of the last `keep`, or of a tool in `keep_tools`), or a placeholder that does not start with [cleared; or cleared results in a transcript whose header records neither a clearing policy nor a parent it continues", ""},
	{"answer-schema", "", Error, Error, "agentloop transcripts only", "the final answer does not match the schema the header records (run --schema): not one JSON value, or a value the schema does not allow; or a recorded schema that cannot be read", ""},
}

var codeIndex = func() map[string]*Code {
	m := make(map[string]*Code, len(Codes))
	for i := range Codes {
		m[Codes[i].Code] = &Codes[i]
	}
	return m
}()

// LookupCode returns the description of a code.
func LookupCode(code string) (Code, bool) {
	c, ok := codeIndex[code]
	if !ok {
		return Code{}, false
	}
	return *c, true
}

// ShapeRule is a rule of a shape whose findings the Codes of the Anthropic
// or OpenAI shape stand for, with that shape's own severity and the
// evidence for it: Amazon Bedrock Converse runs the Anthropic rules, Ollama
// the Chat Completions ones.
type ShapeRule struct {
	// Shape is the shape's label: "bedrock", "ollama".
	Shape string
	Code  string
	// Severity is the code's in the shape, where it differs from the
	// shape whose rules it runs; 0 where it does not.
	Severity Severity
	// Evidence is one of the Evidence constants, or EvidenceAccepted.
	Evidence string
	// Rule says what is checked.
	Rule string
	// Text is the API's error text, as quoted in Sources; "" when it has
	// none.
	Text string
	// Sources are where the text was seen, or where the rule comes from.
	Sources string
}

// EvidenceAccepted: the API takes the request; the finding is about what
// the model is then shown.
const EvidenceAccepted = "accepted"

// ShapeRules are the rules of the shapes checked with another shape's
// rules, in the order docs/validate.md lists them.
var ShapeRules = []ShapeRule{
	{"bedrock", "unanswered-call", 0, EvidenceReported, "every toolUse of an assistant message has a toolResult in the user message that follows",
		"Expected toolResult blocks at messages.2.content for the following Ids: tooluse_bRX9ftpYK3xO5tev2x4qtc", "camel-ai/camel#3954, strands-agents/harness-sdk#1435"},
	{"bedrock", "orphan-result", 0, EvidenceReported, "a toolResult answers a toolUse of the assistant message before it, once (also `unknown-result-id`, `duplicate-result`)",
		"The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.", "pydantic/pydantic-ai#2327, Just-Curieous/Curie#16, langgenius/dify-official-plugins#765"},
	{"bedrock", "role-order", Error, EvidenceReported, "user and assistant messages alternate",
		"A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.", "langchain-ai/langchain-aws#130, langgenius/dify#9294, microsoft/semantic-kernel#10281"},
	{"bedrock", "first-not-user", Error, EvidenceReported, "the first message is a user message",
		"A conversation must start with a user message. Try again with a conversation that starts with a user message.", "langgenius/dify#12340, elastic/kibana#246393, strands-agents/sdk-typescript#727"},
	{"bedrock", "error-result-empty", 0, EvidenceReported, "a toolResult of status error has content",
		"The content field at messages.<n>.content.0.toolResult cannot be empty when status value is error.", "aws-samples/sample-multi-agent-orchestration-chat-on-agentcore#15"},
	{"bedrock", "invalid-tool-name", 0, EvidenceReported, "a toolUse name and a toolSpec name match [a-zA-Z0-9_-]+, 1 to 64 characters",
		"Value at 'messages.73.member.content.2.member.toolUse.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+", "openclaw/openclaw#12892, BerriAI/litellm#24668; ToolUseBlock in the Bedrock API reference"},
	{"bedrock", "invalid-call-id", 0, EvidenceInferred, "a toolUseId is 1 to 64 of [a-zA-Z0-9_.:-]: the API reference's [a-zA-Z0-9_-]+ is not what Bedrock enforces, as it answered 200 for functions.get_temperature:0",
		"", "ToolUseBlock in the Bedrock API reference (docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html); pydantic/pydantic-ai tests/models/cassettes/test_bedrock/test_bedrock_moonshotai_tool_call.yaml (200)"},
	{"bedrock", "missing-tool-config", Error, EvidenceReported, "a request whose messages hold toolUse or toolResult blocks has a toolConfig",
		"The toolConfig field must be defined when using toolUse and toolResult content blocks.", "vxcontrol/pentagi#196, patriceckhart/zot#18"},
	{"bedrock", "empty-content", Warning, EvidenceReported, "a text block is not empty (an error); of whitespace only, refused by some models (a warning)",
		"The text field in the ContentBlock object at messages.0.content.0 is blank. Add text to the text field, and try again.", "quoted in public client code (an OpenAI-compatible Bedrock gateway's tests: an empty text refused for every model, whitespace only for DeepSeek, AI21 and Cohere models); no issue thread found"},
	{"bedrock", "invalid-message", 0, EvidenceInferred, "a message's role is user or assistant (the system prompt is the top-level system), its content an array of content blocks",
		"", "Message and ContentBlock in the Bedrock API reference; botocore's bedrock-runtime model"},
	{"bedrock", "text-beside-results", 0, EvidenceReported, "no text beside the toolResult blocks of a user message: some models refuse it, others answered 200 (a warning)",
		"messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn.", "langchain-ai/langchain-aws#141, BerriAI/litellm#6053 (Claude 3 Opus), strands-agents/harness-sdk#1223 (Llama 4 Maverick); 200 for Llama, Writer and Nova: pydantic-ai's test_bedrock_*_tool_result_followed_by_*_accepted.yaml"},
	{"bedrock", "result-not-first", Warning, EvidenceAccepted, "toolResult blocks open the user message: text after them was accepted (200), text before them is refused by Claude models",
		"", "pydantic/pydantic-ai cassettes test_bedrock_llama_tool_result_followed_by_text_accepted.yaml, test_bedrock_writer_tool_result_followed_by_text_accepted.yaml"},
	{"bedrock", "input-not-object", Warning, EvidenceInferred, "a toolUse input is a JSON object (the API types it a JSON value; models take objects)",
		"", "ToolUseBlock in the Bedrock API reference"},
	{"bedrock", "reused-call-id", Warning, "", "a toolUseId is not reused by a later toolUse (results keyed by id become ambiguous)",
		"", "—"},
	{"ollama", "arguments-not-object", Error, EvidenceReported, "function.arguments of a tool call is a JSON object, not a string",
		"json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type api.ToolCallFunctionArguments", "aliasrobotics/cai#76, ollama/ollama#12794, neuron-core/neuron-ai#219"},
	{"ollama", "invalid-message", 0, EvidenceReported, "a message's content is a string",
		"json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string", "BerriAI/litellm#11273"},
	{"ollama", "unanswered-call", 0, EvidenceAccepted, "every call of an assistant message has a tool message after it, before the next other message (matched by tool_call_id, else tool_name, else order)",
		"", "ollama/ollama api/types.go (Message: tool_name, tool_call_id), server/prompt.go: the template renders the messages as given; Ollama does not refuse the request, the model is shown a call never answered"},
	{"ollama", "orphan-result", 0, EvidenceAccepted, "a tool message answers a call of the assistant message before it, once (also `unknown-result-id`, `duplicate-result`)",
		"", "as above"},
	{"ollama", "pending-call", 0, EvidenceAccepted, "the request does not end with calls unanswered",
		"", "as above"},
}

// shapeSeverity is the severity of code in shape s where its ShapeRules
// give one.
func shapeSeverity(s shape, code string) (Severity, bool) {
	label := s.Label()
	if s != shapeBedrock && s != shapeOllama {
		return 0, false
	}
	for i := range ShapeRules {
		if r := &ShapeRules[i]; r.Shape == label && r.Code == code && r.Severity != 0 {
			return r.Severity, true
		}
	}
	return 0, false
}
