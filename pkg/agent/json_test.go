package agent

import (
	"encoding/json"
	"testing"
)

// jsonString reads a string literal exactly as json.Unmarshal does.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u20ac"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, "\"\xff\xfe ok \xe2\x82\"", `"é€😀"`, `"\u0000"`, `"\uD83D\uDE00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want string
		if json.Unmarshal(b, &want) != nil || len(b) == 0 || b[0] != '"' {
			return
		}
		got, ok := jsonString(b)
		if !ok || got != want {
			t.Errorf("jsonString(%q) = %q, %v; json.Unmarshal gives %q", b, got, ok, want)
		}
	})
}
