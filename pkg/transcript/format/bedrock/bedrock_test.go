package bedrock

import (
	"slices"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

// TestSniff: a Converse request is known by a key only Converse takes, or
// by its toolUse and toolResult blocks; other bodies are not.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"toolConfig", "{\n  \"messages\": [],\n  \"toolConfig\": {\"tools\": []}\n}\n", check.Certain},
		{"boto3 keyword arguments", `{"modelId":"amazon.nova-micro-v1:0","messages":[{"role":"user","content":[{"text":"hi"}]}]}` + "\n", check.Certain},
		{"a toolUse block", `{"messages":[{"role":"assistant","content":[{"toolUse":{"toolUseId":"t","name":"f","input":{}}}]}]}` + "\n", check.Certain},
		{"an OpenAI body", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}` + "\n", check.No},
		{"an Anthropic body", "{\n  \"model\": \"claude\",\n  \"system\": \"be brief\",\n  \"messages\": []\n}\n", check.No},
		{"messages not an array", `{"messages":{},"toolConfig":{}}` + "\n", check.No},
		{"a message line", `{"role":"user","content":[{"text":"hi"}]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A Converse request, pretty-printed as a log would keep it: a call,
// and its result taken out of the user message that follows.
const cut = `{
  "messages": [
    {"role": "user", "content": [{"text": "What is the weather in Paris?"}]},
    {"role": "assistant", "content": [
      {"text": "Checking."},
      {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}
    ]},
    {"role": "user", "content": [{"text": "Well?"}]}
  ],
  "toolConfig": {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]}
}
`

// TestDocument: a whole-file body is streamed a message at a time; the
// finding is at the line of the message that lacks the result, in
// Bedrock's words.
func TestDocument(t *testing.T) {
	fs, st := checktest.Validate(t, check.Registry{Format}, "converse.json", []byte(cut), check.Options{})
	if st.Format != Name || st.ToolCalls != 1 || len(fs) != 1 {
		t.Fatalf("%+v\n%s", st, checktest.Dump(fs))
	}
	f := fs[0]
	if f.Code != "unanswered-call" || f.Line != 8 || f.Path != "messages[2]" || f.Severity != check.Error ||
		f.Message != "tooluse_1 (get_weather, messages[1]) has no toolResult in the user message that follows (messages[2])" {
		t.Errorf("%+v", f)
	}
}

// TestLines: bodies one a line are each a conversation, checked in the
// Bedrock shape even when their blocks say nothing of it.
func TestLines(t *testing.T) {
	in := checktest.Lines(
		`{"modelId":"m","messages":[{"role":"user","content":[{"text":"hi"}]},{"role":"user","content":[{"text":"again"}]}]}`,
		`{"modelId":"m","messages":[{"role":"assistant","content":[{"text":"hello"}]}]}`,
	)
	fs, st := checktest.Validate(t, check.Registry{Format}, "log.jsonl", []byte(in), check.Options{})
	want := []string{"1 error role-order", "2 error first-not-user"}
	if st.Conversations != 2 || !slices.Equal(checktest.Codes(fs), want) {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

// TestServerTool: a tool Bedrock runs itself (Nova's code interpreter) has
// its toolUse and its toolResult in the assistant message: not a call the
// client answers, nor a result misplaced (the shape of a body pydantic-ai
// recorded, answered 200).
func TestServerTool(t *testing.T) {
	in := `{"modelId":"m","messages":[{"role":"user","content":[{"text":"What is 1234 * 5678?"}]},` +
		`{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_a","name":"nova_code_interpreter","input":{"snippet":"1234 * 5678"},"type":"server_tool_use"}},` +
		`{"toolResult":{"toolUseId":"tooluse_a","content":[{"json":{"stdOut":"7006652"}}],"type":"nova_code_interpreter_result","status":"success"}},{"text":"7006652"}]},` +
		`{"role":"user","content":[{"text":"thanks"}]}],"toolConfig":{"tools":[{"systemTool":{"name":"nova_code_interpreter"}}]}}` + "\n"
	fs, _ := checktest.Validate(t, check.Registry{Format}, "t.json", []byte(in), check.Options{})
	if len(fs) != 0 {
		t.Errorf("%s", checktest.Dump(fs))
	}
}

// TestForcedShape: a body read as Converse whose blocks are typed as the
// Messages API types them is said to mix the shapes, and still checked.
func TestForcedShape(t *testing.T) {
	in := `{"toolConfig":{"tools":[{"toolSpec":{"name":"f"}}]},"messages":[{"role":"user","content":[{"text":"hi"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},{"role":"user","content":[{"text":"no"}]}]}` + "\n"
	fs, st := checktest.Validate(t, check.Registry{Format}, "t.json", []byte(in), check.Options{Input: Name})
	want := []string{"1 warning mixed-shapes", "1 error unanswered-call"}
	if st.Format != Name || !slices.Equal(checktest.Codes(fs), want) {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

// TestUnknownMember: a block of no member Converse takes is reported once,
// in Converse's terms, and the rest of the message is still checked.
func TestUnknownMember(t *testing.T) {
	in := `{"modelId":"m","toolConfig":{"tools":[{"toolSpec":{"name":"f"}}]},"messages":[{"role":"user","content":[{"text":"hi"}]},` +
		`{"role":"assistant","content":[{"functionCall":{"name":"f","args":{}}},{"toolUse":{"toolUseId":"t1","name":"f","input":{}}}]},` +
		`{"role":"user","content":[{"toolResult":{"toolUseId":"t1","content":[{"text":"ok"}]}}]}]}` + "\n"
	fs, st := checktest.Validate(t, check.Registry{Format}, "t.json", []byte(in), check.Options{})
	if got := checktest.Codes(fs); !slices.Equal(got, []string{"1 warning mixed-shapes", "1 error invalid-block"}) || st.ToolCalls != 1 ||
		fs[1].Message != "content[0] has no member Converse takes (text, toolUse, toolResult, image, document, reasoningContent…)" {
		t.Errorf("%+v\n%s", st, checktest.Dump(fs))
	}
}

// TestEchoedToolUse: a toolUse sent back as Converse's response wrote it,
// with "type": "tool_use", is a client tool's call all the same: its
// result is wanted.
func TestEchoedToolUse(t *testing.T) {
	in := `{"modelId":"m","toolConfig":{"tools":[{"toolSpec":{"name":"get_weather"}}]},"messages":[{"role":"user","content":[{"text":"weather?"}]},` +
		`{"role":"assistant","content":[{"toolUse":{"input":{"location":"SF"},"name":"get_weather","toolUseId":"tooluse_1","type":"tool_use"}}]},` +
		`{"role":"user","content":[{"text":"and?"}]}]}` + "\n"
	fs, _ := checktest.Validate(t, check.Registry{Format}, "t.json", []byte(in), check.Options{})
	if got := checktest.Codes(fs); !slices.Equal(got, []string{"1 error unanswered-call"}) {
		t.Errorf("%s", checktest.Dump(fs))
	}
}
