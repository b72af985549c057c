package mcp

import (
	"encoding/base64"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentloop/agentloop/pkg/wire"
)

func TestToResult(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n....")
	nine := make([]sdk.Content, 0, 9)
	for range 9 {
		nine = append(nine, &sdk.ImageContent{MIMEType: "image/png", Data: png})
	}
	tests := []struct {
		name   string
		res    *sdk.CallToolResult
		text   string
		images int
		kind   string
	}{
		{"texts joined", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\nb", 0, ""},
		{"structured, no text", &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `{"n":1}`, 0, ""},
		{"structured beside text: the text", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "one"}}, StructuredContent: map[string]any{"n": 1}}, "one", 0, ""},
		{"structured beside an image", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: png}}, StructuredContent: []any{1}}, "[1]", 1, ""},
		{"structured mirroring audio: the description alone", &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF....")}},
			StructuredContent: map[string]any{"data": base64.StdEncoding.EncodeToString([]byte("RIFF...."))}}, "[audio not shown (audio/wav, 8 bytes): a model takes no audio in a tool result]", 0, ""},
		{"nine images: eight passed on", &sdk.CallToolResult{Content: nine}, "[image not shown (image/png, 12 bytes): a result passes on at most 8 images]", 8, ""},
		{"a binary resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.zip", MIMEType: "application/zip", Blob: []byte("PK..")}}}},
			"[resource <file:///a.zip> (application/zip): 4 bytes of binary data, not shown]", 0, ""},
		{"an image resource", &sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.png", MIMEType: "image/png", Blob: png}}}},
			"[resource <file:///a.png> (image/png): an image]", 1, ""},
		{"an error without text", &sdk.CallToolResult{IsError: true}, "the tool reported an error without saying what it was", 0, wire.KindToolError},
		{"NUL and bad UTF-8 made visible", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a\x00b\xff"}}}, "a\u2400b\uFFFD", 0, ""},
	}
	for _, tt := range tests {
		r := toResult(tt.res, DefaultMaxOutput)
		if r.Content != tt.text && !strings.HasSuffix(r.Content, tt.text) || len(r.Images) != tt.images || r.Kind != tt.kind || r.IsError != (tt.kind != "") {
			t.Errorf("%s: %+v", tt.name, r)
		}
	}
	// What server-filesystem's read_media_file answers: the image, and
	// structured content repeating it in base64. The model gets the image
	// and no text.
	mirror := &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: png}},
		StructuredContent: map[string]any{"content": []any{map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(png)}}}}
	if r := toResult(mirror, DefaultMaxOutput); r.Content != "" || len(r.Images) != 1 {
		t.Errorf("structured content mirroring an image: %q, %d images", r.Content, len(r.Images))
	}
	r := toResult(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("é", 20)}}}, 9)
	if !r.Truncated || r.Content != "éééé\n[output truncated: 8 of 40 bytes shown]" {
		t.Errorf("capped: %q", r.Content)
	}
}
