package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentloop/agentloop/internal/textout"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// maxImages bounds the images of one result that are passed on; the
// others are described.
const maxImages = 8

// toResult makes what a server answered into what the model reads: the
// text of its text content (structuredContent's JSON when there is none,
// unless it only repeats the content's images or other bytes),
// its images as images, and a short description of what a model cannot
// take in a tool result (audio, links, binary resources). The text is cut
// at maxOutput and made valid, as a script tool's output is.
func toResult(res *sdk.CallToolResult, maxOutput int64) agent.ToolResult {
	var text []string
	hasText := false
	var images []agent.Image
	var binary [][]byte // the bytes the content holds, to tell a mirror of it
	addImage := func(mime string, data []byte) {
		binary = append(binary, data)
		if len(images) >= maxImages {
			text = append(text, fmt.Sprintf("[image not shown (%s, %d bytes): a result passes on at most %d images]", mime, len(data), maxImages))
			return
		}
		images = append(images, agent.Image{MIMEType: mime, Data: data})
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
			hasText = true
		case *sdk.ImageContent:
			addImage(c.MIMEType, c.Data)
		case *sdk.AudioContent:
			binary = append(binary, c.Data)
			text = append(text, fmt.Sprintf("[audio not shown (%s, %d bytes): a model takes no audio in a tool result]", orUnknown(c.MIMEType), len(c.Data)))
		case *sdk.ResourceLink:
			text = append(text, describeLink(c))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Blob != nil {
				binary = append(binary, c.Resource.Blob)
			}
			text = append(text, describeResource(c.Resource, addImage)...)
		default:
			text = append(text, "[content of a kind agentloop does not read: not shown]")
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !mirrors(b, binary) {
			text = append([]string{string(b)}, text...)
		}
	}
	joined := strings.Join(text, "\n")
	out := agent.ToolResult{Images: images, Source: wire.SourceMCP}
	out.Content, out.Truncated = textout.CapString(joined, maxOutput)
	if res.IsError {
		out.IsError, out.Kind, out.ExitCode = true, wire.KindToolError, 0
		if strings.TrimSpace(out.Content) == "" {
			out.Content = "the tool reported an error without saying what it was"
		}
	}
	return out
}

// mirrors reports whether structured content repeats the content's bytes
// (base64 in its JSON), as servers that mirror their content there do: the
// content stands for it, and its base64 is not passed on as text.
func mirrors(structured []byte, binary [][]byte) bool {
	for _, b := range binary {
		if len(b) > 0 && bytes.Contains(structured, []byte(base64.StdEncoding.EncodeToString(b))) {
			return true
		}
	}
	return false
}

// describeLink is the text that stands for a link to a resource.
func describeLink(c *sdk.ResourceLink) string {
	var b strings.Builder
	b.WriteString("[resource link: ")
	name := c.Title
	if name == "" {
		name = c.Name
	}
	if name != "" {
		b.WriteString(name + " ")
	}
	b.WriteString("<" + c.URI + ">")
	var attrs []string
	if c.MIMEType != "" {
		attrs = append(attrs, c.MIMEType)
	}
	if c.Size != nil {
		attrs = append(attrs, fmt.Sprintf("%d bytes", *c.Size))
	}
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, ", ") + ")")
	}
	if c.Description != "" {
		b.WriteString(": " + c.Description)
	}
	b.WriteString("]")
	return b.String()
}

// describeResource is the text of an embedded resource: its text, or an
// image passed on, or a description of the bytes.
func describeResource(r *sdk.ResourceContents, addImage func(string, []byte)) []string {
	if r == nil {
		return nil
	}
	head := "[resource <" + r.URI + ">"
	if r.MIMEType != "" {
		head += " (" + r.MIMEType + ")"
	}
	switch {
	case r.Blob == nil:
		return []string{head + "]", r.Text}
	case strings.HasPrefix(r.MIMEType, "image/"):
		addImage(r.MIMEType, r.Blob)
		return []string{head + ": an image]"}
	}
	return []string{fmt.Sprintf("%s: %d bytes of binary data, not shown]", head, len(r.Blob))}
}

func orUnknown(s string) string {
	if s == "" {
		return "type unknown"
	}
	return s
}
