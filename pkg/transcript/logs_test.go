package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

const logsDir = "../../testdata/logs"

// logFiles are the real logs of other tools in testdata/logs (sources in
// testdata/README.md): the format each is told to be, and the errors it
// must get, by code; every other file has none.
var logFiles = []struct {
	file, format string
	errors       []string
}{
	{"claude-code_1af7fc5e.jsonl", InputClaudeCode, nil},
	{"claude-code_5c0375b4_sidechains.jsonl", InputClaudeCode, nil},
	{"claude-code_fe5e1c67_inline-sidechains.jsonl", InputClaudeCode, nil},
	{"claude-code_ai-sessions_pomodoro.jsonl", InputClaudeCode, nil},
	// Claude Code 2.1: the results of parallel calls are sibling branches
	// of the parentUuid tree; a compaction; sub-agents' own files.
	{"claude-code_spotter_short.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_tool_heavy.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_subagent.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_8463c716.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_8463c716_agent-a7be2f0.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_8463c716_agent-acompact-f46190.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_4d5611e5_agent-a2898e3.jsonl", InputClaudeCode, nil},
	{"claude-code_spotter_6c2214d7_agent-afc096d.jsonl", InputClaudeCode, nil},
	{"codex_sample_session.jsonl", InputCodex, nil},
	{"codex_rollout_tools.jsonl", InputCodex, nil},
	{"inspect_browser_EXCERPT.json", InputInspect, nil},
	// The ZIP archive Inspect writes by default.
	{"inspect_message_deduplication.eval", InputInspect, nil},
	// Written without its samples: nothing to check is a finding.
	{"inspect_no-samples.json", InputInspect, []string{"no-conversation"}},
	{"swe-agent_function_calling_simple.traj", InputSWEAgent, nil},
	{"llm-anthropic_test_tools.yaml", InputVCR, nil},
	{"go-vcr_fantasy_anthropic_multi_tool.yaml", InputVCR, nil},
	{"go-vcr_fantasy_openai_tool.yaml", InputVCR, nil},
	// Ruby's VCR: http_interactions, bodies as {encoding, string}.
	{"ruby-vcr_ruby_llm_anthropic_parallel_tool_calls.yml", InputVCR, nil},
	{"ruby-vcr_ruby_llm_openai_parallel_tool_calls.yml", InputVCR, nil},
	// A tool message of [text, image_url] parts, answered 200 by
	// OpenRouter and by Ollama: a warning, not an error.
	{"ruby-vcr_ruby_llm_openrouter_tool_image.yml", InputVCR, nil},
	{"ruby-vcr_ruby_llm_ollama_tool_image.yml", InputVCR, nil},
	// DeepSeek answered this body 400 "No tool output found for tool call
	// call-a.": the finding is confirmed.
	{"pydantic-ai_deepseek_interleaved_400.yaml", InputVCR, []string{"unanswered-call"}},
	{"recorded-bodies.har", InputHAR, []string{"unanswered-call"}},
	// Two interactions with Gemini's generateContent, then two with Chat
	// Completions: each checked in its own API's rules.
	{"pydantic-ai_gemini_and_openai-chat_tool_calls.yaml", InputVCR, nil},
	// Ollama's own /api/chat examples: arguments as objects, tool
	// messages that name their tool and carry no id.
	{"ollama_docs_tool_result.json", InputOllama, nil},
	{"ollama_docs_parallel_tool_results.json", InputOllama, nil},
	// LangChain's cassette (gzipped, requests and responses in two lists)
	// of an agent loop through Bedrock's Converse.
	{"langchain-aws_test_agent_loop.yaml.gz", InputVCR, nil},
	// Converse requests pydantic-ai recorded, answered 200: Kimi K2's
	// toolUseIds ("functions.get_temperature:0"), which Bedrock took
	// though its reference gives them the pattern [a-zA-Z0-9_-]+.
	{"pydantic-ai_bedrock_moonshotai_tool_call.yaml", InputVCR, nil},
	{"pydantic-ai_bedrock_model_structured_output.yaml", InputVCR, nil},
	// Three interactions with Gemini, then two with the Messages API
	// carrying Gemini's call ids over: one id is used by two calls of one
	// request, answered 200: a warning, not an error.
	{"pydantic-ai_gemini-then-anthropic_reused_tool_use_id.yaml", InputVCR, nil},
}

func readLog(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(logsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestLogFormats: each real log is told by its content, its conversations
// are found and checked, and it gets no error but those the API gave.
func TestLogFormats(t *testing.T) {
	for _, lf := range logFiles {
		t.Run(lf.file, func(t *testing.T) {
			data := readLog(t, lf.file)
			fs, st := validateBytes(t, lf.file, data, Options{})
			if st.Format != lf.format {
				t.Errorf("read as %q, want %q", st.Format, lf.format)
			}
			if (st.Conversations == 0 || st.Messages == 0) != slices.Contains(lf.errors, "no-conversation") {
				t.Errorf("checked: %+v", st)
			}
			var errs []string
			for _, f := range fs {
				if f.Severity == Error {
					errs = append(errs, f.Code)
					if f.Status != 0 && !f.Confirmed() && f.Code != "unchecked-conversation" {
						t.Errorf("an error on a body the API accepted: %v", f)
					}
				}
			}
			if strings.Join(errs, ",") != strings.Join(lf.errors, ",") {
				t.Errorf("errors %v, want %v:\n%s", errs, lf.errors, dump(fs))
			}
			// A JSON document written on one line, without indentation
			// or a last newline, reads the same.
			if strings.HasSuffix(lf.file, ".json") || strings.HasSuffix(lf.file, ".traj") || strings.HasSuffix(lf.file, ".har") {
				var flat bytes.Buffer
				if err := json.Compact(&flat, data); err != nil {
					t.Fatal(err)
				}
				fs2, st2 := validateBytes(t, lf.file, flat.Bytes(), Options{})
				if st2 != st || len(fs2) != len(fs) {
					t.Errorf("on one line: %+v, %d findings; indented: %+v, %d findings", st2, len(fs2), st, len(fs))
				}
			}
			// Forced, the format reads the same.
			fs2, st2 := validateBytes(t, lf.file, data, Options{Input: lf.format})
			if st2 != st || len(fs2) != len(fs) {
				t.Errorf("--input %s: %+v, %d findings; detected: %+v, %d findings", lf.format, st2, len(fs2), st, len(fs))
			}
		})
	}
}

// dropFirst removes the first match of re from data.
func dropFirst(t *testing.T, data []byte, re string) []byte {
	t.Helper()
	loc := regexp.MustCompile(re).FindIndex(data)
	if loc == nil {
		t.Fatalf("no match for %s", re)
	}
	return append(append([]byte(nil), data[:loc[0]]...), data[loc[1]:]...)
}

// TestLogMutations: a tool result taken out of each real log is found.
func TestLogMutations(t *testing.T) {
	for _, tc := range []struct {
		file string
		cut  string // what to take out
		want string // a finding that must come
	}{
		// A whole user line holding a tool_result, in the main chain and
		// in a sub-agent's.
		{"claude-code_1af7fc5e.jsonl", `(?m)^.*"type":"tool_result".*\n`, "error unanswered-call"},
		{"claude-code_5c0375b4_sidechains.jsonl", `(?m)^.*"isSidechain":true.*"type":"tool_result".*\n`, "error unanswered-call"},
		// Only the block, the line kept.
		{"claude-code_1af7fc5e.jsonl", `\{"tool_use_id":"[^"]*","type":"tool_result","content":"[^"]*"\}`, "error unanswered-call"},
		// Codex sends "aborted" for a missing output: a warning.
		{"codex_rollout_tools.jsonl", `(?m)^.*"function_call_output".*\n`, "warning unanswered-call"},
		{"inspect_browser_EXCERPT.json", `(?s)\{\s*"id": "g52DKtzDTftpz6MAcFkZdX".*?"function": "web_browser_go"\s*\},`, "error unanswered-call"},
		{"swe-agent_function_calling_simple.traj", `(?s),\s*\{\s*"role": "tool",[^{]*?"tool_call_ids": \[\s*"call_upNLxh7rBcDH9w5XiNdoAS0I"\s*\]\s*\}`, "error unanswered-call"},
		{"llm-anthropic_test_tools.yaml", `,\{"type":"tool_result","tool_use_id":"toolu_01N8a4jWyf116qKTMqKKmjyt","content":"Sammy"\}`, "error unanswered-call"},
		{"go-vcr_fantasy_anthropic_multi_tool.yaml", `,\{"tool_use_id":"toolu_01AC6WQhj2iRkdYHgTAGMpVQ","content":\[\{"text":"6","type":"text"\}\],"type":"tool_result"\}`, "error unanswered-call"},
		{"recorded-bodies.har", `,\{\\"tool_use_id\\":\\"toolu_01AC6WQhj2iRkdYHgTAGMpVQ\\",\\"content\\":\[\{\\"text\\":\\"6\\",\\"type\\":\\"text\\"\}\],\\"type\\":\\"tool_result\\"\}`, "error unanswered-call"},
		// Both APIs' interactions of a cassette that holds the two are
		// checked: Gemini's functionResponse, and a Chat Completions tool
		// message.
		{"pydantic-ai_gemini_and_openai-chat_tool_calls.yaml", `(?m)^      - parts:\n        - functionResponse:\n            name: get_capital\n            response:\n              return_value: Paris\n        role: user\n`, "error pending-call"},
		{"pydantic-ai_gemini_and_openai-chat_tool_calls.yaml", `(?m)^      - content: London\n        role: tool\n        tool_call_id: call_SkEQ3ZGSJC8m6AvaIGNuuKdm\n`, "error pending-call"},
		// Bedrock's "Expected toolResult blocks at messages.2.content".
		{"pydantic-ai_bedrock_moonshotai_tool_call.yaml", `\{"toolResult": \{"toolUseId": "functions.get_temperature:0", "content": \[\{"text": "30\\u00b0C"\}\], "status": "success"\}\}`, "error unanswered-call"},
		// Ollama pairs by tool_name and order: the second of four results
		// taken out leaves the last call unanswered.
		{"ollama_docs_parallel_tool_results.json", `\{"role": "tool", "tool_name": "get_conditions", "content": "Partly cloudy"\},\s*`, "error pending-call"},
		{"ollama_docs_tool_result.json", `,\s*\{"role": "tool", "tool_name": "get_temperature", "content": "22°C"\}`, "error pending-call"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data := dropFirst(t, readLog(t, tc.file), tc.cut)
			fs, _ := validateBytes(t, tc.file, data, Options{})
			found := false
			for _, f := range fs {
				if f.Severity.String()+" "+f.Code == tc.want {
					found = true
				}
			}
			if !found {
				t.Errorf("want a %s, got:\n%s", tc.want, dump(fs))
			}
		})
	}
}

// TestAnthropicTypedMessage: a message stored as the Messages API returns
// it, with "type": "message", is an Anthropic message, not a Responses
// item. The assistant message is a real response (charmbracelet/fantasy's
// cassette); the user's next message does not answer its calls.
func TestAnthropicTypedMessage(t *testing.T) {
	in := lines(`{"role":"user","content":"list files"}`,
		`{"id":"msg_01","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}}]}`,
		`{"role":"user","content":[{"type":"text","text":"never mind"}]}`)
	fs, st := validateBytes(t, "t.jsonl", []byte(in), Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || st.ToolCalls != 1 || st.Format != "anthropic-messages" {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
	// The response of a recorded interaction, as the API sent it.
	var cas struct {
		Interactions []struct {
			Response struct{ Body string }
		}
	}
	if err := yaml.Unmarshal(readLog(t, "go-vcr_fantasy_anthropic_multi_tool.yaml"), &cas); err != nil {
		t.Fatal(err)
	}
	resp := cas.Interactions[0].Response.Body
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(resp)); err != nil {
		t.Fatal(err)
	}
	in = lines(`{"role":"user","content":"Add and multiply the number 2 and 3"}`, compact.String(), `{"role":"user","content":"thanks"}`)
	fs, st = validateBytes(t, "t.jsonl", []byte(in), Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || st.ToolCalls != 2 {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
}

// TestSniffOneFormat: every real log is claimed by its own format alone, no
// other as sure of it, so that no format reads another's files.
func TestSniffOneFormat(t *testing.T) {
	for _, lf := range logFiles {
		data := readLog(t, lf.file)
		if strings.HasSuffix(lf.file, ".gz") {
			// What the formats sniff is the text the file holds.
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		h := check.NewHead(data[:min(len(data), 1<<20)], len(data) <= 1<<20)
		best, sure := registry.Sniff(h)
		if best == nil || best.Info().Name != lf.format {
			t.Errorf("%s: sniffed as %v, want %s", lf.file, best, lf.format)
			continue
		}
		for _, f := range registry {
			if f != best && f.Sniff(h) >= sure {
				t.Errorf("%s: %s is as sure of it (%v) as %s", lf.file, f.Info().Name, sure, lf.format)
			}
		}
	}
}

// TestGeminiHistoryNotATrajectory: a Gemini CLI checkpoint ({"history":
// [{"role", "parts"}]}) was read as a SWE-agent trajectory, its messages
// passed as checked by SWE-agent's name. It is Gemini's contents, checked
// with Gemini's rules: a response taken out is caught.
func TestGeminiHistoryNotATrajectory(t *testing.T) {
	checkpoint := `{
  "history": [
    {"role": "user", "parts": [{"text": "List the files."}]},
    {"role": "model", "parts": [{"functionCall": {"name": "list_directory", "args": {"path": "."}}}]},
    {"role": "user", "parts": [{"functionResponse": {"name": "list_directory", "response": {"output": "a.go"}}}]},
    {"role": "model", "parts": [{"text": "a.go"}]},
    {"role": "user", "parts": [{"text": "Thanks."}]}
  ]
}
`
	fs, st := validateBytes(t, "checkpoint.json", []byte(checkpoint), Options{})
	if st.Format != InputGemini || len(fs) != 0 || st.ToolCalls != 1 || st.Unchecked != 0 {
		t.Fatalf("%+v\n%s", st, dump(fs))
	}
	dropped := strings.Replace(checkpoint, `    {"role": "user", "parts": [{"functionResponse": {"name": "list_directory", "response": {"output": "a.go"}}}]},
`, "", 1)
	fs, st = validateBytes(t, "checkpoint.json", []byte(dropped), Options{})
	if len(fs) != 1 || fs[0].Code != "unanswered-call" || fs[0].Line != 6 || fs[0].Path != "history[3]" {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
}

// TestMixedCassette: a cassette of interactions with two APIs is checked
// in both (it passed, exit 0, the Gemini interactions never looked at):
// Gemini's generateContent bodies with Gemini's rules, the Chat
// Completions ones with theirs.
func TestMixedCassette(t *testing.T) {
	const file = "pydantic-ai_gemini_and_openai-chat_tool_calls.yaml"
	data := readLog(t, file)
	fs, st := validateBytes(t, file, data, Options{})
	if st.Conversations != 4 || st.Unchecked != 0 || st.Errors != 0 || st.ToolCalls != 4 || len(fs) != 0 {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
}

// TestGeminiInHAR: a HAR entry posting to Gemini's generateContent (on
// Vertex AI too) is checked as a Gemini body; the key its URL carries is
// named nowhere.
func TestGeminiInHAR(t *testing.T) {
	body := `{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather?\"}]},{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{}}}]},RESPONSE{\"role\":\"model\",\"parts\":[{\"text\":\"Sunny.\"}]}]}`
	resp := `{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"sky\":\"sunny\"}}}]},`
	for _, url := range []string{
		"https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent?key=AIzaSyD-secret",
		"https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
	} {
		har := `{"log":{"entries":[{"request":{"method":"POST","url":"` + url + `","postData":{"text":"` + strings.Replace(body, "RESPONSE", resp, 1) + `"}},"response":{"status":200}}]}}`
		fs, st := validateBytes(t, "t.har", []byte(har), Options{})
		if len(fs) != 0 || st.ToolCalls != 1 || st.Unchecked != 0 || st.Conversations != 1 {
			t.Fatalf("%s: %+v\n%s", url, st, dump(fs))
		}
		har = strings.Replace(har, resp, "", 1)
		fs, _ = validateBytes(t, "t.har", []byte(har), Options{})
		if len(fs) != 1 || fs[0].Code != "pending-call" || fs[0].Path != "entries[0] contents[2]" || strings.Contains(fs[0].String(), "AIza") {
			t.Errorf("%s: %s", url, dump(fs))
		}
	}
}

// TestCassetteInteractionsApart: each interaction of a cassette is a
// conversation of its own, though each request repeats the calls of the
// one before: a call id is compared with the ids of its own request only,
// and a result taken out of one request is reported there, named by its
// interaction, the next request (which still holds it) passing.
func TestCassetteInteractionsApart(t *testing.T) {
	const file = "pydantic-ai_gemini-then-anthropic_reused_tool_use_id.yaml"
	data := readLog(t, file)
	fs, st := validateBytes(t, file, data, Options{})
	if st.Conversations != 5 || st.Unchecked != 0 || st.Errors != 0 || st.ToolCalls != 10 {
		t.Errorf("%+v\n%s", st, dump(fs))
	}
	var reused []string
	for _, f := range fs {
		if f.Code == "reused-call-id" {
			reused = append(reused, f.Severity.String()+" "+f.Path+": "+f.Message)
		}
	}
	// The id 0usajhl5 names two calls in each of the two requests to
	// the Messages API, which answered both 200.
	want := []string{
		"warning interactions[3] messages[3]: call id 0usajhl5 was already used at messages[1]; results keyed by id become ambiguous",
		"warning interactions[4] messages[3]: call id 0usajhl5 was already used at messages[1]; results keyed by id become ambiguous",
	}
	if !slices.Equal(reused, want) {
		t.Errorf("reused ids:\n%s\nwant:\n%s", strings.Join(reused, "\n"), strings.Join(want, "\n"))
	}

	// The result of call 8ci92gmp taken out of interaction 3 (its first
	// appearance); interaction 4 still holds it.
	cut := dropFirst(t, data, `(?m)^      - content:\n        - content:\n          - text: 'order-123: refund allowed for 30 days'\n            type: text\n          is_error: false\n          tool_use_id: 8ci92gmp\n          type: tool_result\n        role: user\n`)
	fs, _ = validateBytes(t, file, cut, Options{})
	var got []string
	for _, f := range fs {
		if f.Severity == Error {
			got = append(got, f.Code+" "+f.Path+" "+strings.Join(f.IDs, ","))
		}
	}
	if want := []string{"unanswered-call interactions[3] messages[7] 8ci92gmp"}; !slices.Equal(got, want) {
		t.Errorf("a result taken out of interaction 3: %v, want %v\n%s", got, want, dump(fs))
	}
}

// TestUncheckedEndpointHidesCredentials: the URL of a request to an
// endpoint validate does not read is named without what may hold a key
// (Gemini's API takes it in the query) or a password.
func TestUncheckedEndpointHidesCredentials(t *testing.T) {
	har := `{"log":{"entries":[{"request":{"method":"POST","url":"https://user:hunter2@chat.example.com/v2/chat?key=AIzaSyD-secret","postData":{"text":"{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"}},"response":{"status":200}}]}}`
	fs, st := validateBytes(t, "t.har", []byte(har), Options{})
	if len(fs) != 1 || fs[0].Code != "unchecked-conversation" || st.Unchecked != 1 {
		t.Fatalf("%+v\n%s", st, dump(fs))
	}
	if m := fs[0].Message; strings.Contains(m, "AIza") || strings.Contains(m, "hunter2") || !strings.Contains(m, "https://chat.example.com/v2/chat,") {
		t.Errorf("%s", m)
	}
}
