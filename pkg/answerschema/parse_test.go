package answerschema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const citySchema = `{
  "title": "Weather report",
  "type": "object",
  "properties": {
    "city": {"type": "string"},
    "temp": {"type": "integer"}
  },
  "required": ["city", "temp"]
}`

func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// SCHEMA is inline JSON when it starts with "{", a file when one has that
// name, the concise form when it has a space, comma, colon or newline.
func TestParseForms(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, dir, "weather.json", citySchema)
	write(t, dir, "my schema, v2.json", citySchema)
	tests := []struct {
		arg  string
		form Form
		want string
	}{
		{citySchema, FormJSON, `{"title":"Weather report","type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"]}`},
		{"  " + citySchema, FormJSON, ""},
		{"weather.json", FormFile, `{"title":"Weather report","type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"]}`},
		{filepath.Join(dir, "weather.json"), FormFile, ""},
		// A file whose name looks like the concise form is the file.
		{"my schema, v2.json", FormFile, ""},
		{"city, temp int", FormConcise, `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"]}`},
		{"verdict:pass or fail", FormConcise, `{"type":"object","properties":{"verdict":{"type":"string","description":"pass or fail"}},"required":["verdict"]}`},
		{"verdict\nreasons", FormConcise, ""},
	}
	for _, tt := range tests {
		s, err := Parse(tt.arg)
		if err != nil {
			t.Errorf("%q: %v", tt.arg, err)
			continue
		}
		if s.Form() != tt.form {
			t.Errorf("%q: form %q, want %q", tt.arg, s.Form(), tt.form)
		}
		if tt.want != "" && string(s.JSON()) != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.arg, s.JSON(), tt.want)
		}
	}
}

// What cannot be a schema is said, with where the mistake is and what to
// do.
func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, dir, "syntax.json", "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"city\": {\"type\": \"string\"},\n  }\n}\n")
	write(t, dir, "badtype.json", "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"city\": {\"type\": \"string\"},\n    \"temp\": {\"type\": \"integr\"}\n  }\n}\n")
	write(t, dir, "twice.json", "{\n  \"type\": \"object\",\n  \"type\": \"array\"\n}\n")
	write(t, dir, "list.json", "[{\"type\": \"object\"}]\n")
	write(t, dir, "ref.json", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`)
	write(t, dir, "big.json", `{"description":"`+strings.Repeat("x", MaxFileSize)+`"}`)
	if err := os.Mkdir(filepath.Join(dir, "folder"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ arg, want string }{
		{"", "the schema is empty: give a JSON Schema file, a JSON Schema written out ({...}), or fields such as 'verdict, score int'"},
		{"verdict", "verdict: no such file; a schema of one field says its type too ('verdict str')"},
		{"wether.json", "wether.json: no such file"},
		{"my schemas/review.JSON", "my schemas/review.JSON: no such file"},
		{"https://example.com/review.schema.json", "https://example.com/review.schema.json: a schema is read from a file or given inline, never fetched: download it and give the file"},
		{"folder", "folder: is a folder, not a JSON Schema file"},
		{"syntax.json", "syntax.json:5:3: not JSON: invalid character '}' looking for beginning of object key string"},
		{"badtype.json", `badtype.json:5:22: not a valid JSON Schema: /properties/temp/type: anyOf: did not validate against any of`},
		{"twice.json", `twice.json:3:9: not JSON: the key "type" is given twice`},
		{"list.json", "list.json:1:1: a JSON Schema is an object ({...}), got an array"},
		{"ref.json", "ref.json: not a valid JSON Schema: loading file:///etc/passwd: references outside the schema are not supported: file:///etc/passwd"},
		{"big.json", "big.json: larger than 1024 KiB: not a schema a model can follow"},
		{`{"type": "object", "required": "city"}`, `column 32: not a valid JSON Schema: /required: got string, want array (required is a list of property names)`},
		{"{\"type\": \"object\",\n \"properties\": 3}", `line 2, column 16: not a valid JSON Schema: /properties: got number, want object`},
		{`{"type": "object"`, `column 18: not JSON: the JSON ends too early`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.arg)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%.40q:\n got %v\nwant %s", tt.arg, err, tt.want)
		}
	}
}

// The multi form of a schema with definitions and references to itself
// means what the schema did, for each item.
func TestMultiKeepsReferences(t *testing.T) {
	s, err := Parse(`{"type":"object","$defs":{"city":{"type":"string","minLength":2}},"properties":{"city":{"$ref":"#/$defs/city"},"near":{"type":"array","items":{"$ref":"#"}}},"required":["city"]}`)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Multi()
	if err != nil {
		t.Fatal(err)
	}
	a := m.Check(`{"items":[{"city":"Paris","near":[{"city":"X"}]}]}`, false)
	if len(a.Problems) != 1 || a.Problems[0].String() != "/items/0/near/0/city: minLength: got 1, want 2" {
		t.Errorf("problems %q", a.Problems)
	}
	if a := m.Check(`{"items":[{"city":"Paris","near":[{"city":"Lyon"}]}]}`, false); !a.OK() {
		t.Errorf("problems %q", a.Problems)
	}
}
