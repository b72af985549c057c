package toolset

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/agent"
)

// CallOne runs the tool name as tools call does, outside any run. bytes
// is the size of what the tool wrote before it was capped (a script's),
// or of the content (a server's).
func (s *Set) CallOne(ctx context.Context, name, id string, args []byte) (res agent.ToolResult, bytes int64) {
	if s.Reg.Has(name) {
		r := s.Reg.Call(ctx, name, id, args)
		return Result(r), r.Bytes
	}
	res = s.Call(ctx, name, id, args)
	return res, int64(len(res.Content))
}

// CallJSON is a result as `tools call --json` prints it.
type CallJSON struct {
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
	Kind       string `json:"kind,omitempty"`
	ExitCode   int    `json:"exit_code"`
	DurationMS int64  `json:"duration_ms"`
	Truncated  bool   `json:"truncated"`
	Bytes      int64  `json:"bytes"`
	// Images are the pictures the result holds, base64 in Data.
	Images []ImageJSON `json:"images,omitempty"`
	Source string      `json:"source,omitempty"`
	Server string      `json:"server,omitempty"`
	// Sandbox is the sandbox the tool ran under and what of it was
	// enforced, as a transcript's result records it.
	Sandbox string `json:"sandbox,omitempty"`
}

// ImageJSON is an image of a result.
type ImageJSON struct {
	MIMEType string `json:"mime_type"`
	Data     []byte `json:"data"`
}

// NewCallJSON is res as --json prints it; bytes as CallOne gives it.
func NewCallJSON(res agent.ToolResult, bytes int64) CallJSON {
	out := CallJSON{
		Content: res.Content, IsError: res.IsError, Kind: res.Kind, ExitCode: res.ExitCode,
		DurationMS: res.Duration.Milliseconds(), Truncated: res.Truncated, Bytes: bytes,
		Source: res.Source, Server: res.Server, Sandbox: res.Sandbox,
	}
	for _, im := range res.Images {
		out.Images = append(out.Images, ImageJSON{MIMEType: im.MIMEType, Data: im.Data})
	}
	return out
}

// CallText is the text of res as tools call prints it: the content, then
// a line for each image (--json prints their data).
func CallText(res agent.ToolResult) string {
	text := res.Content
	for _, im := range res.Images {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += fmt.Sprintf("[image: %s, %d bytes; --json prints its data]\n", im.MIMEType, len(im.Data))
	}
	return text
}
