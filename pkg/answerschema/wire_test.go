package answerschema

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

// The strict form: every object closed and listing every property in
// required, in the schema's order; an optional property made nullable
// (a scalar by its type, anything else by anyOf), its enum taking null.
func TestOpenAIStrictForm(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{
		"verdict":{"type":"string","enum":["pass","fail"]},
		"score":{"type":"integer","minimum":0,"maximum":10},
		"note":{"type":"string","enum":["a","b"]},
		"findings":{"type":"array","items":{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer"}},"required":["file"]}},
		"meta":{"type":"object","properties":{"by":{"type":"string"}},"additionalProperties":true}
	},"required":["verdict","findings"]}`)
	w := s.OpenAI()
	want := `{"type":"object","properties":{` +
		`"verdict":{"type":"string","enum":["pass","fail"]},` +
		`"score":{"type":["integer","null"],"minimum":0,"maximum":10},` +
		`"note":{"type":["string","null"],"enum":["a","b",null]},` +
		`"findings":{"type":"array","items":{"type":"object","properties":{"file":{"type":"string"},"line":{"type":["integer","null"]}},"required":["file","line"],"additionalProperties":false}},` +
		`"meta":{"anyOf":[{"type":"object","properties":{"by":{"type":["string","null"]}},"additionalProperties":false,"required":["by"]},{"type":"null"}]}` +
		`},"required":["verdict","score","note","findings","meta"],"additionalProperties":false}`
	if !w.Enforced || w.Why != "" {
		t.Fatalf("not enforced: %s", w.Why)
	}
	if string(w.Schema) != want {
		t.Errorf("got  %s\nwant %s", w.Schema, want)
	}
	if len(w.Loosened) != 0 {
		t.Errorf("loosened %q", w.Loosened)
	}
	// The answer the strict form makes the model give is the one the
	// user's schema wants, once its nulls are read as "not given".
	a := s.Check(`{"verdict":"pass","score":null,"note":null,"findings":[{"file":"a.go","line":null}],"meta":null}`, true)
	if !a.OK() || string(a.JSON) != `{"verdict":"pass","findings":[{"file":"a.go"}]}` {
		t.Errorf("answer %s, problems %q", a.JSON, problemTexts(a))
	}
}

// The cases of openai-python's own tests of to_strict_json_schema
// (tests/lib/test_pydantic.py), given the schemas pydantic 2 writes for
// their models: a $ref beside a description is replaced by what it points
// to, recursively; an optional field with a null default keeps its anyOf
// and loses the default.
func TestOpenAIStrictFormLikeOpenAIPython(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"test_nested_inline_ref_expansion",
			`{"$defs":{"Galaxy":{"properties":{"name":{"description":"The name of the galaxy.","title":"Name","type":"string"},"largest_star":{"$ref":"#/$defs/Star","description":"The largest star in the galaxy."}},"required":["name","largest_star"],"title":"Galaxy","type":"object"},"Star":{"properties":{"name":{"description":"The name of the star.","title":"Name","type":"string"}},"required":["name"],"title":"Star","type":"object"}},"properties":{"name":{"description":"The name of the universe.","title":"Name","type":"string"},"galaxy":{"$ref":"#/$defs/Galaxy","description":"A galaxy in the universe."}},"required":["name","galaxy"],"title":"Universe","type":"object"}`,
			`{"title":"Universe","type":"object","$defs":{"Star":{"title":"Star","type":"object","properties":{"name":{"type":"string","title":"Name","description":"The name of the star."}},"required":["name"],"additionalProperties":false},"Galaxy":{"title":"Galaxy","type":"object","properties":{"name":{"type":"string","title":"Name","description":"The name of the galaxy."},"largest_star":{"title":"Star","type":"object","properties":{"name":{"type":"string","title":"Name","description":"The name of the star."}},"required":["name"],"description":"The largest star in the galaxy.","additionalProperties":false}},"required":["name","largest_star"],"additionalProperties":false}},"properties":{"name":{"type":"string","title":"Name","description":"The name of the universe."},"galaxy":{"title":"Galaxy","type":"object","properties":{"name":{"type":"string","title":"Name","description":"The name of the galaxy."},"largest_star":{"title":"Star","type":"object","properties":{"name":{"type":"string","title":"Name","description":"The name of the star."}},"required":["name"],"description":"The largest star in the galaxy.","additionalProperties":false}},"required":["name","largest_star"],"description":"A galaxy in the universe.","additionalProperties":false}},"required":["name","galaxy"],"additionalProperties":false}`},
		{"test_most_types",
			`{"$defs":{"Column":{"enum":["id","status","expected_delivery_date","delivered_at","shipped_at","ordered_at","canceled_at"],"title":"Column","type":"string"},"Condition":{"properties":{"column":{"title":"Column","type":"string"},"operator":{"$ref":"#/$defs/Operator"},"value":{"anyOf":[{"type":"string"},{"type":"integer"},{"$ref":"#/$defs/DynamicValue"}],"title":"Value"}},"required":["column","operator","value"],"title":"Condition","type":"object"},"DynamicValue":{"properties":{"column_name":{"title":"Column Name","type":"string"}},"required":["column_name"],"title":"DynamicValue","type":"object"},"Operator":{"enum":["=",">","<","<=",">=","!="],"title":"Operator","type":"string"},"OrderBy":{"enum":["asc","desc"],"title":"OrderBy","type":"string"},"Table":{"enum":["orders","customers","products"],"title":"Table","type":"string"}},"properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Name"},"table_name":{"$ref":"#/$defs/Table"},"columns":{"items":{"$ref":"#/$defs/Column"},"title":"Columns","type":"array"},"conditions":{"items":{"$ref":"#/$defs/Condition"},"title":"Conditions","type":"array"},"order_by":{"$ref":"#/$defs/OrderBy"}},"required":["table_name","columns","conditions","order_by"],"title":"Query","type":"object"}`,
			`{"$defs":{"Column":{"enum":["id","status","expected_delivery_date","delivered_at","shipped_at","ordered_at","canceled_at"],"title":"Column","type":"string"},"Condition":{"properties":{"column":{"title":"Column","type":"string"},"operator":{"$ref":"#/$defs/Operator"},"value":{"anyOf":[{"type":"string"},{"type":"integer"},{"$ref":"#/$defs/DynamicValue"}],"title":"Value"}},"required":["column","operator","value"],"title":"Condition","type":"object","additionalProperties":false},"DynamicValue":{"properties":{"column_name":{"title":"Column Name","type":"string"}},"required":["column_name"],"title":"DynamicValue","type":"object","additionalProperties":false},"Operator":{"enum":["=",">","<","<=",">=","!="],"title":"Operator","type":"string"},"OrderBy":{"enum":["asc","desc"],"title":"OrderBy","type":"string"},"Table":{"enum":["orders","customers","products"],"title":"Table","type":"string"}},"properties":{"name":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Name"},"table_name":{"$ref":"#/$defs/Table"},"columns":{"items":{"$ref":"#/$defs/Column"},"title":"Columns","type":"array"},"conditions":{"items":{"$ref":"#/$defs/Condition"},"title":"Conditions","type":"array"},"order_by":{"$ref":"#/$defs/OrderBy"}},"required":["name","table_name","columns","conditions","order_by"],"title":"Query","type":"object","additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustParse(t, tt.schema).OpenAI()
			if !w.Enforced {
				t.Fatal(w.Why)
			}
			if !jsonEqual(t, w.Schema, tt.want) {
				t.Errorf("got  %s\nwant %s", w.Schema, tt.want)
			}
		})
	}
}

// What strict mode does not take but the check here does is left out of
// the strict form and said in the description; the answer is still held
// to it.
func TestOpenAILoosened(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{
		"name":{"type":"string","description":"Who.","minLength":2,"maxLength":40},
		"tags":{"type":"array","items":{"type":"string","format":"uri-reference"},"uniqueItems":true},
		"when":{"type":"string","format":"date","examples":["2024-01-01"],"default":"today"}
	},"required":["name","tags","when"],"$comment":"v2","x-owner":"ci"}`)
	w := s.OpenAI()
	if !w.Enforced {
		t.Fatal(w.Why)
	}
	want := `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"Who.\n\n{maxLength: 40, minLength: 2}"},` +
		`"tags":{"type":"array","items":{"type":"string","description":"{format: \"uri-reference\"}"},"description":"{uniqueItems: true}"},` +
		`"when":{"type":"string","format":"date"}` +
		`},"required":["name","tags","when"],"additionalProperties":false}`
	if string(w.Schema) != want {
		t.Errorf("got  %s\nwant %s", w.Schema, want)
	}
	loosened := []string{"/properties/name/maxLength", "/properties/name/minLength", "/properties/tags/uniqueItems"}
	if !slices.Equal(w.Loosened, loosened) {
		t.Errorf("loosened %q, want %q", w.Loosened, loosened)
	}
	a := s.Check(`{"name":"X","tags":["a","a"],"when":"2024-01-01"}`, true)
	if got := problemTexts(a); len(got) != 2 || got[0] != "/name: minLength: got 1, want 2" || !strings.HasPrefix(got[1], "/tags: uniqueItems") {
		t.Errorf("problems %q", got)
	}
}

// A schema strict mode cannot express is sent as it is, with strict:
// false, and why is said at its place.
func TestOpenAINotStrict(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 5001 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
	}
	b.WriteString("}}")
	many := b.String()
	deep := `{"type":"string"}`
	for range 11 {
		deep = `{"type":"object","properties":{"x":` + deep + `}}`
	}
	tests := []struct{ name, schema, why string }{
		{"allOf of two", `{"type":"object","properties":{"a":{"allOf":[{"type":"string"},{"minLength":1}]}}}`, "/properties/a/allOf: allOf is not among the keywords it takes"},
		{"not", `{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}`, "/properties/a/not: not is not among the keywords it takes"},
		{"patternProperties", `{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{"^x":{"type":"string"}}}`, "/patternProperties: patternProperties is not among the keywords it takes"},
		{"a map", `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/labels: an object of any keys cannot be constrained: name its properties"},
		{"any object", `{"type":"object","properties":{"extra":{"type":"object"}}}`, "/properties/extra: an object of any keys cannot be constrained: name its properties"},
		{"no type", `{"type":"object","properties":{"a":{"description":"anything"}}}`, "/properties/a: says no type; give it one (type: string, object, …)"},
		{"true", `{"type":"object","properties":{"a":true}}`, "/properties/a: a schema of true or false says no type; write the schema out"},
		{"array without items", `{"type":"object","properties":{"a":{"type":"array"}}}`, "/properties/a: an array says nothing of its items; give it items"},
		{"a tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, "/properties/a/items: a list of item schemas (a tuple) is not taken; give items one schema"},
		{"top level a list", `{"type":"array","items":{"type":"string"}}`, "the top level must be an object (type: object); put a list or a value under a property of one"},
		{"top level anyOf", `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"b":{"type":"string"}}}]}`, "the top level must be an object (type: object); put a list or a value under a property of one"},
		{"too many properties", many, "5001 properties, more than the 5000 it takes"},
		{"too deep", deep, "objects nested 11 deep, more than the 10 it takes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, tt.schema)
			w := s.OpenAI()
			if w.Enforced {
				t.Fatalf("enforced: %s", w.Schema)
			}
			if want := "OpenAI strict mode cannot express the schema: " + tt.why; w.Why != want {
				t.Errorf("why %q\nwant %q", w.Why, want)
			}
			if string(w.Schema) != string(s.JSON()) {
				t.Errorf("sent %s, not the schema as it is", w.Schema)
			}
		})
	}
}

// A recursive schema is taken by strict mode; its references stay.
func TestOpenAIRecursive(t *testing.T) {
	w := mustParse(t, `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"]}`).OpenAI()
	want := `{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},"required":["name","children"],"additionalProperties":false}`
	if !w.Enforced || string(w.Schema) != want {
		t.Errorf("enforced %v %s: %s", w.Enforced, w.Why, w.Schema)
	}
}

// Anthropic's form: objects closed, optional properties left optional,
// what the API does not take left out and described, as anthropic-sdk-go's
// transformSchema does.
func TestAnthropicForm(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{
		"score":{"type":"integer","minimum":0,"maximum":10,"description":"How good."},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},
		"ids":{"type":"array","items":{"type":"string","format":"uri"},"minItems":2},
		"kind":{"oneOf":[{"type":"string","minLength":1},{"type":"integer"}]},
		"who":{"type":"object","properties":{"name":{"type":"string"}}}
	},"required":["score"]}`)
	w := s.Anthropic()
	if !w.Enforced {
		t.Fatal(w.Why)
	}
	want := `{"type":"object","properties":{` +
		`"score":{"type":"integer","description":"How good.\n\n{maximum: 10, minimum: 0}"},` +
		`"tags":{"type":"array","items":{"type":"string"},"minItems":1,"description":"{maxItems: 3}"},` +
		`"ids":{"type":"array","items":{"type":"string","format":"uri"},"description":"{minItems: 2}"},` +
		`"kind":{"anyOf":[{"type":"string","description":"{minLength: 1}"},{"type":"integer"}]},` +
		`"who":{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}` +
		`},"required":["score"],"additionalProperties":false}`
	if string(w.Schema) != want {
		t.Errorf("got  %s\nwant %s", w.Schema, want)
	}
	if a := s.Check(`{"score":11,"kind":"x"}`, false); len(a.Problems) != 1 || a.Problems[0].String() != "/score: maximum: got 11, want 10" {
		t.Errorf("problems %q", problemTexts(a))
	}
}

// A draft-07 tuple is left to the check here in Anthropic's form, as the
// keywords it does not take are.
func TestAnthropicTuple(t *testing.T) {
	s := mustParse(t, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}},"required":["pair"]}`)
	w := s.Anthropic()
	want := `{"type":"object","properties":{"pair":{"type":"array","description":"{items: [{\"type\":\"string\"},{\"type\":\"integer\"}]}"}},"required":["pair"],"additionalProperties":false}`
	if !w.Enforced || string(w.Schema) != want || !slices.Equal(w.Loosened, []string{"/properties/pair/items"}) {
		t.Errorf("enforced %v %s\n got %s\nwant %s\nloosened %q", w.Enforced, w.Why, w.Schema, want, w.Loosened)
	}
	if a := s.Check(`{"pair":["a","b"]}`, false); len(a.Problems) != 1 || a.Problems[0].String() != "/pair/1: got string, want integer" {
		t.Errorf("problems %q", problemTexts(a))
	}
}

// What Anthropic's structured outputs cannot take: a recursive schema, an
// object of any keys.
func TestAnthropicCannot(t *testing.T) {
	tests := []struct{ name, schema, why string }{
		{"recursive", `{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#"}}}}`, "/properties/children/items: a recursive schema (one that refers to itself) is not taken"},
		{"recursive through $defs", `{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"head":{"$ref":"#/$defs/n"}}}`, "/properties/head/properties/next: a recursive schema (one that refers to itself) is not taken"},
		{"a map", `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}}}`, "/properties/labels: an object of any keys cannot be constrained: name its properties"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustParse(t, tt.schema).Anthropic()
			if w.Enforced || w.Schema != nil {
				t.Fatalf("enforced %v: %s", w.Enforced, w.Schema)
			}
			if want := "Anthropic's structured outputs cannot express the schema: " + tt.why; w.Why != want {
				t.Errorf("why %q\nwant %q", w.Why, want)
			}
		})
	}
}

// The user's schema is not changed by making its wire forms.
func TestWireLeavesTheSchema(t *testing.T) {
	s := mustParse(t, citySchema)
	before := string(s.JSON())
	_ = s.OpenAI()
	_ = s.Anthropic()
	if string(s.JSON()) != before || string(s.tree.bytes()) != before {
		t.Errorf("the schema changed: %s", s.tree.bytes())
	}
}

// What the strict form and the Anthropic form are made of is what the
// fake APIs, which check requests as the real ones do, take.
func TestWireFormsPassTheAPIsChecks(t *testing.T) {
	schemas := []string{
		citySchema,
		`{"type":"object","properties":{"verdict":{"type":"string","enum":["pass","fail"]},"findings":{"type":"array","items":{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":1},"note":{"type":"string","maxLength":200}},"required":["file"]}}},"required":["verdict"]}`,
		`{"type":"object","$defs":{"loc":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat"]}},"properties":{"here":{"$ref":"#/$defs/loc","description":"Where."},"there":{"$ref":"#/$defs/loc"}},"required":["here"]}`,
		`{"type":"object","properties":{"kind":{"oneOf":[{"type":"string","format":"email"},{"type":"integer"}]},"tags":{"type":"array","items":{"type":"string"},"minItems":2,"uniqueItems":true}}}`,
		`{"title":"x","type":"object","properties":{"a":{"allOf":[{"type":"object","properties":{"b":{"type":"boolean"}}}]}},"additionalProperties":true}`,
	}
	for _, src := range schemas {
		s := mustParse(t, src)
		o := s.OpenAI()
		if !o.Enforced {
			t.Errorf("%s: %s", src, o.Why)
			continue
		}
		if err := fakeapi.CheckStrictSchema(s.Name(), o.Schema); err != nil {
			t.Errorf("OpenAI refuses the strict form of %s:\n%s\n%v", src, o.Schema, err)
		}
		a := s.Anthropic()
		if !a.Enforced {
			t.Errorf("%s: %s", src, a.Why)
			continue
		}
		if err := fakeapi.CheckAnthropicSchema(a.Schema); err != nil {
			t.Errorf("Anthropic refuses the form of %s:\n%s\n%v", src, a.Schema, err)
		}
	}
}
