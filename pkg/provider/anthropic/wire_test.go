package anthropic_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/agentloop/agentloop/pkg/agent"
)

// The messages agentloop writes itself are composed without the SDK (the
// dialect is in pkg/agent, which links none): each is the SDK's own
// encoding of the same message, byte for byte, whatever the text: escapes,
// HTML characters, invalid UTF-8, line separators, control characters.

var seeds = []string{"", " ", "sunny", "a <b> & c", "\u2028\u2029", "\x00\x01\x1f\x7f", "bad \xff\xfe utf8", `{"error":"x"}`, "\"quoted\"\\", "é 日本 🎉", strings.Repeat("line\n", 100)}

// png is the smallest image the dialect sends.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func FuzzUserMessage(f *testing.F) {
	for _, c := range seeds {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want, err := json.Marshal(anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
		if err != nil {
			t.Skip(err)
		}
		same(t, agent.AnthropicDialect{}.UserMessage(text), want)
	})
}

func FuzzToolResults(f *testing.F) {
	for _, c := range seeds {
		f.Add(c, "toolu_1", false, false, "")
	}
	f.Add("x", "id with \"quotes\" and <tags>", true, true, "second")
	f.Add("", "toolu_2", true, false, "")
	f.Add("", "toolu_3", false, true, " ")
	f.Fuzz(func(t *testing.T, content, id string, isErr, image bool, second string) {
		results := []agent.CallResult{{Call: agent.Call{ID: id, Name: "look"}, Result: agent.ToolResult{Content: content, IsError: isErr}}}
		if image {
			results[0].Result.Images = []agent.Image{{MIMEType: "image/png", Data: png}}
		}
		if second != "" {
			results = append(results, agent.CallResult{Call: agent.Call{ID: id + "b", Name: "look"}, Result: agent.ToolResult{Content: second}})
		}
		msgs, err := agent.AnthropicDialect{}.ResultMessages(results)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(content + id + second) {
			// The text written is the dialect's own (an error's, an
			// image's line), so the SDK is given it read back, where an
			// invalid byte is U+FFFD, which the SDK writes as itself.
			return
		}
		same(t, msgs[0].Message, resultsAsSDK(t, msgs[0].Message))
	})
}

func same(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("agentloop wrote\n%s\nthe SDK writes\n%s", got, want)
	}
}

// resultsAsSDK is the user message of tool_result blocks the dialect wrote
// as the SDK writes it.
func resultsAsSDK(t *testing.T, msg []byte) []byte {
	var m struct {
		Content []struct {
			ToolUseID string `json:"tool_use_id"`
			IsError   *bool  `json:"is_error"`
			Content   []struct {
				Type   string `json:"type"`
				Text   string `json:"text"`
				Source struct {
					Data      string `json:"data"`
					MediaType string `json:"media_type"`
				} `json:"source"`
			} `json:"content"`
		} `json:"content"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	var blocks []anthropic.ContentBlockParamUnion
	for _, r := range m.Content {
		b := anthropic.ToolResultBlockParam{ToolUseID: r.ToolUseID}
		if r.IsError != nil {
			b.IsError = anthropic.Bool(*r.IsError)
		}
		for _, c := range r.Content {
			switch c.Type {
			case "text":
				b.Content = append(b.Content, anthropic.ToolResultBlockParamContentUnion{OfText: &anthropic.TextBlockParam{Text: c.Text}})
			case "image":
				if _, err := base64.StdEncoding.DecodeString(c.Source.Data); err != nil {
					t.Fatalf("image data: %v", err)
				}
				b.Content = append(b.Content, anthropic.ToolResultBlockParamContentUnion{OfImage: &anthropic.ImageBlockParam{
					Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
						Data: c.Source.Data, MediaType: anthropic.Base64ImageSourceMediaType(c.Source.MediaType),
					}},
				}})
			default:
				t.Fatalf("a block of type %q in a tool_result", c.Type)
			}
		}
		blocks = append(blocks, anthropic.ContentBlockParamUnion{OfToolResult: &b})
	}
	out, err := json.Marshal(anthropic.NewUserMessage(blocks...))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
