package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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
}

// TestEvalZipFromFile: a .eval log is read from its file (a ZIP archive is
// read from its end), each sample member named in findings.
func TestEvalZipFromFile(t *testing.T) {
	f, err := os.Open(filepath.Join(logsDir, "inspect_message_deduplication.eval"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var fs []Finding
	st, err := Validate("log.eval", f, Options{}, func(x Finding) { fs = append(fs, x) })
	if err != nil || st.Format != InputInspect || st.ToolCalls != 5 || st.Conversations != 1 {
		t.Fatalf("%v %+v", err, st)
	}
	for _, x := range fs {
		if x.File != "log.eval/samples/0_epoch_1.json" || x.Severity == Error {
			t.Errorf("%v", x)
		}
	}
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
					if f.Status != 0 && !f.Confirmed() {
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

// TestClaudeCodeTree: a rewound session is two branches, each checked; a
// compaction starts a new conversation; lines that send nothing may sit
// between a call and its result; the lines of one message id are one
// message even with its results between them.
func TestClaudeCodeTree(t *testing.T) {
	u := func(uuid, parent, content string) string {
		p := `null`
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":` + p + `,"message":{"role":"user","content":` + content + `}}`
	}
	a := func(uuid, parent, id, content string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"id":"` + id + `","type":"message","role":"assistant","content":` + content + `,"stop_reason":null}}`
	}
	use := func(id string) string { return `[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{}}]` }
	res := func(id string) string { return `[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok"}]` }
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string
	}{
		{"one message over lines, results between", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", `[{"type":"text","text":"Two calls."}]`),
			a("a2", "a1", "msg_1", use("t1")),
			u("r1", "a2", res("t1")),
			a("a3", "r1", "msg_1", use("t2")),
			u("r2", "a3", res("t2")),
			a("a4", "r2", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a result missing in the split message", []string{
			u("u1", "", `"go"`),
			a("a2", "u1", "msg_1", use("t1")),
			u("r1", "a2", res("t1")),
			a("a3", "r1", "msg_1", use("t2")),
			a("a4", "a3", "msg_2", `[{"type":"text","text":"done"}]`),
		}, []string{"3 error unanswered-call"}},
		{"progress lines between a call and its result", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			`{"type":"progress","uuid":"p1","parentUuid":"a1","data":{}}`,
			`{"type":"progress","uuid":"p2","parentUuid":"p1","data":{}}`,
			u("r1", "p2", res("t1")),
			a("a2", "r1", "msg_2", `[{"type":"text","text":"done"}]`),
		}, nil},
		{"a rewind: the old branch is checked to its end", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			u("r1", "a1", res("t1")),
			a("a2", "r1", "msg_2", `[{"type":"text","text":"first answer"}]`),
			u("u2", "a2", `"now this"`),
			a("a3", "u2", "msg_3", use("t2")),
			u("u2b", "a2", `"no, that"`), // rewound: a branch from a2
			a("a4", "u2b", "msg_4", `[{"type":"text","text":"ok"}]`),
		}, []string{"6 error pending-call"}},
		{"a compaction starts over", []string{
			u("u1", "", `"go"`),
			a("a1", "u1", "msg_1", use("t1")),
			u("r1", "a1", res("t1")),
			`{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":null,"logicalParentUuid":"r1"}`,
			u("s1", "c1", `"Summary of the conversation so far"`),
			a("a2", "s1", "msg_2", `[{"type":"text","text":"continuing"}]`),
		}, nil},
		{"API errors shown as assistant lines are not sent", []string{
			u("u1", "", `"go"`),
			`{"type":"assistant","uuid":"e1","parentUuid":"u1","isApiErrorMessage":true,"message":{"id":"x","role":"assistant","content":[{"type":"text","text":"API Error: 529"}]}}`,
			a("a1", "e1", "msg_1", `[{"type":"text","text":"hello"}]`),
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, st := validateBytes(t, "s.jsonl", []byte(lines(tc.lines...)), Options{})
			if got := codesAt(fs); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %v, want %v\n%s", got, tc.want, dump(fs))
			}
			if st.Format != InputClaudeCode {
				t.Errorf("format %q", st.Format)
			}
		})
	}
}
