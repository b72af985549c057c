package tracing

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/agentloop/agentloop/pkg/wire"
)

// Every attribute, span, event and metric name a trace of agentloop
// carries is in this file. The GenAI conventions are still marked "development" upstream
// and rename things between releases: they are pinned to one version of
// the semantic conventions, SchemaURL's, and moving to another is a change
// of this file alone.

// SchemaURL is the version of the semantic conventions the names follow.
const SchemaURL = semconv.SchemaURL

// The GenAI operations, each a kind of span.
const (
	opInvokeAgent = "invoke_agent"
	opChat        = "chat"
	opExecuteTool = "execute_tool"
	// opBatch is a batch of runs, the parent of each item's invoke_agent
	// span; the conventions have no name for it.
	opBatch = "agentloop.batch"
)

// agentName is gen_ai.agent.name on every invoke_agent span.
const agentName = "agentloop"

// Attributes of the conventions.
var (
	keyOperation       = semconv.GenAIOperationNameKey
	keyProvider        = semconv.GenAIProviderNameKey
	keyAgentName       = semconv.GenAIAgentNameKey
	keyAgentID         = semconv.GenAIAgentIDKey
	keyConversationID  = semconv.GenAIConversationIDKey
	keyRequestModel    = semconv.GenAIRequestModelKey
	keyRequestMaxTok   = semconv.GenAIRequestMaxTokensKey
	keyRequestTemp     = semconv.GenAIRequestTemperatureKey
	keyResponseModel   = semconv.GenAIResponseModelKey
	keyResponseID      = semconv.GenAIResponseIDKey
	keyFinishReasons   = semconv.GenAIResponseFinishReasonsKey
	keyInputTokens     = semconv.GenAIUsageInputTokensKey
	keyOutputTokens    = semconv.GenAIUsageOutputTokensKey
	keyCacheRead       = semconv.GenAIUsageCacheReadInputTokensKey
	keyCacheCreation   = semconv.GenAIUsageCacheCreationInputTokensKey
	keyReasoningTokens = semconv.GenAIUsageReasoningOutputTokensKey
	keyToolName        = semconv.GenAIToolNameKey
	keyToolCallID      = semconv.GenAIToolCallIDKey
	keyToolType        = semconv.GenAIToolTypeKey
	keyToolArguments   = semconv.GenAIToolCallArgumentsKey
	keyToolResult      = semconv.GenAIToolCallResultKey
	keySystem          = semconv.GenAISystemInstructionsKey
	keyErrorType       = semconv.ErrorTypeKey
	keyServerAddress   = semconv.ServerAddressKey
	keyServerPort      = semconv.ServerPortKey
	keyMCPMethod       = semconv.McpMethodNameKey
	keyTokenType       = semconv.GenAITokenTypeKey
	keyResendCount     = semconv.HTTPRequestResendCountKey
	keyHTTPStatus      = semconv.HTTPResponseStatusCodeKey
)

// gen_ai.token.type values.
var (
	tokenInput  = keyTokenType.String(string(genaiconv.TokenTypeInput))
	tokenOutput = keyTokenType.String(string(genaiconv.TokenTypeOutput))
)

// The metrics of the conventions, each recorded once a model call: their
// names, units and descriptions are the semantic conventions package's.
var (
	newTokenUsage        = genaiconv.NewClientTokenUsage        // gen_ai.client.token.usage, {token}
	newOperationDuration = genaiconv.NewClientOperationDuration // gen_ai.client.operation.duration, s
)

// The histograms' bucket boundaries the conventions advise.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
)

// gen_ai.tool.type values: a script tool runs on this machine (a
// function); an MCP server's tool is an extension.
const (
	toolTypeFunction  = "function"
	toolTypeExtension = "extension"
)

// errorOther is error.type when nothing finer is known.
const errorOther = "_OTHER"

// Attributes of agentloop's own, for what the conventions have no name.
const (
	keyCommand      = attribute.Key("agentloop.command")
	keyTranscriptID = attribute.Key("agentloop.transcript.id")
	keyParentID     = attribute.Key("agentloop.transcript.parent_id")
	keyStep         = attribute.Key("agentloop.step")
	keyEndReason    = attribute.Key("agentloop.end.reason")
	keySteps        = attribute.Key("agentloop.steps")
	keyCostUSD      = attribute.Key("agentloop.cost.usd")
	keyMaxSteps     = attribute.Key("agentloop.max_steps")
	keyToolChoice   = attribute.Key("agentloop.request.tool_choice")
	keyRequestBytes = attribute.Key("agentloop.request.bytes")
	keyExitCode     = attribute.Key("agentloop.tool.exit_code")
	keyTruncated    = attribute.Key("agentloop.tool.truncated")
	keyMCPServer    = attribute.Key("agentloop.mcp.server")
	keyClearedCalls = attribute.Key("agentloop.cleared.call_ids")
	keyClearedBytes = attribute.Key("agentloop.cleared.bytes")
	keyBatchItems   = attribute.Key("agentloop.batch.items")
	keyRetryWait    = attribute.Key("agentloop.retry.wait_ms")
)

// Events.
const (
	// eventCleared is on the chat span of the request that first carried
	// old tool results cleared.
	eventCleared = "agentloop.context.cleared"
	// eventBudget is on the invoke_agent span of a run a budget stopped.
	eventBudget = "agentloop.budget.exhausted"
	// eventRetry is on a chat span for each attempt of its request that
	// failed and was tried again.
	eventRetry = "agentloop.request.retry"
)

// providerName is gen_ai.provider.name for a transcript's provider: the
// Responses API is OpenAI's too.
func providerName(p string) string {
	switch s := wire.Shape(p); {
	case s == wire.Messages:
		return semconv.GenAIProviderNameAnthropic.Value.AsString()
	case s.Known():
		return semconv.GenAIProviderNameOpenAI.Value.AsString()
	}
	return p
}
