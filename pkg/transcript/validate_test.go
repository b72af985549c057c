package transcript

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Building blocks for one-message-a-line inputs.
const (
	oUser  = `{"role":"user","content":"What is the weather in Paris?"}`
	oCall1 = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`
	oTool1 = `{"role":"tool","tool_call_id":"call_1","content":"sunny"}`
	oDone  = `{"role":"assistant","content":"It is sunny."}`

	aUser   = `{"role":"user","content":[{"type":"text","text":"What is the weather in Paris?"}]}`
	aCall1  = `{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]}`
	aRes1   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"}]}`
	aDone   = `{"role":"assistant","content":[{"type":"text","text":"It is sunny."}]}`
	aCall12 = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"toolu_2","name":"get_weather","input":{"city":"Rome"}}]}`
	aRes12  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"tool_result","tool_use_id":"toolu_2","content":"rain"}]}`

	// Gemini contents: calls without ids (answered by name) and with.
	gUser   = `{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}`
	gCall1  = `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`
	gRes1   = `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"sky":"sunny"}}}]}`
	gDone   = `{"role":"model","parts":[{"text":"It is sunny."}]}`
	gCall12 = `{"role":"model","parts":[{"functionCall":{"id":"a1","name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"id":"b2","name":"get_time","args":{}}}]}`
	gRes12  = `{"role":"user","parts":[{"functionResponse":{"id":"b2","name":"get_time","response":{"t":"noon"}}},{"functionResponse":{"id":"a1","name":"get_weather","response":{"sky":"sunny"}}}]}`
)

func lines(msgs ...string) string { return strings.Join(msgs, "\n") + "\n" }

func oCall(id, name, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`, id, name, args)
}

func oTool(id string) string {
	return fmt.Sprintf(`{"role":"tool","tool_call_id":%q,"content":"ok"}`, id)
}

func aCall(id, name, input string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":%q,"input":%s}]}`, id, name, input)
}

func aRes(id string) string {
	return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}`, id)
}

const header = `{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"openai","model":"gpt-4o"}`

// ctxHeader is a header whose run cleared old tool results.
const ctxHeader = `{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"openai","model":"gpt-4o","context":{"limit":1000,"keep":0}}`

// keepHeader is a header whose policy keeps the last keep results and
// those of tool.
func keepHeader(keep int, tool string) string {
	return fmt.Sprintf(`{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"openai","model":"gpt-4o","context":{"limit":1000,"keep":%d,"keep_tools":[%q]}}`, keep, tool)
}

// parentHeader is the header of a run that continues another transcript.
const parentHeader = `{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"openai","model":"gpt-4o","parent":"earlier.jsonl"}`

// cleared is a message record whose request cleared the result of id held
// by message seq.
func cleared(seq int, msg, id string, at int, placeholder string) string {
	return strings.TrimSuffix(rec(seq, msg), "}") + fmt.Sprintf(`,"cleared":[{"call_id":%q,"name":"get_weather","seq":%d,"bytes":7,"placeholder":%q}]}`, id, at, placeholder)
}

func rec(seq int, msg string) string {
	return fmt.Sprintf(`{"type":"message","seq":%d,"step":1,"time":"2026-01-01T00:00:00Z","message":%s}`, seq, msg)
}

const end = `{"type":"end","time":"2026-01-01T00:00:00Z","reason":"stop","steps":1}`

// recStep is rec with the step of the model request the message belongs to.
func recStep(seq, step int, msg string) string {
	return fmt.Sprintf(`{"type":"message","seq":%d,"step":%d,"time":"2026-01-01T00:00:00Z","message":%s}`, seq, step, msg)
}

// fakeTools defines get_weather, whose arguments need a city.
type fakeTools struct{}

func (fakeTools) Has(name string) bool { return name == "get_weather" }
func (fakeTools) CheckArgs(name string, args []byte) error {
	if !strings.Contains(string(args), `"city"`) {
		return errors.New("missing properties: 'city'")
	}
	return nil
}

// Responses items with the API's ids: the items of one response share the
// 16 digits after the prefix.
const (
	rUser  = `{"role":"user","content":"What is the weather in Paris?"}`
	rRs    = `{"type":"reasoning","id":"rs_0c71d6d8526a7a4b006920e03fd67c819da5eead157faee94b","summary":[],"encrypted_content":"gAAAAABpPDIV"}`
	rRsBad = `{"type":"reasoning","id":"rs_0c71d6d8526a7a4b006920e03fd67c819da5eead157faee94b","summary":[],"encrypted_content":null}`
	rCall  = `{"type":"function_call","id":"fc_0c71d6d8526a7a4b006920e0447ea8819da94e572b1f077c44","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}`
	rOut   = `{"type":"function_call_output","call_id":"call_1","output":"sunny"}`
	rMsg   = `{"type":"message","id":"msg_0c71d6d8526a7a4b006920e05500000000000000000000000","role":"assistant","content":[{"type":"output_text","text":"Let me check."}]}`
	// rDone is the answer of a later response.
	rDone = `{"type":"message","id":"msg_5d0e9a1b27c4f3e8006920e04a7f3e819b1c2d3e4f5a6b7c8d","role":"assistant","content":[{"type":"output_text","text":"Sunny."}]}`
)

func rBody(extra string, items ...string) string {
	return `{"model":"o4-mini",` + extra + `"input":[` + strings.Join(items, ",") + `]}`
}

const rHeader = `{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"responses","model":"o4-mini"}`

type codeCase struct {
	name  string // starts with the shape of the input (see caseShape)
	code  string
	sev   Severity
	opts  Options
	bad   string // input that must get code with sev
	fixed string // the minimal fix: no error, and not code
}

var codeCases = []codeCase{
	{"openai", "unanswered-call", Error, Options{}, lines(oUser, oCall1, oUser), lines(oUser, oCall1, oTool1, oUser)},
	{"anthropic", "unanswered-call", Error, Options{}, lines(aUser, aCall1, aUser), lines(aUser, aCall1, aRes1)},
	{"anthropic parallel", "unanswered-call", Error, Options{}, lines(aUser, aCall12, aRes1), lines(aUser, aCall12, aRes12)},
	{"responses interleaved", "unanswered-call", Error, Options{Input: InputRequest},
		`{"input":[{"type":"function_call","call_id":"a","name":"read","arguments":"{}"},{"role":"assistant","content":"x"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`,
		`{"input":[{"role":"assistant","content":"x"},{"type":"function_call","call_id":"a","name":"read","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`},
	// The model's own message between its call and the output (its output
	// items were [call, message]) leaves the call open: the official API
	// pairs by call_id (DeepSeek's does not; pydantic-ai records it).
	{"responses text after the call", "unanswered-call", Error, Options{Input: InputRequest},
		`{"input":[{"type":"function_call","call_id":"a","name":"read","arguments":"{}"},{"role":"user","content":"wait"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`,
		`{"input":[{"type":"function_call","call_id":"a","name":"read","arguments":"{}"},{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Checking.","annotations":[]}]},{"type":"function_call_output","call_id":"a","output":"ok"}]}`},
	{"responses next turn", "unanswered-call", Error, Options{Input: InputRequest},
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`,
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"},{"type":"function_call_output","call_id":"b","output":"ok"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`},
	{"openai", "pending-call", Error, Options{}, lines(oUser, oCall1), lines(oUser, oCall1, oTool1)},
	{"responses no output", "pending-call", Error, Options{Input: InputRequest}, rBody(`"store":false,`, rUser, rRs, rCall), rBody(`"store":false,`, rUser, rRs, rCall, rOut)},
	{"anthropic", "pending-call", Error, Options{}, lines(aUser, aCall1), lines(aUser, aCall1, aRes1)},
	{"openai allowed", "pending-call", Error, Options{}, lines(oUser, oCall1), lines(oUser, oCall1)},
	{"fine-tuning", "pending-call", Warning, Options{}, `{"messages":[` + oUser + `,` + oCall1 + `]}` + "\n", `{"messages":[` + oUser + `,` + oCall1 + `,` + oTool1 + `]}` + "\n"},
	{"openai", "orphan-result", Error, Options{}, lines(oUser, oTool1), lines(oUser, oCall1, oTool1)},
	{"openai late", "orphan-result", Error, Options{}, lines(oUser, oCall1, oTool1, oDone, oTool1), lines(oUser, oCall1, oTool1, oDone)},
	{"anthropic", "orphan-result", Error, Options{}, lines(aRes1), lines(aUser, aCall1, aRes1)},
	{"responses", "orphan-result", Error, Options{Input: InputRequest},
		`{"input":[{"type":"function_call_output","call_id":"a","output":"ok"}]}`,
		`{"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"a","output":"ok"}]}`},
	{"openai", "unknown-result-id", Error, Options{}, lines(oUser, oCall1, oTool("call_2")), lines(oUser, oCall1, oTool1)},
	{"anthropic", "unknown-result-id", Error, Options{}, lines(aUser, aCall1, aRes("toolu_2")), lines(aUser, aCall1, aRes1)},
	{"anthropic server tool", "unknown-result-id", Error, Options{},
		lines(aUser, `{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}]}`),
		lines(aUser, `{"role":"assistant","content":[{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}]}`)},
	{"openai", "duplicate-result", Error, Options{}, lines(oUser, oCall1, oTool1, oTool1), lines(oUser, oCall1, oTool1)},
	{"anthropic", "duplicate-result", Error, Options{},
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a"},{"type":"tool_result","tool_use_id":"toolu_1","content":"b"}]}`),
		lines(aUser, aCall1, aRes1)},
	{"openai", "duplicate-call-id", Warning, Options{},
		lines(oUser, `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, oTool1),
		lines(oUser, `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]}`, oTool1, oTool("call_2"))},
	{"anthropic", "duplicate-call-id", Error, Options{},
		lines(aUser, strings.ReplaceAll(aCall12, "toolu_2", "toolu_1"), aRes1),
		lines(aUser, aCall12, aRes12)},
	{"openai", "reused-call-id", Warning, Options{}, lines(oUser, oCall1, oTool1, oUser, oCall1, oTool1), lines(oUser, oCall1, oTool1, oUser, oCall("call_2", "get_weather", `"{}"`), oTool("call_2"))},
	{"anthropic", "reused-call-id", Warning, Options{}, lines(aUser, aCall1, aRes1, aCall1, aRes1), lines(aUser, aCall1, aRes1, aCall("toolu_2", "get_weather", "{}"), aRes("toolu_2"))},
	{"responses next turn", "reused-call-id", Warning, Options{Input: InputRequest},
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"},{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`,
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"},{"type":"function_call","call_id":"b","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"b","output":"ok"}]}`},
	{"openai", "missing-tool-call-id", Error, Options{}, lines(oUser, oCall1, `{"role":"tool","content":"sunny"}`), lines(oUser, oCall1, oTool1)},
	{"openai", "arguments-not-string", Error, Options{}, lines(oUser, oCall("call_1", "f", `{"city":"Paris"}`), oTool1), lines(oUser, oCall("call_1", "f", `"{\"city\":\"Paris\"}"`), oTool1)},
	{"openai", "arguments-not-json", Warning, Options{}, lines(oUser, oCall("call_1", "f", `"{city: Paris}"`), oTool1), lines(oUser, oCall("call_1", "f", `"{\"city\":\"Paris\"}"`), oTool1)},
	{"responses codex local_shell_call", "unanswered-call", Warning, Options{},
		lines(`{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}`,
			`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"call_1","status":"completed","action":{"type":"exec","command":["ls"]}}}`,
			`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}}`),
		lines(`{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}`,
			`{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"call_1","status":"completed","action":{"type":"exec","command":["ls"]}}}`,
			`{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a.txt"}}`,
			`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"next"}]}}`)},
	{"openai", "arguments-not-object", Warning, Options{}, lines(oUser, oCall("call_1", "f", `"\"{\\\"city\\\":1}\""`), oTool1), lines(oUser, oCall("call_1", "f", `"{\"city\":1}"`), oTool1)},
	{"responses", "arguments-not-object", Warning, Options{Input: InputRequest},
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"[]"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`,
		`{"input":[{"type":"function_call","call_id":"a","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"a","output":"ok"}]}`},
	{"openai", "invalid-tool-call", Error, Options{},
		lines(oUser, `{"role":"assistant","tool_calls":[{"id":"call_1","function":{"name":"f","arguments":"{}"}}]}`, oTool1),
		lines(oUser, `{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`, oTool1)},
	{"openai unknown target", "call-id-too-long", Warning, Options{},
		lines(oUser, oCall(strings.Repeat("x", 41), "f", `"{}"`), oTool(strings.Repeat("x", 41))),
		lines(oUser, oCall(strings.Repeat("x", 40), "f", `"{}"`), oTool(strings.Repeat("x", 40)))},
	{"openai api.openai.com", "call-id-too-long", Error, Options{},
		lines(header, rec(1, oUser), rec(2, oCall(strings.Repeat("x", 41), "f", `"{}"`)), rec(3, oTool(strings.Repeat("x", 41))), end),
		lines(header, rec(1, oUser), rec(2, oCall(strings.Repeat("x", 40), "f", `"{}"`)), rec(3, oTool(strings.Repeat("x", 40))), end)},
	{"openai", "invalid-tool-name", Error, Options{}, lines(oUser, oCall("call_1", "get weather", `"{}"`), oTool1), lines(oUser, oCall("call_1", "get_weather", `"{}"`), oTool1)},
	{"anthropic", "invalid-tool-name", Error, Options{}, lines(aUser, aCall("toolu_1", "get.weather", "{}"), aRes1), lines(aUser, aCall("toolu_1", "get_weather", "{}"), aRes1)},
	{"openai", "undefined-tool", Warning, Options{},
		`{"tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[` + oUser + `,` + oCall("call_1", "get_time", `"{}"`) + `,` + oTool1 + `]}` + "\n",
		`{"tools":[{"type":"function","function":{"name":"get_weather"}}],"messages":[` + oUser + `,` + oCall1 + `,` + oTool1 + `]}` + "\n"},
	{"anthropic tools after messages", "undefined-tool", Warning, Options{Input: InputRequest},
		"{\"messages\":[\n" + aUser + ",\n" + aCall("toolu_1", "get_time", "{}") + ",\n" + aRes1 + "\n],\n\"tools\":[{\"name\":\"get_weather\"}]}\n",
		"{\"messages\":[\n" + aUser + ",\n" + aCall1 + ",\n" + aRes1 + "\n],\n\"tools\":[{\"name\":\"get_weather\"}]}\n"},
	{"openai", "invalid-message-name", Error, Options{}, lines(`{"role":"user","name":"Jane Doe","content":"hi"}`), lines(`{"role":"user","name":"Jane_Doe","content":"hi"}`)},
	{"openai", "tool-message-name", Warning, Options{}, lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"sunny"}`), lines(oUser, oCall1, oTool1)},
	{"openai", "missing-content", Error, Options{}, lines(oUser, `{"role":"assistant","content":null}`), lines(oUser, oDone)},
	{"openai tool", "missing-content", Error, Options{}, lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1"}`), lines(oUser, oCall1, oTool1)},
	{"anthropic", "missing-content", Error, Options{}, lines(aUser, aCall1, `{"role":"user"}`, aRes1), lines(aUser, aCall1, aRes1)},
	{"openai", "empty-content", Warning, Options{}, lines(oUser, strings.Replace(oCall1, `"content":null`, `"content":""`, 1), oTool1), lines(oUser, oCall1, oTool1)},
	{"anthropic", "empty-content", Error, Options{}, lines(aUser, aCall1, aRes1, `{"role":"assistant","content":[]}`, aUser), lines(aUser, aCall1, aRes1, aDone, aUser)},
	{"anthropic blank text", "empty-content", Error, Options{}, lines(`{"role":"user","content":[{"type":"text","text":" \n"}]}`, aCall1, aRes1), lines(aUser, aCall1, aRes1)},
	{"anthropic blank text beside tool_use", "empty-content", Warning, Options{},
		lines(aUser, `{"role":"assistant","content":[{"type":"text","text":" "},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, aRes1),
		lines(aUser, `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, aRes1)},
	// An empty text block is refused beside other blocks too ("messages:
	// text content blocks must be non-empty").
	{"anthropic empty text beside tool_use", "empty-content", Error, Options{},
		lines(aUser, `{"role":"assistant","content":[{"type":"text","text":""},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, aRes1),
		lines(aUser, `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]}`, aRes1)},
	{"anthropic empty text after the results", "empty-content", Error, Options{},
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"text","text":""}]}`),
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"text","text":"thanks"}]}`)},
	{"anthropic empty text on a Claude Code line of its own", "empty-content", Error, Options{},
		lines(`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":""}]}}`,
			`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
			`{"type":"user","uuid":"u2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}`),
		lines(`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"Listing."}]}}`,
			`{"type":"assistant","uuid":"a2","parentUuid":"a1","message":{"id":"msg_1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]}}`,
			`{"type":"user","uuid":"u2","parentUuid":"a2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]}}`)},
	{"anthropic escaped blank text", "empty-content", Error, Options{}, lines(`{"role":"user","content":[{"type":"text","text":"\u0020\u000A\t"}]}`, aCall1, aRes1), lines(`{"role":"user","content":[{"type":"text","text":"\u0020x"}]}`, aCall1, aRes1)},
	{"anthropic escaped blank string", "empty-content", Error, Options{}, lines(`{"role":"user","content":"\u0009\u000d"}`, aCall1, aRes1), lines(`{"role":"user","content":"\u0009\u00e9"}`, aCall1, aRes1)},
	{"openai", "content-with-tool-calls", Warning, Options{}, lines(oUser, strings.Replace(oCall1, `"content":null`, `"content":"Checking."`, 1), oTool1), lines(oUser, oCall1, oTool1)},
	{"responses", "orphan-reasoning", Error, Options{Input: InputRequest},
		`{"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[]},{"role":"assistant","content":"42"}]}`,
		`{"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[]},{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"42"}]}]}`},
	{"responses reasoning apart", "missing-reasoning", Error, Options{Input: InputRequest},
		rBody("", rUser, rRs, rMsg, rUser, rCall, rOut),
		rBody("", rUser, rRs, rMsg, rCall, rOut, rUser)},
	{"responses reasoning behind", "missing-reasoning", Error, Options{Input: InputRequest},
		rBody("", rUser, rCall, rRs, rMsg, rOut),
		rBody("", rUser, rRs, rMsg, rCall, rOut)},
	{"responses stateless", "reasoning-not-found", Error, Options{Input: InputRequest},
		rBody(`"store":false,`, rUser, rRsBad, rCall, rOut),
		rBody(`"store":true,`, rUser, rRsBad, rCall, rOut)},
	{"responses store after input", "reasoning-not-found", Error, Options{Input: InputRequest},
		`{"input":[` + rUser + `,` + rRsBad + `,` + rCall + `,` + rOut + `],"store":false}`,
		`{"input":[` + rUser + `,` + rRs + `,` + rCall + `,` + rOut + `],"store":false}`},
	// The model's items of a later step came from a request that had to
	// answer the calls of the step before: the API refuses one that does
	// not ("No tool output found for function call call_1."), whatever
	// follows.
	{"responses agentloop output left out", "unanswered-call", Error, Options{},
		lines(rHeader, recStep(1, 0, rUser), recStep(2, 1, rCall), recStep(3, 2, rDone), end),
		lines(rHeader, recStep(1, 0, rUser), recStep(2, 1, rCall), recStep(3, 1, rOut), recStep(4, 2, rDone), end)},
	{"responses agentloop output left out, call then text", "unanswered-call", Error, Options{AllowPending: true},
		lines(rHeader, recStep(1, 0, rUser), recStep(2, 1, rCall), recStep(3, 1, rMsg), recStep(4, 2, rDone), end),
		lines(rHeader, recStep(1, 0, rUser), recStep(2, 1, rCall), recStep(3, 1, rMsg), recStep(4, 1, rOut), recStep(5, 2, rDone), end)},
	{"responses agentloop", "reasoning-not-found", Error, Options{},
		lines(rHeader, rec(1, rUser), rec(2, rRsBad), rec(3, rCall), rec(4, rOut), end),
		lines(rHeader, rec(1, rUser), rec(2, rRs), rec(3, rCall), rec(4, rOut), end)},
	{"anthropic", "result-not-first", Error, Options{},
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"text","text":"here"},{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"}]}`),
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},{"type":"text","text":"here"}]}`)},
	{"anthropic merged turn", "result-not-first", Error, Options{},
		lines(aUser, aCall1, aUser, aRes1),
		lines(aUser, aCall1, aRes1, aUser)},
	{"anthropic", "role-order", Warning, Options{}, lines(aUser, aUser, aCall1, aRes1), lines(aUser, aCall1, aRes1)},
	{"anthropic", "error-result-empty", Error, Options{},
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true}]}`),
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":"exit 1: no such city"}]}`)},
	{"anthropic empty text block", "error-result-empty", Error, Options{},
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":""}]}]}`),
		lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"exit 1: no such city"}]}]}`)},
	{"anthropic", "invalid-call-id", Error, Options{}, lines(aUser, aCall("toolu.1", "f", "{}"), aRes("toolu.1")), lines(aUser, aCall("toolu_1", "f", "{}"), aRes("toolu_1"))},
	{"anthropic", "input-not-object", Error, Options{}, lines(aUser, aCall("toolu_1", "f", `"{}"`), aRes1), lines(aUser, aCall("toolu_1", "f", "{}"), aRes1)},
	{"anthropic", "misplaced-block", Error, Options{},
		lines(aUser, `{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]}`),
		lines(aUser, aCall1, aRes1)},
	{"anthropic", "invalid-block", Error, Options{}, lines(aUser, `{"role":"assistant","content":[{"type":"tool_use","name":"f","input":{}}]}`), lines(aUser, aCall1, aRes1)},
	{"anthropic", "text-after-tool-use", Warning, Options{},
		lines(aUser, `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}},{"type":"text","text":"done"}]}`, aRes1),
		lines(aUser, `{"role":"assistant","content":[{"type":"text","text":"done"},{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}`, aRes1)},
	{"anthropic thinking enabled", "thinking-not-first", Error, Options{},
		`{"model":"m","thinking":{"type":"enabled","budget_tokens":1024},"messages":[` + aUser + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"a"}]},` + aUser + `,` + aCall1 + `,` + aRes1 + `]}` + "\n",
		`{"model":"m","thinking":{"type":"enabled","budget_tokens":1024},"messages":[` + aUser + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"a"}]},` + aUser + `,` +
			`{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}]},` + aRes1 + `]}` + "\n"},
	{"anthropic", "system-in-messages", Warning, Options{}, lines(aUser, aCall1, aRes1, `{"role":"system","content":[{"type":"text","text":"be brief"}]}`), lines(aUser, aCall1, aRes1)},
	{"anthropic", "first-not-user", Warning, Options{}, lines(aDone, aUser, aCall1, aRes1), lines(aUser, aCall1, aRes1)},
	{"anthropic after system", "first-not-user", Warning, Options{},
		lines(`{"role":"system","content":"be brief"}`, aDone, aUser, aCall1, aRes1),
		lines(`{"role":"system","content":"be brief"}`, aUser, aCall1, aRes1)},
	{"openai", "mixed-shapes", Warning, Options{}, lines(oUser, oCall1, oTool1, aCall("toolu_1", "f", "{}")), lines(oUser, oCall1, oTool1, oDone)},
	{"anthropic", "mixed-shapes", Warning, Options{}, lines(aUser, aCall1, aRes1, oCall("call_2", "f", `"{}"`), oTool("call_2")), lines(aUser, aCall1, aRes1, aDone)},
	// A conversation in a shape the rules do not cover: its calls are not
	// checked, which fails the file unless --allow-unchecked accepts it.
	{"proto roles", "unchecked-conversation", Error, Options{},
		lines(`{"role":"ROLE_USER","content":"hi"}`, `{"role":"ROLE_ASSISTANT","content":"hello"}`),
		lines(oUser, oDone)},
	{"proto roles allowed", "unchecked-conversation", Warning, Options{AllowUnchecked: true},
		lines(`{"role":"ROLE_USER","content":"hi"}`, `{"role":"ROLE_ASSISTANT","content":"hello"}`),
		lines(oUser, oDone)},
	// Amazon Bedrock Converse: a request that holds toolUse or toolResult
	// blocks defines its tools in toolConfig.
	{"bedrock", "missing-tool-config", Error, Options{},
		lines(`{"inferenceConfig":{},"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"f","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"ok"}]}}]}]}`),
		lines(`{"inferenceConfig":{},"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"f","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"ok"}]}}]}],"toolConfig":{"tools":[{"toolSpec":{"name":"f","inputSchema":{"json":{"type":"object"}}}}]}}`)},
	// Lists other tools call "parts" are not Gemini's contents (a
	// pydantic-ai message history): not checked, so not passed.
	{"pydantic-ai messages", "unchecked-conversation", Error, Options{},
		lines(`{"parts":[{"content":"pw=42","part_kind":"user-prompt"}],"kind":"request"}`,
			`{"parts":[{"tool_name":"secret_plan","args":"{}","tool_call_id":"call_8vnY","part_kind":"tool-call"}],"kind":"response"}`),
		lines(gUser, gCall1, gRes1)},
	{"gemini parts of another tool", "invalid-message", Error, Options{}, lines(gUser, `{"role":"model","parts":[{"part_kind":"text","content":"hi"}]}`), lines(gUser, gDone)},
	// Gemini's contents.
	{"gemini", "unanswered-call", Error, Options{}, lines(gUser, gCall1, gUser), lines(gUser, gCall1, gRes1, gDone)},
	{"gemini fewer responses", "unanswered-call", Error, Options{}, lines(gUser, gCall12,
		`{"role":"user","parts":[{"functionResponse":{"id":"a1","name":"get_weather","response":{}}}]}`), lines(gUser, gCall12, gRes12)},
	{"gemini responses split over two turns", "orphan-result", Error, Options{}, lines(gUser, gCall12,
		`{"role":"user","parts":[{"functionResponse":{"id":"a1","name":"get_weather","response":{}}}]}`,
		`{"role":"user","parts":[{"functionResponse":{"id":"b2","name":"get_time","response":{}}}]}`), lines(gUser, gCall12, gRes12)},
	{"gemini", "orphan-result", Error, Options{}, lines(gUser, gRes1), lines(gUser, gCall1, gRes1)},
	{"gemini first", "call-turn-order", Error, Options{}, lines(gCall1, gRes1), lines(gUser, gCall1, gRes1)},
	// Consecutive model contents are one turn: a call in the second is
	// still one made before any user turn.
	{"gemini after a model turn", "call-turn-order", Error, Options{}, lines(gDone, gCall1, gRes1), lines(gUser, gDone, gCall1, gRes1)},
	{"gemini id", "unknown-result-id", Error, Options{}, lines(gUser, gCall12, strings.Replace(gRes12, `"b2"`, `"c3"`, 1)), lines(gUser, gCall12, gRes12)},
	{"gemini name", "unknown-result-id", Error, Options{}, lines(gUser, gCall1, strings.Replace(gRes1, "get_weather", "get_time", 1)), lines(gUser, gCall1, gRes1)},
	{"gemini", "duplicate-result", Error, Options{}, lines(gUser, gCall1,
		`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{}}},{"functionResponse":{"name":"get_weather","response":{}}}]}`), lines(gUser, gCall1, gRes1)},
	{"gemini", "pending-call", Error, Options{}, lines(gUser, gCall1), lines(gUser, gCall1, gRes1)},
	{"gemini", "misplaced-block", Error, Options{}, lines(gUser, `{"role":"model","parts":[{"functionResponse":{"name":"get_weather","response":{}}}]}`), lines(gUser, gDone)},
	{"gemini", "invalid-tool-name", Error, Options{}, lines(gUser, strings.Replace(gCall1, "get_weather", "9 weather", 1), strings.Replace(gRes1, "get_weather", "9 weather", 1)),
		lines(gUser, strings.Replace(gCall1, "get_weather", "weather.get:v1", 1), strings.Replace(gRes1, "get_weather", "weather.get:v1", 1))},
	// A call without a name answered: the turn has no call to match the
	// response to (it crashed the checker).
	{"gemini", "invalid-tool-call", Error, Options{}, lines(gUser, `{"role":"model","parts":[{"functionCall":{"args":{}}}]}`, gRes1),
		lines(gUser, gCall1, gRes1)},
	{"gemini", "missing-content", Error, Options{}, lines(gUser, `{"role":"model","parts":[]}`), lines(gUser, gDone)},
	{"gemini", "invalid-message", Error, Options{}, lines(gUser, gCall1, `{"role":"user","parts":[{"functionResponse":{"response":{}}}]}`), lines(gUser, gCall1, gRes1)},
	{"gemini role", "invalid-message", Error, Options{}, lines(gUser, `{"role":"assistant","parts":[{"text":"x"}]}`), lines(gUser, gDone)},
	{"gemini request", "undefined-tool", Warning, Options{},
		`{"contents":[` + gUser + `,` + gCall1 + `,` + gRes1 + `],"tools":[{"functionDeclarations":[{"name":"get_time"}]}]}`,
		`{"contents":[` + gUser + `,` + gCall1 + `,` + gRes1 + `],"tools":[{"functionDeclarations":[{"name":"get_weather"}]}]}`},
	{"bedrock", "text-beside-results", Warning, Options{},
		lines(`{"inferenceConfig":{},"toolConfig":{"tools":[{"toolSpec":{"name":"f"}}]},"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"f","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"ok"}]}},{"text":"and?"}]}]}`),
		lines(`{"inferenceConfig":{},"toolConfig":{"tools":[{"toolSpec":{"name":"f"}}]},"messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"f","input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_1","content":[{"text":"ok"}]}}]}]}`)},
	// A role no API has, in a request body (in a log of messages, such a
	// line is the writer's bookkeeping: see TestBookkeepingLines).
	{"openai", "invalid-message", Error, Options{}, lines(`{"messages":[{"role":"robot","content":"hi"}]}`), lines(`{"messages":[` + oUser + `]}`)},
	{"anthropic", "invalid-message", Error, Options{}, lines(`{"messages":[` + aUser + `,` + aCall1 + `,` + aRes1 + `,{"role":"robot","content":"hi"}]}`), lines(`{"messages":[` + aUser + `,` + aCall1 + `,` + aRes1 + `]}`)},
	{"openai tool content object", "invalid-message", Error, Options{},
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":{"result":5}}`, oDone),
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":"{\"result\":5}"}`, oDone)},
	// Some models and endpoints take an image in a tool message (OpenRouter
	// and Ollama answered 200: testdata/logs/ruby-vcr_ruby_llm_*_tool_image.yml).
	{"openai tool content image part", "invalid-message", Warning, Options{},
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}]}`, oDone),
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"sunny"}]}`, oDone)},
	{"openai tool content other part", "invalid-message", Error, Options{},
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":[{"type":"input_text","text":"sunny"}]}`, oDone),
		lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"sunny"}]}`, oDone)},
	{"openai", "unknown-tool", Error, Options{Tools: fakeTools{}}, lines(oUser, oCall("call_1", "get_time", `"{}"`), oTool1), lines(oUser, oCall1, oTool1)},
	{"anthropic", "unknown-tool", Error, Options{Tools: fakeTools{}}, lines(aUser, aCall("toolu_1", "get_time", "{}"), aRes1), lines(aUser, aCall1, aRes1)},
	{"openai", "arguments-invalid", Error, Options{Tools: fakeTools{}}, lines(oUser, oCall("call_1", "get_weather", `"{\"town\":\"Paris\"}"`), oTool1), lines(oUser, oCall1, oTool1)},
	{"anthropic", "arguments-invalid", Error, Options{Tools: fakeTools{}}, lines(aUser, aCall("toolu_1", "get_weather", `{"town":"Paris"}`), aRes1), lines(aUser, aCall1, aRes1)},
	{"messages", "not-json", Error, Options{}, lines(oUser, `{"role":"assistant",`, oDone), lines(oUser, oDone)},
	{"messages", "truncated-line", Error, Options{}, lines(oUser, oDone) + `{"role":"us`, lines(oUser, oDone)},
	{"agentloop", "truncated-line", Warning, Options{}, lines(header, rec(1, oUser)) + `{"type":"message","seq":2,"mess`, lines(header, rec(1, oUser))},
	{"request", "truncated-line", Error, Options{}, "{\"messages\": [\n" + oUser + ",\n" + oDone, "{\"messages\": [\n" + oUser + ",\n" + oDone + "]}\n"},
	{"request", "not-a-conversation", Error, Options{Input: InputRequest}, "{\n\"model\": \"gpt-4o\"\n}\n", "{\n\"model\": \"gpt-4o\",\n\"messages\": [" + oUser + "]\n}\n"},
	{"agentloop", "missing-header", Error, Options{Input: InputAgentloop}, lines(rec(1, oUser), end), lines(header, rec(1, oUser), end)},
	{"agentloop", "duplicate-header", Error, Options{}, lines(header, rec(1, oUser), header, end), lines(header, rec(1, oUser), end)},
	{"agentloop", "seq-order", Error, Options{}, lines(header, rec(2, oUser), rec(1, oDone), end), lines(header, rec(1, oUser), rec(2, oDone), end)},
	{"agentloop", "record-after-end", Error, Options{}, lines(header, rec(1, oUser), end, rec(2, oDone)), lines(header, rec(1, oUser), rec(2, oDone), end)},
	{"agentloop", "invalid-record", Error, Options{}, lines(header, rec(1, oUser), `{"type":"note","seq":2}`, end), lines(header, rec(1, oUser), end)},
	{"agentloop", "invalid-record", Error, Options{}, lines(strings.TrimSuffix(header, "}")+`,"temperature":"hot","max_tokens":300}`, rec(1, oUser), end), lines(strings.TrimSuffix(header, "}")+`,"temperature":0.2,"max_tokens":300}`, rec(1, oUser), end)},
	{"agentloop", "invalid-record", Error, Options{}, lines(strings.TrimSuffix(header, "}")+`,"max_cost":"1$","max_total_tokens":1.5}`, rec(1, oUser), end), lines(strings.TrimSuffix(header, "}")+`,"max_cost":1,"max_total_tokens":15}`, rec(1, oUser), end)},
	{"agentloop", "results-mismatch", Error, Options{},
		lines(header, rec(1, oUser), rec(2, oCall1), strings.TrimSuffix(rec(3, oTool1), "}")+`,"results":[{"call_id":"call_9","name":"get_weather"}]}`, rec(4, oDone), end),
		lines(header, rec(1, oUser), rec(2, oCall1), strings.TrimSuffix(rec(3, oTool1), "}")+`,"results":[{"call_id":"call_1","name":"get_weather"}]}`, rec(4, oDone), end)},
	{"openai answer", "answer-schema", Error, Options{},
		lines(schemaHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, `{"role":"assistant","content":"{\"city\":\"Paris\",\"temp\":\"21\"}"}`), end),
		lines(schemaHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, `{"role":"assistant","content":"{\"city\":\"Paris\",\"temp\":21}"}`), end)},
	{"openai prose", "answer-schema", Error, Options{},
		lines(schemaHeader, rec(1, oUser), rec(2, oDone), `{"type":"end","time":"2026-01-01T00:00:00Z","reason":"schema","steps":1}`),
		lines(schemaHeader, rec(1, oUser), rec(2, oDone), rec(3, `{"role":"user","content":"Your answer did not match"}`), rec(4, `{"role":"assistant","content":"{\"city\":\"Paris\",\"temp\":21}"}`), end)},
	{"anthropic answer", "answer-schema", Error, Options{},
		lines(aSchemaHeader, rec(1, aUser), rec(2, `{"role":"assistant","content":[{"type":"text","text":"{\"city\":\"Paris\"}"}]}`), end),
		lines(aSchemaHeader, rec(1, aUser), rec(2, `{"role":"assistant","content":[{"type":"text","text":"{\"city\":\"Paris\",\"temp\":21}"}]}`), end)},
	{"agentloop bad schema", "answer-schema", Error, Options{},
		lines(strings.TrimSuffix(header, "}")+`,"answer_schema":{"schema":{"type":"object","required":"city"},"mode":"native","retries":1}}`, rec(1, oUser), rec(2, oDone), end),
		lines(strings.TrimSuffix(header, "}")+`,"answer_schema":{"schema":{"type":"object","required":["city"]},"mode":"native","retries":1}}`, rec(1, oUser), rec(2, `{"role":"assistant","content":"{\"city\":\"Paris\"}"}`), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_9", 3, "[cleared to save context: 5 B from get_weather; call it again if you need it]"), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared to save context: 5 B from get_weather; call it again if you need it]"), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "5 bytes gone"), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oCall("call_2", "get_weather", `"{}"`), "call_1", 3, "[cleared: 5 B]"), rec(5, oTool("call_2")), cleared(6, oDone, "call_1", 3, "[cleared: 5 B]"), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oCall("call_2", "get_weather", `"{}"`), "call_1", 3, "[cleared: 5 B]"), rec(5, oTool("call_2")), cleared(6, oDone, "call_2", 5, "[cleared: 5 B]"), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(header, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	// The entry names the call's tool; the header's policy never clears
	// the last keep results, nor those of keep_tools.
	{"agentloop", "cleared-result", Error, Options{},
		lines(ctxHeader, rec(1, oUser), rec(2, oCall("call_1", "read_file", `"{}"`)), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall("call_1", "get_weather", `"{}"`)), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(keepHeader(1, ""), rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oCall("call_2", "get_weather", `"{}"`), "call_1", 3, "[cleared: 5 B]"), rec(5, oTool("call_2")), rec(6, oDone), end),
		lines(keepHeader(1, ""), rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, oCall("call_2", "get_weather", `"{}"`)), rec(5, oTool("call_2")), cleared(6, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	{"agentloop", "cleared-result", Error, Options{},
		lines(keepHeader(0, "get_weather"), rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end),
		lines(keepHeader(0, "plan"), rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	// A request's clearings are on the answer it got, not on a result.
	{"agentloop", "cleared-result", Error, Options{},
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), rec(4, oCall("call_2", "get_weather", `"{}"`)), cleared(5, oTool("call_2"), "call_1", 3, "[cleared: 5 B]"), rec(6, oDone), end),
		lines(ctxHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oCall("call_2", "get_weather", `"{}"`), "call_1", 3, "[cleared: 5 B]"), rec(5, oTool("call_2")), rec(6, oDone), end)},
	// A run that goes on from another starts with its records, clearings
	// and all, whatever its own policy.
	{"agentloop continued", "cleared-result", Error, Options{},
		lines(header, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end),
		lines(parentHeader, rec(1, oUser), rec(2, oCall1), rec(3, oTool1), cleared(4, oDone, "call_1", 3, "[cleared: 5 B]"), end)},
	{"openai", "stray-result-record", Error, Options{},
		lines(header, rec(1, oUser), rec(2, oCall1), resultRec("call_9"), rec(3, oTool1), rec(4, oDone), end),
		lines(header, rec(1, oUser), rec(2, oCall1), resultRec("call_1"), rec(3, oTool1), rec(4, oDone), end)},
	{"anthropic", "stray-result-record", Error, Options{},
		lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_2"), rec(3, aRes12), resultRec("toolu_1"), rec(4, aDone), end),
		lines(aHeader, rec(1, aUser), rec(2, aCall12), resultRec("toolu_2"), resultRec("toolu_1"), rec(3, aRes12), rec(4, aDone), end)},
	{"empty", "no-conversation", Error, Options{}, "\n\n", lines(oUser)},
	{"agentloop killed before its first message", "no-conversation", Warning, Options{AllowPending: true}, lines(header), lines(header, rec(1, oUser))},
	{"nothing recognised", "no-conversation", Error, Options{},
		lines(`{"type":"summary","summary":"a session","leafUuid":"u1"}`),
		lines(`{"type":"summary","summary":"a session","leafUuid":"u1"}`, `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`)},
	{"claude code", "missing-parent", Warning, Options{},
		lines(`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"hello"}]}}`,
			`{"type":"user","uuid":"u2","parentUuid":"gone","message":{"role":"user","content":"again"}}`),
		lines(`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"hello"}]}}`,
			`{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":"again"}}`)},
	// The APIs refuse a body whose text is not UTF-8, or holds half a
	// surrogate pair, as not JSON; encoding/json reads both as U+FFFD.
	{"openai bytes", "invalid-utf8", Error, Options{}, lines(oUser, "{\"role\":\"assistant\",\"content\":\"sunny \xff\"}"), lines(oUser, `{"role":"assistant","content":"sunny \u00ff"}`)},
	{"openai truncated sequence", "invalid-utf8", Error, Options{}, lines(oUser, oCall1, "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny \xe2\x98\"}"), lines(oUser, oCall1, "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"sunny \xe2\x98\x80\"}")},
	{"openai surrogate escape in a body", "invalid-utf8", Error, Options{Input: InputRequest},
		`{"model":"m","messages":[` + oUser + `,{"role":"assistant","content":"\ud83d"}]}`, `{"model":"m","messages":[` + oUser + `,{"role":"assistant","content":"\ud83d\ude00"}]}`},
	{"openai in the tools", "invalid-utf8", Error, Options{Input: InputRequest},
		"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"caf\xe9\"}}],\"messages\":[" + oUser + "]}",
		"{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"description\":\"caf\xc3\xa9\"}}],\"messages\":[" + oUser + "]}"},
	{"anthropic low surrogate", "invalid-utf8", Error, Options{}, lines(aUser, aCall1, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"\udc00 sunny"}]}`), lines(aUser, aCall1, aRes1)},
	{"anthropic high surrogate then text", "invalid-utf8", Error, Options{}, lines(`{"role":"user","content":[{"type":"text","text":"\ud83dx"}]}`), lines(aUser)},
	{"anthropic in the system prompt", "invalid-utf8", Error, Options{Input: InputRequest},
		"{\n \"model\": \"m\",\n \"system\": \"be \xc0 brief\",\n \"messages\": [" + aUser + "]\n}\n", "{\n \"model\": \"m\",\n \"system\": \"be brief\",\n \"messages\": [" + aUser + "]\n}\n"},
	{"binary", "binary-file", Error, Options{}, lines(oUser) + "\x00\x01\x02" + lines(oUser), lines(oUser, oUser)},
	{"zip", "binary-file", Error, Options{}, "PK\x03\x04\x14\x00 not a whole archive", lines(oUser)},
	{"long line", "line-too-long", Error, Options{MaxLine: 200},
		lines(oUser, `{"role":"assistant","content":"`+strings.Repeat("x", 300)+`"}`, oUser), lines(oUser, oDone, oUser)},
	{"cassette", "not-yaml", Error, Options{},
		"interactions:\n- request:\n    body: '{\"messages\": [\n    method: POST\n",
		"interactions:\n- request:\n    body: '{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}'\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n"},
}

var aHeader = strings.Replace(header, `"provider":"openai"`, `"provider":"anthropic"`, 1)

// schemaHeader is the header of a run whose answer had to match a schema.
var schemaHeader = strings.TrimSuffix(header, "}") + `,"answer_schema":{"schema":{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"],"additionalProperties":false},"mode":"native","name":"answer","strict":true,"retries":1}}`

var aSchemaHeader = strings.Replace(schemaHeader, `"provider":"openai"`, `"provider":"anthropic"`, 1)

// resultRec is a result record for call id.
func resultRec(id string) string {
	return fmt.Sprintf(`{"type":"result","step":1,"time":"2026-01-01T00:00:00Z","call_id":%q,"name":"get_weather","exit_code":0,"duration_ms":3,"truncated":false,"is_error":false,"content":"sunny"}`, id)
}

// TestCodes checks every code in each shape it applies to, with a passing
// twin: the minimal fix of the failing input.
func TestCodes(t *testing.T) {
	for _, tc := range codeCases {
		t.Run(tc.code+"/"+tc.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "t.jsonl", []byte(tc.bad), tc.opts)
			found := false
			for _, f := range fs {
				if f.Code == tc.code && f.Severity == tc.sev {
					found = true
				}
			}
			if !found {
				t.Errorf("bad input: want a %s [%s], got:\n%s", tc.sev, tc.code, dump(fs))
			}
			opts := tc.opts
			if tc.name == "openai allowed" {
				opts.AllowPending = true
			}
			fs, _ = validateBytes(t, "t.jsonl", []byte(tc.fixed), opts)
			for _, f := range fs {
				if f.Code == tc.code || f.Severity == Error {
					t.Errorf("fixed input: unexpected %v", f)
				}
			}
		})
	}
}

// caseShape is the shape a table case is in, from the start of its name:
// openai (and responses, which share its column), anthropic, or "" for the
// checks of files and records.
func caseShape(name string) string {
	switch {
	case strings.HasPrefix(name, "openai"), strings.HasPrefix(name, "responses"):
		return "openai"
	case strings.HasPrefix(name, "anthropic"):
		return "anthropic"
	}
	return ""
}

// TestEveryCodeTested keeps the table of codes and the tests in step. Every
// code says where it comes from: rule numbers of transcript-rules.md, or a
// note saying what it checks instead. It has a severity in each shape its
// rules are about (1–13 OpenAI, 14–28 Anthropic, 29–30 both), and in at
// least one. It has a table case in every shape it has a severity in (or,
// for a check of the file, one case and one severity for both), and a case
// in a shape expects the severity the table gives it there, unless a note
// says when it differs.
func TestEveryCodeTested(t *testing.T) {
	tested := map[string]map[string]bool{}
	for _, tc := range codeCases {
		c, ok := LookupCode(tc.code)
		if !ok {
			t.Errorf("test of %s, which is not in Codes", tc.code)
			continue
		}
		sh := caseShape(tc.name)
		if tested[tc.code] == nil {
			tested[tc.code] = map[string]bool{}
		}
		tested[tc.code][sh] = true
		if sh == "" {
			continue
		}
		sev := c.OpenAI
		if sh == "anthropic" {
			sev = c.Anthropic
		}
		switch {
		case sev == 0:
			t.Errorf("%s/%s: a case in the %s shape, where Codes gives %s no severity", tc.code, tc.name, sh, tc.code)
		case tc.sev != sev && c.Note == "":
			t.Errorf("%s/%s: the case expects a %s, Codes gives a %s and no note says when", tc.code, tc.name, tc.sev, sev)
		}
	}
	for _, c := range Codes {
		if c.Summary == "" {
			t.Errorf("code %s has no summary", c.Code)
		}
		if c.Rules == "" && c.Note == "" {
			t.Errorf("code %s has neither rules nor a note", c.Code)
		}
		if c.OpenAI == 0 && c.Anthropic == 0 {
			t.Errorf("code %s has no severity in either shape", c.Code)
		}
		if c.Rules != "" {
			for r := range strings.SplitSeq(c.Rules, ", ") {
				n, err := strconv.Atoi(r)
				switch {
				case err != nil || n < 1 || n > 30:
					t.Errorf("code %s: rule %q is not a rule number (1–30)", c.Code, r)
				case n <= 13 && c.OpenAI == 0, n >= 29 && c.OpenAI == 0:
					t.Errorf("code %s: rule %d is about the OpenAI shape, where the code has no severity", c.Code, n)
				case n >= 14 && c.Anthropic == 0:
					t.Errorf("code %s: rule %d is about the Anthropic shape, where the code has no severity", c.Code, n)
				}
			}
		}
		shapes := tested[c.Code]
		switch {
		case shapes == nil:
			t.Errorf("code %s has no test", c.Code)
		case shapes["openai"] || shapes["anthropic"]:
			if c.OpenAI != 0 && !shapes["openai"] {
				t.Errorf("code %s has a severity in the OpenAI shape but no case there", c.Code)
			}
			if c.Anthropic != 0 && !shapes["anthropic"] {
				t.Errorf("code %s has a severity in the Anthropic shape but no case there", c.Code)
			}
		case c.OpenAI != c.Anthropic && c.Note == "":
			t.Errorf("code %s, a check of the file, has two severities and no note saying when each applies", c.Code)
		}
	}
}

func dump(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestFindingFormat(t *testing.T) {
	fs, st := validateBytes(t, "t.jsonl", []byte(lines(oUser, oCall1, oUser)), Options{})
	if len(fs) != 1 {
		t.Fatalf("got %d findings:\n%s", len(fs), dump(fs))
	}
	want := "t.jsonl:3: error: call_1 (get_weather, line 2) has no answer: it needs a tool message before line 3 [unanswered-call]"
	if got := fs[0].String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !slices.Equal(fs[0].IDs, []string{"call_1"}) || fs[0].Index != 2 {
		t.Errorf("ids %v index %d", fs[0].IDs, fs[0].Index)
	}
	if st != (Stats{Files: 1, Conversations: 1, Messages: 3, ToolCalls: 1, Errors: 1, Format: "openai-messages"}) {
		t.Errorf("stats %+v", st)
	}
}

func TestStrict(t *testing.T) {
	in := []byte(lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"x"}`))
	_, st := validateBytes(t, "t", in, Options{})
	if st.Errors != 0 || st.Warnings != 1 {
		t.Errorf("default: %+v", st)
	}
	fs, st := validateBytes(t, "t", in, Options{Strict: true})
	if st.Errors != 1 || st.Warnings != 0 || fs[0].Severity != Error {
		t.Errorf("strict: %+v", st)
	}
}

// TestWholeFileLocations checks line numbers and message indexes in a
// pretty-printed request body.
func TestWholeFileLocations(t *testing.T) {
	body := `{
  "model": "gpt-4o",
  "messages": [
    {"role": "user", "content": "hi"},
    {
      "role": "assistant",
      "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    },
    {"role": "user", "content": "well?"}
  ]
}
`
	fs, _ := validateBytes(t, "req.json", []byte(body), Options{})
	if len(fs) != 1 {
		t.Fatalf("got:\n%s", dump(fs))
	}
	f := fs[0]
	if f.Line != 9 || f.Index != 2 || f.Path != "messages[2]" || f.Code != "unanswered-call" {
		t.Errorf("got %v (line %d index %d)", f, f.Line, f.Index)
	}
	if !strings.Contains(f.Message, "messages[1]") {
		t.Errorf("message does not name the call's message: %s", f.Message)
	}
}

// TestLongLines reads lines far beyond bufio.Scanner's 64 KiB.
func TestLongLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := lines(oUser, oCall1, `{"role":"tool","tool_call_id":"call_1","content":"`+big+`"}`, oDone)
	fs, st := validateBytes(t, "t", []byte(in), Options{})
	if len(fs) != 0 || st.Messages != 4 {
		t.Errorf("got %+v\n%s", st, dump(fs))
	}
}

// TestTornLineOnce: a crashed writer's last line is one finding, not a
// cascade about the calls it might have answered.
func TestTornLineOnce(t *testing.T) {
	in := lines(header, rec(1, oUser), rec(2, oCall1)) + rec(3, oTool1)[:40]
	fs, _ := validateBytes(t, "t", []byte(in), Options{AllowPending: true})
	if len(fs) != 1 || fs[0].Code != "truncated-line" || fs[0].Line != 4 {
		t.Errorf("got:\n%s", dump(fs))
	}
}

// TestNotJSONResync: an unreadable line does not make the lines after it
// wrong.
func TestNotJSONResync(t *testing.T) {
	in := lines(oUser, oCall1, `{"role":"tool",`, oTool1, oDone)
	fs, _ := validateBytes(t, "t", []byte(in), Options{})
	if len(fs) != 1 || fs[0].Code != "not-json" || fs[0].Line != 3 {
		t.Errorf("got:\n%s", dump(fs))
	}
}

func TestBadOptions(t *testing.T) {
	if _, err := Validate("x", strings.NewReader(""), Options{Input: "yaml"}, nil); err == nil {
		t.Error("unknown input format accepted")
	}
	if _, err := Validate("x", strings.NewReader(""), Options{Shape: "gemini"}, nil); err == nil {
		t.Error("unknown shape accepted")
	}
}

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadError(t *testing.T) {
	if _, err := Validate("x", failReader{}, Options{}, nil); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("got %v", err)
	}
}

// TestHugeFirstLine: a first line longer than the detection window is still
// read as what it is, a message or a streamed request body.
func TestHugeFirstLine(t *testing.T) {
	big := strings.Repeat("y", 1<<20+10) // longer than the window a format is told by
	msgs := lines(`{"content":"`+big+`","role":"user"}`, oCall1, oUser)
	fs, st := validateBytes(t, "m.jsonl", []byte(msgs), Options{})
	if st.Messages != 3 || len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 3 {
		t.Errorf("messages: %+v\n%s", st, dump(fs))
	}
	req := `{"model":"m","messages":[{"role":"user","content":"` + big + `"},` + oCall1 + `,` + oUser + `]}` + "\n" +
		`{"model":"m","messages":[` + oUser + `]}` + "\n"
	fs, st = validateBytes(t, "r.jsonl", []byte(req), Options{})
	if st.Conversations != 2 || st.Messages != 4 || len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Path != "messages[2]" {
		t.Errorf("requests: %+v\n%s", st, dump(fs))
	}
}

// TestReusedIDAfterUnanswered: a call that reuses the id of an earlier call
// left unanswered is answered by the tool message right after it; only the
// earlier call is reported.
func TestReusedIDAfterUnanswered(t *testing.T) {
	call0 := oCall("call_0", "a", `"{}"`)
	in := lines(oUser, call0, oUser, call0, oTool("call_0"), oDone)
	fs, _ := validateBytes(t, "t.jsonl", []byte(in), Options{})
	got := codesAt(fs)
	want := []string{"3 error unanswered-call", "4 warning reused-call-id"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v:\n%s", got, want, dump(fs))
	}
	// A late answer to the earlier call, after the block it belonged to,
	// is still not reported twice.
	in = lines(oUser, call0, oUser, oTool("call_0"), oDone)
	fs, _ = validateBytes(t, "t.jsonl", []byte(in), Options{})
	if got, want := codesAt(fs), []string{"3 error unanswered-call"}; !slices.Equal(got, want) {
		t.Errorf("late answer: got %v, want %v:\n%s", got, want, dump(fs))
	}
}

// codesAt lists findings as "line severity code".
func codesAt(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%d %s %s", f.Line, f.Severity, f.Code))
	}
	return out
}

// TestReusedIDFarBack: the ids a conversation has used are kept exactly, not
// in a filter that forgets or confuses them: a tool_use id reused after many
// calls is still reported (rule 17), and none of the distinct ids before it
// is taken for a reuse.
func TestReusedIDFarBack(t *testing.T) {
	var b strings.Builder
	b.WriteString(aUser + "\n")
	const n = 50_000
	for i := range n {
		id := fmt.Sprintf("toolu_%024d", i)
		b.WriteString(aCall(id, "get_weather", "{}") + "\n" + aRes(id) + "\n")
	}
	first := fmt.Sprintf("toolu_%024d", 0)
	b.WriteString(aCall(first, "get_weather", "{}") + "\n" + aRes(first) + "\n")
	fs, st := validateBytes(t, "t.jsonl", []byte(b.String()), Options{})
	if got, want := codesAt(fs), []string{fmt.Sprintf("%d warning reused-call-id", 2*n+2)}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if st.ToolCalls != n+1 {
		t.Errorf("stats %+v", st)
	}
}

// TestDuplicateHeaderNamesFirst: each extra header names the line of the
// first one.
func TestDuplicateHeaderNamesFirst(t *testing.T) {
	in := lines(header, rec(1, oUser), header, rec(2, oDone), header, end)
	fs, _ := validateBytes(t, "t.jsonl", []byte(in), Options{})
	if got, want := codesAt(fs), []string{"3 error duplicate-header", "5 error duplicate-header"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, f := range fs {
		if !strings.Contains(f.Message, "line 1") {
			t.Errorf("does not name the first header's line: %v", f)
		}
	}
}

// TestThinkingAsTheAPIEnforces: a turn without a thinking block is an error
// only where the API answers it with a 400, a request enabling thinking of
// type "enabled". With adaptive thinking the model skips thinking on most
// tool-using turns and the API answers; a log does not say which was set.
func TestThinkingAsTheAPIEnforces(t *testing.T) {
	think := `{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"tool_use","id":"toolu_0","name":"get_weather","input":{}}]}`
	msgs := []string{aUser, think, aRes("toolu_0"), aCall1, aRes1}
	body := func(thinking string) string {
		return `{"model":"claude-opus-4-6","thinking":` + thinking + `,"messages":[` + strings.Join(msgs, ",") + `]}` + "\n"
	}
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"a log that does not say", lines(msgs...), nil},
		{"adaptive", body(`{"type":"adaptive"}`), nil},
		{"disabled", body(`{"type":"disabled"}`), nil},
		{"enabled", body(`{"type":"enabled","budget_tokens":2048}`), []string{"1 error thinking-not-first"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "t.jsonl", []byte(tc.in), Options{})
			if got := codesAt(fs); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v\n%s", got, tc.want, dump(fs))
			}
		})
	}
}

// TestEvidence: every error of an API rule says how the API's refusal is
// known, and one said to be recorded flags a refused body of the corpus.
func TestEvidence(t *testing.T) {
	recorded := map[string]bool{}
	for _, code := range grammarCodes {
		recorded[code] = true
	}
	for _, c := range Codes {
		// Gemini's rules are not numbered in transcript-rules.md: the
		// table in docs/validate.md quotes their texts.
		apiError := (c.Rules != "" || c.Note == "Gemini contents only") && (c.OpenAI == Error || c.Anthropic == Error)
		switch {
		case apiError && c.Evidence == "":
			t.Errorf("%s: an error of rules %s with no evidence", c.Code, c.Rules)
		case !apiError && c.Evidence != "" && c.Code != "invalid-message":
			t.Errorf("%s: evidence %q for what is not an API rule's error", c.Code, c.Evidence)
		case c.Evidence == EvidenceRecorded && !recorded[c.Code]:
			t.Errorf("%s: said to be recorded, but no refused corpus record is flagged with it", c.Code)
		}
	}
}

// TestHeaderVersion: a header of another format version than this agentloop
// reads, or of none, is refused at its line by validate and by the reader
// replay, resume and continue use, in the same words; one agentloop wrote
// (version 1) is read. They passed validate with "no problems" and were
// replayed and resumed as if version 1.
func TestHeaderVersion(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{`"version":1,`, ""},
		{`"version":2,`, "header record: format version 2; this agentloop reads version 1 (a newer agentloop wrote it?)"},
		{`"version":0,`, `header record: no "version" (want 1)`},
		{`"version":-1,`, "header record: format version -1; this agentloop reads version 1"},
		{``, `header record: no "version" (want 1)`},
		{`"version":null,`, `header record: no "version" (want 1)`},
	} {
		h := strings.Replace(header, `"version":1,`, tc.version, 1)
		in := lines(h, rec(1, oUser), rec(2, oDone), end)
		fs, _ := validateBytes(t, "t.jsonl", []byte(in), Options{})
		_, err := ReadConversations(strings.NewReader(in))
		if tc.want == "" {
			if len(fs) != 0 || err != nil {
				t.Errorf("%s: findings %v, read error %v", tc.version, fs, err)
			}
			continue
		}
		if got := codesAt(fs); !slices.Equal(got, []string{"1 error invalid-record"}) || !strings.HasPrefix(fs[0].Message, tc.want) {
			t.Errorf("%s: findings %v, want line 1 %q", tc.version, fs, tc.want)
		}
		if err == nil || !strings.HasPrefix(err.Error(), "line 1: "+tc.want) {
			t.Errorf("%s: read error %v, want line 1: %q", tc.version, err, tc.want)
		}
	}
}

// TestRoleNotAString: a role that is not a string is named for what it is,
// in each shape; it was reported as `unknown role ""`, as if it were empty.
func TestRoleNotAString(t *testing.T) {
	for _, tc := range []struct{ shape, role, want string }{
		{"openai", `5`, "role is a number; want a string: system, developer, user, assistant or tool"},
		{"openai", `["user"]`, "role is an array; want a string: system, developer, user, assistant or tool"},
		{"openai", `null`, "role is null; want a string: system, developer, user, assistant or tool"},
		{"openai", `"bot"`, `unknown role "bot" (want system, developer, user, assistant or tool)`},
		{"anthropic", `{"r":1}`, "role is an object; want a string: user or assistant"},
		{"anthropic", `true`, "role is a boolean; want a string: user or assistant"},
		{"anthropic", `"bot"`, `unknown role "bot" (want user or assistant)`},
	} {
		// In a request body: in a log of messages, a line of a role no API
		// has is passed over as bookkeeping.
		in := lines(`{"messages":[{"role":` + tc.role + `,"content":"hi"},` + oDone + `]}`)
		fs, _ := validateBytes(t, "t.jsonl", []byte(in), Options{Shape: tc.shape})
		var got []string
		for _, f := range fs {
			if f.Code == "invalid-message" && f.Index == 0 {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s role %s: %v, want %q", tc.shape, tc.role, fs, tc.want)
		}
	}
}

// TestNotTornWhenNotARecord: a last line without its newline is taken for a
// record the writer was stopped in only when it starts as one (a JSON
// object): a file of another kind (a ZIP, a PNG, text) is not called cut
// short, and validate and the reader agree on what they pass. validate
// passed a transcript ending in "garbage" with a truncated-line warning
// that replay then refused; replay called a ZIP file "incomplete last
// record (the writer stopped mid-line)".
func TestNotTornWhenNotARecord(t *testing.T) {
	good := lines(header, rec(1, oUser), rec(2, oDone), end)
	for _, tc := range []struct {
		name, in  string
		finding   string // the finding's "line severity code"
		readError string // "" when the file reads
	}{
		{"a record cut short", good + `{"type":"mess`, "5 warning truncated-line", ""},
		{"text after the records", good + "garbage", "5 error not-json", "line 5: not a JSON object"},
		{"a ZIP file", "PK\x03\x04zipdata", "", "line 1: not a JSON object"},
		{"a line of text", "hello", "1 error not-json", "line 1: not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "t.jsonl", []byte(tc.in), Options{})
			if tc.finding != "" {
				if got := codesAt(fs); !slices.Contains(got, tc.finding) || slices.ContainsFunc(got, func(s string) bool { return strings.HasSuffix(s, "truncated-line") && s != tc.finding }) {
					t.Errorf("findings %v, want %q", got, tc.finding)
				}
			}
			_, err := ReadConversations(strings.NewReader(tc.in))
			_, eachErr := ReadEach(strings.NewReader(tc.in), func(Part) error { return nil })
			// The record reader (a batch's OUTDIR, a listing) takes only
			// the record cut short for a torn line too.
			var recErr error
			for r := NewReader(strings.NewReader(tc.in)); ; {
				if _, e := r.Next(); e != nil {
					if e != io.EOF {
						recErr = e
					}
					break
				}
			}
			var le *LineError
			if torn := errors.As(recErr, &le) && le.Torn; torn != (tc.readError == "") {
				t.Errorf("record reader: %v, torn %v, want torn %v", recErr, torn, tc.readError == "")
			}
			for _, e := range []error{err, eachErr} {
				if tc.readError == "" && e != nil || tc.readError != "" && (e == nil || !strings.Contains(e.Error(), tc.readError) || strings.Contains(e.Error(), "incomplete")) {
					t.Errorf("read error %v, want %q and no word of an incomplete record", e, tc.readError)
				}
			}
		})
	}
}

// TestMissingReasoningFromUsage: in an agentloop Responses transcript, a
// step whose usage records reasoning tokens held a reasoning item: one left
// out is missing-reasoning at the first item that needs it, which the API
// refuses without it: a call at once (it is sent again with its output), a
// message when a later step shows a request that sent it again. Without
// reasoning tokens, or with the item there, nothing is said; nor in a Chat
// Completions transcript, which has no such items.
func TestMissingReasoningFromUsage(t *testing.T) {
	const rHeader = `{"type":"header","version":1,"id":"t","time":"2026-01-01T00:00:00Z","provider":"responses","model":"o4-mini"}`
	withUsage := func(r string, tokens int) string {
		return strings.TrimSuffix(r, "}") + fmt.Sprintf(`,"usage":{"input_tokens":75,"output_tokens":105,"reasoning_tokens":%d}}`, tokens)
	}
	user := recStep(1, 0, `{"role":"user","content":"hi"}`)
	rs := recStep(2, 1, `{"type":"reasoning","id":"rs_9e3779b97f4a7c15006b0fcae3000000002545f4914f6cdd1d","summary":[],"encrypted_content":"gAAAAAB"}`)
	fc := recStep(3, 1, `{"type":"function_call","id":"fc_9e3779b97f4a7c15006b0fcae3000000004a8be9229ed9ba3a","call_id":"call_1","name":"w","arguments":"{}"}`)
	out := recStep(4, 1, `{"type":"function_call_output","call_id":"call_1","output":"hi"}`)
	msg := recStep(5, 2, `{"type":"message","id":"msg_3c6ef372fe94f82a006b0fcae3000000004a8be9229ed9ba3a","role":"assistant","content":[{"type":"output_text","text":"done"}]}`)
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"whole", lines(rHeader, user, rs, withUsage(fc, 18), out, withUsage(msg, 0)), nil},
		{"reasoning item left out", lines(rHeader, user, withUsage(fc, 18), out, withUsage(msg, 0)), []string{"3 error missing-reasoning"}},
		{"no reasoning tokens", lines(rHeader, user, withUsage(fc, 0), out, withUsage(msg, 0)), nil},
		{"the last message of a step that reasoned", lines(rHeader, user, rs, withUsage(fc, 18), out, withUsage(msg, 9)), nil},
		{"a message sent again by a later step", lines(rHeader, user, rs, withUsage(fc, 18), out, withUsage(msg, 9),
			recStep(6, 2, `{"role":"user","content":"and Rome?"}`),
			withUsage(recStep(7, 3, `{"type":"message","id":"msg_4c6ef372fe94f82a006b0fcae3000000004a8be9229ed9ba3a","role":"assistant","content":[{"type":"output_text","text":"rain"}]}`), 0)),
			[]string{"6 error missing-reasoning"}},
		{"Chat Completions", lines(header, user, withUsage(recStep(2, 1, oDone), 30)), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, _ := validateBytes(t, "t.jsonl", []byte(tc.in), Options{})
			if got := codesAt(fs); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %v, want %v\n%s", got, tc.want, dump(fs))
			}
		})
	}
}
