package openai

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentloop/agentloop/pkg/agent"
)

// The messages agentloop writes itself are composed without the SDK (the
// dialects are in pkg/agent, which links none): each is the SDK's own
// encoding of the same message, byte for byte, whatever the text: escapes,
// HTML characters, invalid UTF-8, line separators, control characters.

// seeds are texts that encode differently if any escape is done apart.
var seeds = []string{"", "sunny", "a <b> & c", "\u2028\u2029", "\x00\x01\x1f\x7f", "bad \xff\xfe utf8", `{"error":"x"}`, "\"quoted\"\\", "é 日本 🎉", strings.Repeat("line\n", 100)}

// png is the smallest image the dialects send.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func FuzzToolMessage(f *testing.F) {
	for _, c := range seeds {
		f.Add(c, "call_1", false, false)
	}
	f.Add("x", "id with \"quotes\" and <tags>", true, true)
	f.Add("", "call_2", false, true)
	f.Fuzz(func(t *testing.T, content, id string, isErr, image bool) {
		r := agent.CallResult{Call: agent.Call{ID: id, Name: "look"}, Result: agent.ToolResult{Content: content, IsError: isErr}}
		if image {
			r.Result.Images = []agent.Image{{MIMEType: "image/png", Data: png}}
		}
		chat, err := agent.OpenAIDialect{}.ResultMessages([]agent.CallResult{r})
		if err != nil {
			t.Fatal(err)
		}
		items, err := agent.ResponsesDialect{}.ResultMessages([]agent.CallResult{r})
		if err != nil {
			t.Fatal(err)
		}
		if !image {
			// As the SDK writes the same text: the result's, or {"error": …}.
			text := content
			if isErr {
				b, _ := json.Marshal(map[string]string{"error": content})
				text = string(b)
			}
			want, err := json.Marshal(openai.ToolMessage(text, id))
			if err != nil {
				t.Skip(err)
			}
			same(t, "chat", chat[0].Message, want)
			item := responses.ResponseInputItemParamOfFunctionCallOutput(text)
			item.OfFunctionCallOutput.CallID = openai.String(id)
			want, _ = json.Marshal(item)
			same(t, "responses", items[0].Message, want)
			return
		}
		if !utf8.ValidString(content) || !utf8.ValidString(id) {
			// Read back, an invalid byte is U+FFFD, which the SDK
			// would write as itself.
			return
		}
		// The text around the image is the dialect's own: the message read
		// back, and written again by the SDK.
		for _, m := range chat {
			same(t, "chat", m.Message, chatAsSDK(t, m.Message))
		}
		same(t, "responses", items[0].Message, callOutputAsSDK(t, items[0].Message))
	})
}

func FuzzUserMessage(f *testing.F) {
	for _, c := range seeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, err := json.Marshal(openai.UserMessage(text))
		if err != nil {
			t.Skip(err)
		}
		same(t, "chat", agent.OpenAIDialect{}.UserMessage(text), want)
		want, _ = json.Marshal(responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser))
		same(t, "responses", agent.ResponsesDialect{}.UserMessage(text), want)
	})
}

func same(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s: agentloop wrote\n%s\nthe SDK writes\n%s", what, got, want)
	}
}

// chatAsSDK is a Chat Completions message the dialect wrote (a tool
// message, or the user message of images after them) as the SDK writes it.
func chatAsSDK(t *testing.T, msg []byte) []byte {
	var m struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var err error
	if m.Role == "tool" {
		var content string
		if err := json.Unmarshal(m.Content, &content); err != nil {
			t.Fatal(err)
		}
		out, err = json.Marshal(openai.ToolMessage(content, m.ToolCallID))
	} else {
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			t.Fatal(err)
		}
		var sdk []openai.ChatCompletionContentPartUnionParam
		for _, p := range parts {
			if p.Type == "text" {
				sdk = append(sdk, openai.TextContentPart(p.Text))
			} else {
				sdk = append(sdk, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: p.ImageURL.URL}))
			}
		}
		out, err = json.Marshal(openai.UserMessage(sdk))
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// callOutputAsSDK is a function_call_output item the dialect wrote as the
// SDK writes it.
func callOutputAsSDK(t *testing.T, msg []byte) []byte {
	var it struct {
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(msg, &it); err != nil {
		t.Fatal(err)
	}
	var text string
	item := responses.ResponseInputItemParamOfFunctionCallOutput("")
	if json.Unmarshal(it.Output, &text) == nil {
		item = responses.ResponseInputItemParamOfFunctionCallOutput(text)
	} else {
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL string `json:"image_url"`
		}
		if err := json.Unmarshal(it.Output, &parts); err != nil {
			t.Fatal(err)
		}
		var list responses.ResponseFunctionCallOutputItemListParam
		for _, p := range parts {
			if p.Type == "input_text" {
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: p.Text}})
			} else {
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String(p.ImageURL)}})
			}
		}
		item.OfFunctionCallOutput.Output = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
	}
	item.OfFunctionCallOutput.CallID = openai.String(it.CallID)
	out, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
