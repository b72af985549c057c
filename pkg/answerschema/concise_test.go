package answerschema

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// jsonEqual compares two JSON documents by value.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %s", got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("the test's JSON: %v", err)
	}
	return reflect.DeepEqual(g, w)
}

// The concise form means what llm makes of it. The cases are llm's own,
// tests/test_utils.py test_schema_dsl (simonw/llm), written as JSON.
func TestConciseLLMCases(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"1: comma-separated, string by default", "name, bio",
			`{"type":"object","properties":{"name":{"type":"string"},"bio":{"type":"string"}},"required":["name","bio"]}`},
		{"2: comma-separated with types", "name, age int, balance float, active bool",
			`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"balance":{"type":"number"},"active":{"type":"boolean"}},"required":["name","age","balance","active"]}`},
		{"3: comma-separated with descriptions", "name: full name, age int: years old",
			`{"type":"object","properties":{"name":{"type":"string","description":"full name"},"age":{"type":"integer","description":"years old"}},"required":["name","age"]}`},
		{"4: newline-separated", "\n        name\n        bio\n        age int\n        ",
			`{"type":"object","properties":{"name":{"type":"string"},"bio":{"type":"string"},"age":{"type":"integer"}},"required":["name","bio","age"]}`},
		{"5: newline-separated, commas in descriptions", "\n        name: the person's name\n        age int: their age in years, must be positive\n        bio: a short bio, no more than three sentences\n        ",
			`{"type":"object","properties":{"name":{"type":"string","description":"the person's name"},"age":{"type":"integer","description":"their age in years, must be positive"},"bio":{"type":"string","description":"a short bio, no more than three sentences"}},"required":["name","age","bio"]}`},
		{"6: empty", "", `{"type":"object","properties":{},"required":[]}`},
		{"7: explicit string type", "name str, description str",
			`{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"}},"required":["name","description"]}`},
		{"8: extra whitespace", "  name  ,  age   int  :  person's age  ",
			`{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","description":"person's age"}},"required":["name","age"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := parseConcise(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			if got := n.bytes(); !jsonEqual(t, got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// The fields keep their order: it is the order of a strict answer's keys.
func TestConciseOrder(t *testing.T) {
	s, err := FromConcise("verdict, score int, reasons: why it is so")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"verdict":{"type":"string"},"score":{"type":"integer"},"reasons":{"type":"string","description":"why it is so"}},"required":["verdict","score","reasons"]}`
	if string(s.JSON()) != want {
		t.Errorf("got  %s\nwant %s", s.JSON(), want)
	}
	if s.Form() != FormConcise {
		t.Errorf("form %q", s.Form())
	}
}

// The multi form is llm's --schema-multi: tests/test_utils.py
// test_schema_dsl_multi.
func TestConciseMulti(t *testing.T) {
	s, err := FromConcise("name, age int: The age")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Multi()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","description":"The age"}},"required":["name","age"]}}},"required":["items"]}`
	if !jsonEqual(t, m.JSON(), want) {
		t.Errorf("got  %s\nwant %s", m.JSON(), want)
	}
	if a := m.Check(`{"items":[{"name":"Rex","age":3},{"name":"Ziggy","age":"4"}]}`, false); len(a.Problems) != 1 || a.Problems[0].String() != "/items/1/age: got string, want integer" {
		t.Errorf("problems %q", a.Problems)
	}
}

// A field with no name before its colon is refused, as llm refuses it
// (tests/test_utils.py test_schema_dsl_missing_field_name), and said
// where.
func TestConciseMissingName(t *testing.T) {
	tests := []struct{ schema, want string }{
		{":just a description", `column 1: field ":just a description" has no name before ':'`},
		{"name, :description", `column 7: field ":description" has no name before ':'`},
	}
	for _, tt := range tests {
		_, err := FromConcise(tt.schema)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%q: %v, want %q", tt.schema, err, tt.want)
		}
	}
}

// Where llm guesses, the concise form here says what is wrong and where.
func TestConciseRefusals(t *testing.T) {
	tests := []struct{ schema, want string }{
		{"score integer", `column 7: "integer" is not a type: the types are int, float, str and bool (str when none is given)`},
		{"name, age int years: how old", `column 15: field "age int years": only a name and a type come before the ':' of a description`},
		// llm reads this as a field "in" of type string.
		{"verdict, score int, reasons: why, in one line", `column 38: "one" is not a type: the types are int, float, str and bool (str when none is given); a comma ends a field, even in a description: to put one in a description, write the fields one a line`},
		{"name, age int, name", `column 16: the field "name" is given twice`},
		{"verdict\nscore int, reasons", `line 2, column 7: "int," is not a type: the types are int, float, str and bool (str when none is given); with the fields one a line, commas separate nothing before a ':' (put each field on a line of its own)`},
		{"titre, durée float, café numbre", `column 26: "numbre" is not a type: the types are int, float, str and bool (str when none is given)`},
	}
	for _, tt := range tests {
		_, err := FromConcise(tt.schema)
		var e *Error
		if !errors.As(err, &e) || err.Error() != tt.want {
			t.Errorf("%q:\n got %v\nwant %s", tt.schema, err, tt.want)
		}
	}
}
