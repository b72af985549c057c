package check

import (
	"strings"
	"testing"
)

// TestHead: what a format's sniff sees of a file: a whole-file document
// (an array, an object over lines, one line longer than the window that is
// not a log's line), or the first JSON line, after blank and broken ones.
func TestHead(t *testing.T) {
	long := `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("x", 100)
	for _, tc := range []struct {
		name  string
		head  *Head
		doc   bool
		keys  string // the top-level keys, of the document or the line
		line  bool
		array bool
	}{
		{"pretty-printed", NewHead([]byte("{\n  \"model\": \"m\",\n  \"messages\": [\n"), false), true, "model messages", false, false},
		{"an array", NewHead([]byte("[\n{\"role\":\"user\"}\n]\n"), true), false, "", false, true},
		{"JSON lines", NewHead([]byte("{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\"assistant\"}\n"), true), false, "role content", true, false},
		{"after blank and broken lines", NewHead([]byte("\n  \nnot json\n{\"type\":\"header\"}\n"), true), false, "type", true, false},
		{"a long body on one line", NewHead([]byte(long), false), true, "model messages", false, false},
		{"a long message on one line", NewHead([]byte(`{"role":"user","content":"`+strings.Repeat("x", 100)), false), false, "role content", true, false},
		{"broken on its first line", NewHead([]byte("{\"a\" 1,\n\"b\": 2}\n"), true), false, "", false, false},
		{"text", NewHead([]byte("hello\n"), true), false, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, doc := tc.head.Document()
			line, isLine := tc.head.Line()
			obj, _ := tc.head.Object()
			var names []string
			for _, f := range obj {
				names = append(names, f.Key)
			}
			if doc != tc.doc || isLine != tc.line || tc.head.Array() != tc.array || strings.Join(names, " ") != tc.keys {
				t.Errorf("document %v (%v), line %v (%+v), array %v, keys %q", doc, keys, isLine, line, tc.head.Array(), names)
			}
		})
	}
}

type fakeFormat struct {
	name string
	sure Confidence
}

func (f fakeFormat) Info() Info {
	return Info{Name: f.name, Reads: "x", Writer: "y", Example: "z"}
}
func (f fakeFormat) Sniff(*Head) Confidence { return f.sure }
func (f fakeFormat) Open(*File) error       { return nil }

// TestRegistrySniff: the surest format reads a file, the first listed
// between equals; none when no format knows it.
func TestRegistrySniff(t *testing.T) {
	h := NewHead([]byte("{}\n"), true)
	r := Registry{fakeFormat{"a", Fallback}, fakeFormat{"b", Likely}, fakeFormat{"c", Likely}}
	if f, sure := r.Sniff(h); f.Info().Name != "b" || sure != Likely {
		t.Errorf("%v %v", f, sure)
	}
	if f, _ := (Registry{fakeFormat{"a", No}}).Sniff(h); f != nil {
		t.Errorf("%v", f)
	}
	defer func() {
		if recover() == nil {
			t.Error("two formats of one name were taken")
		}
	}()
	Registry{fakeFormat{"a", No}, fakeFormat{"a", No}}.Check()
}
