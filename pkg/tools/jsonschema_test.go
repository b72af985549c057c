package tools

import (
	"strings"
	"testing"
)

// Arguments checked against schemas written by hand: every bad field is
// named by its JSON pointer, whatever keywords say what it must be.
func TestRawSchemaArguments(t *testing.T) {
	tests := []struct {
		name, schema, args, want string
	}{
		{"nullable through anyOf", `{type: object, properties: {q: {anyOf: [{type: string}, {type: "null"}]}}}`, `{"q":null}`, ""},
		{"anyOf none", `{type: object, properties: {q: {anyOf: [{type: string}, {type: "null"}]}}}`, `{"q":1}`,
			"/q: anyOf: did not validate against any of"},
		{"type list", `{type: object, properties: {q: {type: [string, "null"]}}}`, `{"q":1}`, "/q: got number, want string or null"},
		{"local $ref", `{type: object, $defs: {city: {type: string, minLength: 2}}, properties: {a: {$ref: "#/$defs/city"}, b: {$ref: "#/$defs/city"}}}`,
			`{"a":"x","b":3}`, "/a: minLength: got 1, want 2; /b: got number, want string"},
		{"pattern", `{type: object, properties: {d: {type: string, pattern: "^[0-9]+$"}}}`, `{"d":"12a"}`,
			`/d: pattern: "12a" does not match regular expression "^[0-9]+$"`},
		{"allOf", `{type: object, allOf: [{required: [a]}, {properties: {b: {type: integer}}}]}`, `{"b":1.5}`,
			"/a: missing required property; /b: got number, want integer"},
		{"additional properties by schema", `{type: object, additionalProperties: {type: integer}}`, `{"a":1,"b":"x"}`, "/b: got string, want integer"},
		{"items", `{type: object, properties: {v: {type: array, items: {type: integer, maximum: 3}}}}`, `{"v":[1,5]}`,
			"/v/1: maximum: got 5, want 3"},
		{"prefixItems", `{type: object, properties: {p: {type: array, prefixItems: [{type: number}, {type: string}]}}}`, `{"p":[1,2]}`,
			"/p/1: got number, want string"},
		{"exclusive minimum", `{type: object, properties: {n: {type: number, exclusiveMinimum: 0}}}`, `{"n":0}`,
			"/n: exclusiveMinimum: got 0, want 0"},
		{"max items", `{type: object, properties: {v: {type: array, maxItems: 1}}}`, `{"v":[1,2]}`, "/v: maxItems: got 2, want 1"},
		{"const", `{type: object, properties: {k: {const: "x"}}}`, `{"k":"y"}`, `/k: const: y does not equal x`},
		{"a number too large to compare", `{type: object, properties: {n: {type: number}}}`, `{"n":1e400}`, "/n: the number 1e400 is too large"},
		{"a large integer is still an integer", `{type: object, properties: {n: {type: integer}}}`, `{"n":123456789012345678901234567890}`, ""},
		{"a number is not a string", `{type: object, properties: {s: {type: string}}}`, `{"s":5}`, "/s: got number, want string"},
		{"a string is not a number in an enum", `{type: object, properties: {n: {enum: [5]}}}`, `{"n":"5"}`, `/n: "5" is not one of 5`},
		{"unevaluated properties", `{type: object, properties: {a: {type: string}}, unevaluatedProperties: false}`, `{"a":"x","b":1}`,
			"/b: unknown property (accepted: a)"},
		{"self reference", `{type: object, $defs: {n: {type: object, properties: {next: {$ref: "#/$defs/n"}}}}, properties: {list: {$ref: "#/$defs/n"}}}`,
			`{"list":{"next":{"next":5}}}`, "/list/next/next: got number, want object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadOne(t, "name: s\ndescription: d\nrun: tool.sh\nschema: "+tt.schema+"\n", okScript, Options{})
			err := r.CheckArgs("s", []byte(tt.args))
			got := ""
			if err != nil {
				got = err.Error()
			}
			want := tt.want
			if want != "" {
				want = "invalid arguments for s: " + want
			}
			if tt.name == "anyOf none" {
				if len(got) < len(want) || got[:len(want)] != want {
					t.Errorf("CheckArgs(%s) = %q, want it to start with %q", tt.args, got, want)
				}
				return
			}
			if got != want {
				t.Errorf("CheckArgs(%s) = %q, want %q", tt.args, got, want)
			}
		})
	}
}

// A schema written by hand is checked against the meta-schema of its
// draft when it loads: a mistake in it is a load error at its line, not a
// failure of every call.
func TestRawSchemaErrors(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"unknown type", "{type: object, properties: {n: {type: strng}}}",
			"/properties/n/type: anyOf: did not validate against any of"},
		{"required as a boolean", "{type: object, properties: {n: {type: string, required: true}}}",
			"/properties/n/required: got boolean, want array (required is a list of property names)"},
		{"negative length", "{type: object, properties: {n: {type: string, minLength: -1}}}",
			"/properties/n/minLength: minimum: got -1, want 0"},
		{"bad item schema", "{type: object, properties: {l: {type: array, items: {type: object, properties: 3}}}}",
			"/properties/l/items/properties: got number, want object"},
		{"draft-07 checked as draft-07", "{$schema: 'http://json-schema.org/draft-07/schema#', type: object, properties: {n: {type: integer, maximum: high}}}",
			"/properties/n/maximum: got string, want number"},
		{"an unsupported draft", "{$schema: 'http://json-schema.org/draft-04/schema#', type: object}",
			`$schema "http://json-schema.org/draft-04/schema#" is not supported; leave it out (draft 2020-12) or use draft-07`},
		{"a reference to a file", "{type: object, properties: {a: {$ref: 'file:///etc/passwd'}}}",
			"references outside the schema are not supported: file:///etc/passwd"},
		{"a bad pattern", "{type: object, properties: {a: {type: string, pattern: '('}}}",
			"pattern: error parsing regexp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"x.yaml": "name: s\ndescription: d\nrun: ok.sh\nschema: " + tt.schema + "\n", "ok.sh": okScript})
			_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
			got := loadErrors(t, err, dir)
			prefix := "x.yaml:4: schema: not a valid JSON Schema: "
			if len(got) != 1 || !startsWithAfter(got[0], prefix, tt.want) {
				t.Errorf("errors = %q\nwant one starting %q", got, prefix+tt.want)
			}
		})
	}
}

// startsWithAfter reports whether s is prefix followed by something
// containing want.
func startsWithAfter(s, prefix, want string) bool {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return false
	}
	rest := s[len(prefix):]
	for i := 0; i+len(want) <= len(rest); i++ {
		if rest[i:i+len(want)] == want {
			return true
		}
	}
	return false
}

// Ten thousand bad items: the first problems are named, quickly, and the
// rest said to exist.
func TestManyBadItems(t *testing.T) {
	r := loadOne(t, "name: s\ndescription: d\nrun: tool.sh\nparameters:\n  v: {type: array, items: {type: integer}}\n", okScript, Options{})
	var b strings.Builder
	b.WriteString(`{"v":[`)
	for i := range 10000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x"`)
	}
	b.WriteString(`]}`)
	err := r.CheckArgs("s", []byte(b.String()))
	if err == nil {
		t.Fatal("no error")
	}
	msgs := strings.Split(strings.TrimPrefix(err.Error(), "invalid arguments for s: "), "; ")
	if len(msgs) != 21 || msgs[0] != "/v/0: got string, want integer" || msgs[20] != "and more (the first 20 problems are shown)" {
		t.Errorf("%d messages: %q ... %q", len(msgs), msgs[0], msgs[len(msgs)-1])
	}
}
