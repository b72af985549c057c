package agent

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// MaxImageBytes bounds an image sent to a model. Anthropic refuses an image
// of more than 5 MB of base64 (3.75 MiB of bytes), and a refused image fails
// the whole request, so a larger one is described instead of sent.
const MaxImageBytes = 3 << 20

// imageTypes are the image types both APIs take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// sendable returns the media type an image goes to the API as, or why it
// cannot go. The type is read from the bytes, not taken from the tool: an
// API refuses an image whose bytes do not match its declared type, and a
// refusal would end the run.
func sendable(im Image) (mediaType, why string) {
	switch {
	case len(im.Data) == 0:
		return "", "it is empty"
	case len(im.Data) > MaxImageBytes:
		return "", fmt.Sprintf("it is larger than the %d MiB an image may be", MaxImageBytes>>20)
	}
	t := http.DetectContentType(im.Data)
	if !slices.Contains(imageTypes, t) {
		return "", "its bytes are not a PNG, JPEG, GIF or WebP image"
	}
	return t, ""
}

// imageLabel names an image in a result's text: its declared type and size.
func imageLabel(im Image) string {
	t := im.MIMEType
	if t == "" {
		t = "image"
	}
	return fmt.Sprintf("%s, %d bytes", t, len(im.Data))
}

// notShown is the text that stands for an image that is not sent.
func notShown(im Image, why string) string {
	return fmt.Sprintf("[image not shown (%s): %s]", imageLabel(im), why)
}

// dataURL is an image as a data: URL, the form Chat Completions takes.
func dataURL(mediaType string, data []byte) string {
	return "data:" + mediaType + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// imageFromDataURL reads an image back from a base64 data: URL; another
// URL gives an image with neither type nor bytes.
func imageFromDataURL(u string) Image {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Image{}
	}
	mediaType, data, ok := strings.Cut(rest, ";base64,")
	if !ok {
		return Image{}
	}
	b, _ := base64.StdEncoding.DecodeString(data)
	return Image{MIMEType: mediaType, Data: b}
}

// withLine appends line to text on a line of its own.
func withLine(text, line string) string {
	if text == "" || strings.HasSuffix(text, "\n") {
		return text + line
	}
	return text + "\n" + line
}

// ImagesText describes a Chat Completions user message that carries the
// pictures of tool results (its content parts): the text parts as they
// are, each image as its type and size, never its bytes.
func ImagesText(content []byte) string {
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	_ = json.Unmarshal(content, &parts)
	var text string
	for _, p := range parts {
		switch p.Type {
		case "text":
			text = withLine(text, p.Text)
		case "image_url":
			text = withLine(text, "[image: "+imageLabel(imageFromDataURL(p.ImageURL.URL))+"]")
		}
	}
	return text
}
