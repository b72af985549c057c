package agent

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// The tool message the loop writes is the SDK's, byte for byte, whatever
// the content and the id: escapes, HTML characters, invalid UTF-8, line
// separators, control characters.
func FuzzToolMessage(f *testing.F) {
	for _, c := range []string{"", "sunny", "a <b> & c", "\u2028\u2029", "\x00\x01\x1f\x7f", "bad \xff\xfe utf8", `{"error":"x"}`, "\"quoted\"\\", "é 日本 🎉", strings.Repeat("line\n", 100)} {
		f.Add(c, "call_1")
	}
	f.Add("x", "id with \"quotes\" and <tags>")
	f.Fuzz(func(t *testing.T, content, id string) {
		want, err := json.Marshal(openai.ToolMessage(content, id))
		if err != nil {
			t.Skip(err)
		}
		got, err := toolMessage(content, id)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("toolMessage(%q, %q) = %s, %v; the SDK's is %s", content, id, got, err, want)
		}
	})
}
