package yamlpos

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// A syntax error is reported at the line to fix, whichever line yaml.v3's
// own message names (given in each comment).
func TestSyntaxErrorLine(t *testing.T) {
	tests := []struct {
		name, yaml string
		line       int
		problem    string
	}{
		// yaml.v3: 3, where the flow mapping starts counted from 0.
		{"flow mapping left open", "name: x\ndescription: d\nparameters:\n  a: {type: string\nrun: ok.sh\n", 4, "did not find expected ',' or '}'"},
		// yaml.v3: 3, the item's line counted from 0.
		{"list item in a mapping", "name: x\ndescription: d\nrun: ok.sh\n- item\n", 4, "did not find expected key"},
		// yaml.v3: 1, where the list's first item starts counted from 0.
		{"key misindented in a list", "tools:\n  - name: x\n    description: d\n    run: ok.sh\n    env: [A]\n   confirm: true\n", 6, "did not find expected '-' indicator"},
		// yaml.v3: 2: where the mapping of the profile starts counted from 0.
		{"key misindented in a nested mapping", "model: gpt-4o\nprofiles:\n  ollama:\n    model: llama3.2\n    max_steps: 3\n   timeout: 1m\n", 6, "did not find expected key"},
		// yaml.v3: 2, the value before the tab.
		// A tab in the indentation, said as such, not in the parser's words
		// (here "found a tab character that violates indentation").
		{"tab after a value", "name: x\ndescription: d\n\trun: ok.sh\n", 3, "a tab in the indentation: YAML indents with spaces only"},
		// yaml.v3: "found character that cannot start any token".
		{"tab before the first key", "\tmodel: x\n", 1, "a tab in the indentation: YAML indents with spaces only"},
		{"tab after spaces in a profile", "model: x\nprofiles:\n  a:\n    \tmodel: y\n", 4, "a tab in the indentation: YAML indents with spaces only"},
		// A tab inside a value is no indentation.
		{"tab inside a flow mapping left open", "name: x\nparameters: {a:\t{type: string}\n", 2, "did not find expected ',' or '}'"},
		// yaml.v3: 2, the end of the file.
		{"quote left open on line 1", "name: 'x\n", 1, "found unexpected end of stream"},
		// yaml.v3: no line.
		{"colon in a value on line 1", "name: x: y\ndescription: d\n", 1, "mapping values are not allowed in this context"},
		// yaml.v3: no line.
		{"unknown anchor", "name: x\ndescription: d\nrun: *script\n", 3, "unknown anchor 'script' referenced"},
		// yaml.v3: no line; a reader error.
		{"not UTF-8", "name: x\ndescription: caf\xe9\nrun: ok.sh\n", 2, "invalid trailing UTF-8 octet"},
		// yaml.v3: 4, in the second document.
		{"in a second document", "name: x\n---\nname: y\ndescription: d\nrun: {a\n", 5, "did not find expected ',' or '}'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.yaml))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Problem != tt.problem {
				t.Errorf("line %d %q, want line %d %q", se.Line, se.Problem, tt.line, tt.problem)
			}
			if se.Err == nil || !strings.HasPrefix(se.Err.Error(), "yaml: ") {
				t.Errorf("Err %v, want yaml.v3's error", se.Err)
			}
		})
	}
}

func TestDecodeDocuments(t *testing.T) {
	tests := []struct {
		name       string
		yaml       string
		doc, extra bool
	}{
		{"empty", "", false, false},
		{"comments only", "# nothing yet\n", false, false},
		{"one", "a: 1\n", true, false},
		{"two", "a: 1\n---\nb: 2\n", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, extra, err := Decode([]byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if (doc != nil) != tt.doc || (extra != nil) != tt.extra {
				t.Errorf("doc %v extra %v, want %v %v", doc != nil, extra != nil, tt.doc, tt.extra)
			}
			if doc != nil && Root(doc).Kind != yaml.MappingNode {
				t.Errorf("root is %s, want a mapping", KindName(Root(doc)))
			}
		})
	}
}

func TestFirstFailing(t *testing.T) {
	for _, tt := range []struct{ lo, hi, first int }{
		{1, 1, 1}, {1, 10, 1}, {1, 10, 2}, {1, 10, 10}, {3, 1000, 700}, {5, 6, 6},
	} {
		calls := 0
		got := firstFailing(tt.lo, tt.hi, func(n int) bool { calls++; return n >= tt.first })
		if got != tt.first {
			t.Errorf("%+v: got %d", tt, got)
		}
		if calls > 40 {
			t.Errorf("%+v: %d calls", tt, calls)
		}
	}
}

func TestKindName(t *testing.T) {
	doc, _, err := Decode([]byte("m: {a: 1}\nl: [1]\nn:\ns: hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	root := Root(doc)
	for key, want := range map[string]string{"m": "a mapping", "l": "a list", "n": "nothing", "s": `"hi"`} {
		v := MapValue(root, key)
		if got := KindName(v); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
		if IsNull(v) != (key == "n") {
			t.Errorf("%s: IsNull %v", key, IsNull(v))
		}
	}
	if MapValue(root, "missing") != nil {
		t.Error("MapValue of a missing key is not nil")
	}
}
