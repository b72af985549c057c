package answerschema

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func mustParse(t *testing.T, schema string) *Schema {
	t.Helper()
	s, err := Parse(schema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func problemTexts(a *Answer) []string {
	var out []string
	for _, p := range a.Problems {
		out = append(out, p.String())
	}
	return out
}

// An answer is the JSON value alone; each way it can fail is said in
// words that tell the model what to send instead, and every problem of a
// value is named by its JSON pointer.
func TestCheckAnswer(t *testing.T) {
	s := mustParse(t, citySchema)
	tests := []struct {
		name, text string
		json       string
		problems   []string
	}{
		{"right", `{"city":"Paris","temp":21}`, `{"city":"Paris","temp":21}`, nil},
		{"white space around and inside", "\n  { \"city\" : \"Paris\",\n \"temp\": 21 }\n\n", `{"city":"Paris","temp":21}`, nil},
		{"a string for an integer", `{"city":"Paris","temp":"21"}`, `{"city":"Paris","temp":"21"}`, []string{"/temp: got string, want integer"}},
		{"two problems", `{"temp":21.5}`, `{"temp":21.5}`, []string{"/city: missing required property", "/temp: got number, want integer"}},
		{"not an object", `["Paris",21]`, `["Paris",21]`, []string{"the answer: got array, want object"}},
		{"prose", "It is 21 degrees in Paris.", "", []string{"the answer is not JSON: invalid character 'I' looking for beginning of value (line 1, column 1)"}},
		{"fenced", "```json\n{\"city\":\"Paris\",\"temp\":21}\n```", "", []string{"the answer is in a ``` code fence: send the JSON value alone, without the fence"}},
		{"prose before", "Here it is: {\"city\":\"Paris\",\"temp\":21}", "", []string{"the answer has text before the JSON value: send the JSON value alone"}},
		{"prose after", "{\"city\":\"Paris\",\"temp\":21}\nHope this helps!", "", []string{"the answer has text after the JSON value: send the JSON value alone"}},
		{"empty", "  \n", "", []string{"the answer is empty: send the JSON value"}},
		{"cut off", `{"city":"Paris","te`, "", []string{"the answer is not JSON: the JSON ends too early (line 1, column 20)"}},
		{"a key twice", `{"city":"Paris","temp":21,"temp":22}`, "", []string{`the answer is not JSON: the key "temp" is given twice (line 1, column 33)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := s.Check(tt.text, false)
			if string(a.JSON) != tt.json {
				t.Errorf("JSON %s, want %s", a.JSON, tt.json)
			}
			if got := problemTexts(a); !slices.Equal(got, tt.problems) {
				t.Errorf("problems %q\nwant     %q", got, tt.problems)
			}
			if a.OK() != (tt.problems == nil) {
				t.Errorf("OK() = %v", a.OK())
			}
		})
	}
}

// An unknown property is told with the ones the schema takes, so that a
// misspelt name is put right at the next attempt.
func TestCheckAnswerUnknownProperty(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false}`)
	a := s.Check(`{"cty":"Paris"}`, false)
	if got := problemTexts(a); !slices.Equal(got, []string{"/cty: unknown property (accepted: city)"}) {
		t.Errorf("problems %q", got)
	}
}

// What the model is told: every problem on a line of its own, and to
// answer again.
func TestFeedback(t *testing.T) {
	a := mustParse(t, citySchema).Check(`{"temp":"21"}`, false)
	want := "Your answer did not match the JSON schema it must follow:\n" +
		"- /city: missing required property\n" +
		"- /temp: got string, want integer\n" +
		"Answer again with the JSON value alone, matching the schema."
	if a.Feedback() != want {
		t.Errorf("got\n%s\nwant\n%s", a.Feedback(), want)
	}
}

// Ten thousand bad items: the first are named, the rest said to exist, in
// what the model reads too.
func TestFeedbackManyProblems(t *testing.T) {
	s := mustParse(t, `{"type":"object","properties":{"v":{"type":"array","items":{"type":"integer"}}}}`)
	a := s.Check(`{"v":[`+strings.TrimSuffix(strings.Repeat(`"x",`, 10000), ",")+`]}`, false)
	if len(a.Problems) != 20 || !a.More {
		t.Fatalf("%d problems, more %v", len(a.Problems), a.More)
	}
	if !strings.Contains(a.Feedback(), "\n- and more (the first 20 problems are shown)\n") {
		t.Errorf("feedback:\n%s", a.Feedback())
	}
}

// The answer's JSON is the value as the model wrote it, compact, on one
// line: members in its order, numbers as written, strings as JSON writes
// them (what a terminal would act on is the printer's to escape, as for
// all JSON).
func TestAnswerJSON(t *testing.T) {
	s := mustParse(t, `{"type":"object"}`)
	tests := []struct{ name, text, want string }{
		{"order and numbers as written", `{"z": 1.50, "a": 1e2, "m": 123456789012345678901234567890}`, `{"z":1.50,"a":1e2,"m":123456789012345678901234567890}`},
		{"an escape sequence stays escaped", `{"s":"\u001b[31mred"}`, `{"s":"\u001b[31mred"}`},
		{"text kept as it is", `{"s":"été 🌧 <b>&amp;</b> \"q\" \\ /"}`, `{"s":"été 🌧 <b>&amp;</b> \"q\" \\ /"}`},
		{"newlines and tabs escaped: one line", "{\"s\":\"a\\nb\\tc\"}", `{"s":"a\nb\tc"}`},
		{"nested", "{\"a\": [1, {\"b\": null}, [ ]],\n \"c\": {}}", `{"a":[1,{"b":null},[]],"c":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := s.Check(tt.text, false)
			if !a.OK() {
				t.Fatalf("problems %q", problemTexts(a))
			}
			if string(a.JSON) != tt.want {
				t.Errorf("got  %s\nwant %s", a.JSON, tt.want)
			}
			var got, want any
			if err := json.Unmarshal(a.JSON, &got); err != nil {
				t.Fatal(err)
			}
			_ = json.Unmarshal([]byte(tt.text), &want)
			if !jsonEqualValues(got, want) {
				t.Errorf("the value changed: %v, was %v", got, want)
			}
		})
	}
}

// Bytes that are not UTF-8 become U+FFFD, as a JSON reader reads them.
func TestAnswerJSONInvalidUTF8(t *testing.T) {
	a := mustParse(t, `{"type":"object"}`).Check("{\"s\":\"a\xffb\"}", false)
	if string(a.JSON) != "{\"s\":\"a\ufffdb\"}" {
		t.Errorf("got %s", a.JSON)
	}
}

func jsonEqualValues(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// In strict form an optional property is sent as null when the model has
// nothing for it: the null is "not given", dropped before the check and
// from the answer. A null the schema takes, or of a required property,
// stays.
func TestStrictNulls(t *testing.T) {
	s := mustParse(t, `{"type":"object","$defs":{"loc":{"type":"object","properties":{"lat":{"type":"number"},"note":{"type":"string"}},"required":["lat"]}},
		"properties":{
			"city":{"type":"string"},
			"bio":{"type":"string"},
			"nick":{"type":["string","null"]},
			"where":{"$ref":"#/$defs/loc"},
			"tags":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"string"}},"required":["k"]}}
		},"required":["city"]}`)
	text := `{"city":"Paris","bio":null,"nick":null,"where":{"lat":48.8,"note":null},"tags":[{"k":"a","v":null},{"k":"b","v":"c"}]}`
	a := s.Check(text, true)
	if !a.OK() {
		t.Fatalf("problems %q", problemTexts(a))
	}
	want := `{"city":"Paris","nick":null,"where":{"lat":48.8},"tags":[{"k":"a"},{"k":"b","v":"c"}]}`
	if string(a.JSON) != want {
		t.Errorf("got  %s\nwant %s", a.JSON, want)
	}
	// Not sent in strict form, a null is what the model said.
	a = s.Check(text, false)
	if got := problemTexts(a); !slices.Equal(got, []string{"/bio: got null, want string", "/tags/0/v: got null, want string", "/where/note: got null, want string"}) {
		t.Errorf("problems %q", got)
	}
	// A required property's null is a problem either way.
	a = s.Check(`{"city":null}`, true)
	if got := problemTexts(a); !slices.Equal(got, []string{"/city: got null, want string"}) {
		t.Errorf("problems %q", got)
	}
}

// BenchmarkCheck is the cost of checking one answer: a review of 50
// findings against the schema of one, read once.
func BenchmarkCheck(b *testing.B) {
	s, err := Parse(`{"type":"object","properties":{"verdict":{"type":"string","enum":["pass","fail"]},"findings":{"type":"array","items":{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer","minimum":1},"note":{"type":"string"}},"required":["file","line","note"],"additionalProperties":false}}},"required":["verdict","findings"],"additionalProperties":false}`)
	if err != nil {
		b.Fatal(err)
	}
	var t strings.Builder
	t.WriteString(`{"verdict":"fail","findings":[`)
	for i := range 50 {
		if i > 0 {
			t.WriteByte(',')
		}
		t.WriteString(`{"file":"pkg/x/y.go","line":12,"note":"the error is dropped: return it, wrapped with the path"}`)
	}
	t.WriteString(`]}`)
	text := t.String()
	for b.Loop() {
		if a := s.Check(text, true); !a.OK() {
			b.Fatal(a.Problems)
		}
	}
}

// BenchmarkParse is the cost of reading a schema: a concise one, and the
// meta-schema check of a JSON one (the first read loads the meta-schemas).
func BenchmarkParse(b *testing.B) {
	for _, schema := range []string{"verdict, score int, reasons: why", citySchema} {
		b.Run(string(mustParseForm(b, schema)), func(b *testing.B) {
			for b.Loop() {
				if _, err := Parse(schema); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func mustParseForm(b *testing.B, schema string) Form {
	s, err := Parse(schema)
	if err != nil {
		b.Fatal(err)
	}
	return s.Form()
}
