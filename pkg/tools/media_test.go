package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/wire"
)

// A 1×1 PNG, base64.
const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"

func TestMediaOutput(t *testing.T) {
	tests := []struct {
		name, output, script string
		maxOutput            string
		text, kind           string
		images               int
	}{
		{"image", "image", "echo " + pixel + " | base64 -d", "", "", "", 1},
		{"content", "content", `printf '[{"type":"text","text":"a pixel"},{"type":"image","data":"` + pixel + `","mimeType":"image/png"}]'`, "", "a pixel", "", 1},
		{"not an image", "image", "echo hello", "", "are not a PNG, JPEG, GIF or WebP image (they look like text/plain", wire.KindBadOutput, 0},
		{"too large", "image", "echo " + pixel + " | base64 -d", "20", "more than its max_output of 20; an image or a content array cannot be cut", wire.KindBadOutput, 0},
		{"not a content array", "content", "echo '{}'", "", "is not a JSON array of blocks", wire.KindBadOutput, 0},
		{"unknown block", "content", `echo '[{"type":"audio"}]'`, "", `content[0] is a "audio" block`, wire.KindBadOutput, 0},
		{"bad base64", "content", `echo '[{"type":"image","data":"%%%"}]'`, "", "content[0]: the image's data is not base64", wire.KindBadOutput, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml := "name: t\ndescription: d\nrun: tool.sh\noutput: " + tt.output + "\n"
			if tt.maxOutput != "" {
				yaml += "max_output: " + tt.maxOutput + "\n"
			}
			r := loadOne(t, yaml, "#!/bin/sh\n"+tt.script+"\n", Options{})
			res := r.Call(context.Background(), "t", "c", nil)
			if res.Kind != tt.kind || !strings.Contains(res.Content, tt.text) || len(res.Images) != tt.images {
				t.Errorf("result = %+v", res)
			}
			if tt.images == 1 && (res.Images[0].MIMEType != "image/png" || len(res.Images[0].Data) != 69) {
				t.Errorf("image = %s, %d bytes", res.Images[0].MIMEType, len(res.Images[0].Data))
			}
		})
	}
	if d, _ := loadOne(t, "name: t\ndescription: d\nrun: tool.sh\noutput: image\n", "#!/bin/sh\n", Options{}).Lookup("t"); d.MaxOutput != DefaultMediaOutput {
		t.Errorf("max_output of an image tool = %d", d.MaxOutput)
	}
}
