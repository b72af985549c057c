package cassette

import (
	"bytes"
	"context"
	"encoding/base64"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/transcript/internal/checktest"
)

func readLog(t *testing.T, name string) []byte { return checktest.ReadLog(t, name) }

// TestSniff: a cassette is told by its top-level interactions key, after
// "---", comments and other keys.
func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name, head string
		want       check.Confidence
	}{
		{"vcrpy", "interactions:\n- request:\n    body: '{}'\n", check.Certain},
		{"go-vcr", "---\nversion: 2\ninteractions:\n- id: 0\n", check.Certain},
		{"Ruby's VCR", "---\nhttp_interactions:\n- request:\n", check.Certain},
		{"a comment first", "# recorded\ninteractions: []\n", check.Certain},
		{"other YAML", "name: get_weather\nrun: ./x.sh\n", check.No},
		{"JSON", `{"interactions":[]}` + "\n", check.No},
	} {
		if got := Format.Sniff(checktest.Head(tc.head)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// validateBytes checks data as a cassette.
func validateBytes(t *testing.T, name string, data []byte, opts check.Options) ([]check.Finding, check.Stats) {
	t.Helper()
	var fs []check.Finding
	st, err := check.Validate(context.Background(), check.Registry{Format}, name, bytes.NewReader(data), opts, func(f check.Finding) { fs = append(fs, f) })
	if err != nil {
		t.Fatal(err)
	}
	return fs, st
}

// TestRubyVCRBase64Body: Ruby's VCR writes a body that is not valid UTF-8
// as {encoding: ASCII-8BIT, base64_string: …}; it reads as the same body.
func TestRubyVCRBase64Body(t *testing.T) {
	const name = "ruby-vcr_ruby_llm_anthropic_parallel_tool_calls.yml"
	data := readLog(t, name)
	_, want := validateBytes(t, name, data, check.Options{})
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range mapValue(doc.Content[0], "http_interactions").Content {
		body := mapValue(mapValue(it, "request"), "body")
		k, v := mapEntry(body, "string")
		if k == nil {
			continue
		}
		k.Value, v.Value, v.Style = "base64_string", base64.StdEncoding.EncodeToString([]byte(v.Value)), 0
		mapValue(body, "encoding").Value = "ASCII-8BIT"
		n++
	}
	out, err := yaml.Marshal(&doc)
	if err != nil || n != 2 || !bytes.Contains(out, []byte("base64_string")) {
		t.Fatalf("%d bodies, %v", n, err)
	}
	fs, got := validateBytes(t, name, out, check.Options{})
	if got != want || len(fs) != 0 {
		t.Fatalf("base64 bodies: %+v %v; strings: %+v", got, fs, want)
	}
}
