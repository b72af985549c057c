package schemacheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Checking nothing reads nothing: the meta-schemas are read the first time
// a schema document is checked, and they are well-formed.
func TestMetaschemasLoad(t *testing.T) {
	metas, err := metaschemas()
	if err != nil {
		t.Fatal(err)
	}
	if len(metas) != 3 {
		t.Errorf("%d meta-schemas", len(metas))
	}
	entries, err := os.ReadDir(filepath.Join("metaschema", "draft2020-12", "meta"))
	if err != nil || len(entries) != 7 {
		t.Errorf("draft 2020-12 vocabularies: %d, %v", len(entries), err)
	}
}

func mustCompile(t *testing.T, schema string) *Schema {
	t.Helper()
	doc, err := Decode([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every problem comes apart: where, by its JSON pointer, and what; the
// whole value's problems have no pointer.
func TestCheckProblems(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer"}},"required":["city","temp"],"additionalProperties":false}`)
	tests := []struct {
		value string
		want  []Problem
	}{
		{`{"city":"Paris","temp":21}`, nil},
		{`{"temp":"21"}`, []Problem{{"/city", "missing required property"}, {"/temp", "got string, want integer"}}},
		{`{"city":"Paris","temp":21,"wind":3}`, []Problem{{"/wind", "unknown property (accepted: city, temp)"}}},
		{`"Paris"`, []Problem{{"", "got string, want object"}}},
		{`{"city":"Paris","temp":1e400}`, []Problem{{"/temp", "the number 1e400 is too large"}}},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.value))
		if err != nil {
			t.Fatal(err)
		}
		err = s.Check(v, true)
		var got []Problem
		var e *Error
		if errors.As(err, &e) {
			got = e.Problems
		} else if err != nil {
			t.Fatalf("%s: %T %v", tt.value, err, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.value, got, tt.want)
		}
	}
}

// The error reads as it always has: "pointer: message" joined by "; ",
// the whole value as "(value)", and a last word when problems were left
// out.
func TestErrorText(t *testing.T) {
	e := &Error{Problems: []Problem{{"", "got string, want object"}, {"/a", "missing required property"}}, More: true}
	want := "(value): got string, want object; /a: missing required property; and more (the first 20 problems are shown)"
	if e.Error() != want {
		t.Errorf("%q\nwant %q", e.Error(), want)
	}
}

// A mistake in a schema document is one problem at the keyword at fault.
func TestCheckDocProblem(t *testing.T) {
	doc, err := Decode([]byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":"low"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckDoc(doc.(map[string]any))
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0].At != "/properties/n/minimum" || e.Problems[0].Message != "got string, want number" {
		t.Errorf("CheckDoc = %v", err)
	}
}

// The last word names the number of problems listed.
func TestMoreTextCounts(t *testing.T) {
	if want := fmt.Sprintf("and more (the first %d problems are shown)", maxFindings); MoreText != want {
		t.Errorf("MoreText = %q, want %q", MoreText, want)
	}
}

// A draft-07 tuple (items as a list, additionalItems past it) names the
// bad item by its pointer, as prefixItems does.
func TestCheckTupleItems(t *testing.T) {
	s := mustCompile(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":{"type":"boolean"}}`)
	tests := []struct {
		value string
		want  []Problem
	}{
		{`["a",1,true,false]`, nil},
		{`["a","b"]`, []Problem{{"/1", "got string, want integer"}}},
		{`[1,2,"x"]`, []Problem{{"/0", "got number, want string"}, {"/2", "got string, want boolean"}}},
	}
	for _, tt := range tests {
		v, err := Decode([]byte(tt.value))
		if err != nil {
			t.Fatal(err)
		}
		var got []Problem
		var e *Error
		if err := s.Check(v, true); errors.As(err, &e) {
			got = e.Problems
		} else if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.value, got, tt.want)
		}
	}
}
