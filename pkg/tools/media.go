package tools

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/textout"
	"github.com/agentloop/agentloop/pkg/wire"
)

// imageTypes are the image types the model APIs take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// block is one element of a content array, in MCP's form.
type block struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     string `json:"data"`
	MIMEType string `json:"mimeType"`
}

// readMedia makes the stdout of a tool whose output is an image or a
// content array into its result. Neither can be cut at max_output and
// still be what it is, so more output than that is a failure, as is output
// that is not what the tool's output: says.
func readMedia(def *Definition, out *capture, res *Result) {
	bad := func(format string, args ...any) {
		res.IsError, res.Kind, res.Content = true, wire.KindBadOutput, fmt.Sprintf(format, args...)
	}
	if out.total > int64(len(out.buf)) {
		bad("the tool wrote %d bytes, more than its max_output of %s; an image or a content array cannot be cut", out.total, bytesize.Format(def.MaxOutput))
		return
	}
	if def.Output == OutputImage {
		t := http.DetectContentType(out.buf)
		if !slices.Contains(imageTypes, t) {
			bad("output: image, but the %d bytes the tool wrote are not a PNG, JPEG, GIF or WebP image (they look like %s)", len(out.buf), t)
			return
		}
		res.Content, res.Images = "", []Image{{MIMEType: t, Data: out.buf}}
		return
	}
	var blocks []block
	if err := json.Unmarshal(out.buf, &blocks); err != nil {
		bad(`output: content, but what the tool wrote is not a JSON array of blocks such as [{"type": "text", "text": "…"}, {"type": "image", "data": "<base64>", "mimeType": "image/png"}]: %v`, err)
		return
	}
	var text []string
	var images []Image
	for i, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, textout.Clean([]byte(b.Text)))
		case "image":
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				bad("content[%d]: the image's data is not base64: %v", i, err)
				return
			}
			images = append(images, Image{MIMEType: b.MIMEType, Data: data})
		default:
			bad("content[%d] is a %q block; a content array holds text and image blocks", i, b.Type)
			return
		}
	}
	res.Content, res.Images = strings.Join(text, "\n"), images
}
