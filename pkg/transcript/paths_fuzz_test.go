package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// FuzzBodyPaths: a request body gets the same findings streamed and read as
// one JSONL line, whatever it holds.
func FuzzBodyPaths(f *testing.F) {
	for _, b := range pathBodies {
		f.Add([]byte(b))
	}
	for _, tc := range codeCases {
		if strings.HasPrefix(tc.bad, "{") && !strings.Contains(strings.TrimSpace(tc.bad), "\n") {
			f.Add([]byte(tc.bad))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var flat bytes.Buffer
		if json.Compact(&flat, data) != nil || !bytes.HasPrefix(flat.Bytes(), []byte("{")) {
			return
		}
		line, _ := validateBytes(t, "b", append(slices.Clip(flat.Bytes()), '\n'), Options{Input: InputConversations})
		streamed, _ := validateBytes(t, "b", flat.Bytes(), Options{Input: InputRequest})
		if a, b := findingsOf(streamed, true), findingsOf(line, true); !slices.Equal(a, b) {
			t.Fatalf("%s\nstreamed\n%s\nas a line\n%s", flat.Bytes(), strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
	})
}
