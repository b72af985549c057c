package tools

import (
	"bytes"
	"encoding/json"
	"testing"
)

const weatherYAML = `name: get_weather
description: Current weather for a city.
parameters:
  city:  {type: string, description: "City name, e.g. Paris"}
  units: {type: string, enum: [c, f], default: c, required: false}
  days:  {type: integer, description: Forecast days, required: false}
  tags:  {type: array, items: {type: string}, required: false}
  where:
    type: object
    required: false
    properties:
      lat: {type: number}
      lon: {type: number}
      exact: {type: boolean, required: false, default: false}
run: tool.sh
`

func TestSchemaBytes(t *testing.T) {
	tests := []struct {
		name   string
		strict bool
		want   string
	}{
		{
			name: "plain",
			want: `{"properties":{` +
				`"city":{"type":"string","description":"City name, e.g. Paris"},` +
				`"units":{"type":"string","enum":["c","f"],"default":"c"},` +
				`"days":{"type":"integer","description":"Forecast days"},` +
				`"tags":{"items":{"type":"string"},"type":"array"},` +
				`"where":{"properties":{"lat":{"type":"number"},"lon":{"type":"number"},"exact":{"type":"boolean","default":false}},` +
				`"additionalProperties":false,"type":"object","required":["lat","lon"]}},` +
				`"additionalProperties":false,"type":"object","required":["city"]}`,
		},
		{
			name:   "strict",
			strict: true,
			want: `{"properties":{` +
				`"city":{"type":"string","description":"City name, e.g. Paris"},` +
				`"units":{"enum":["c","f",null],"description":"(null means the default, \"c\")","type":["string","null"]},` +
				`"days":{"description":"Forecast days","type":["integer","null"]},` +
				`"tags":{"items":{"type":"string"},"type":["array","null"]},` +
				`"where":{"properties":{"lat":{"type":"number"},"lon":{"type":"number"},"exact":{"description":"(null means the default, false)","type":["boolean","null"]}},` +
				`"additionalProperties":false,"required":["lat","lon","exact"],"type":["object","null"]}},` +
				`"additionalProperties":false,"type":"object","required":["city","units","days","tags","where"]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			y := weatherYAML
			if tt.strict {
				y += "strict: true\n"
			}
			var first json.RawMessage
			// The same definition gives the same bytes, load after load.
			for i := range 20 {
				r := loadOne(t, y, okScript, Options{})
				d, _ := r.Lookup("get_weather")
				if i == 0 {
					first = d.Parameters
					if string(d.Parameters) != tt.want {
						t.Fatalf("schema:\n got  %s\n want %s", d.Parameters, tt.want)
					}
				} else if !bytes.Equal(first, d.Parameters) {
					t.Fatalf("load %d gave different bytes:\n%s\n%s", i, first, d.Parameters)
				}
				if !json.Valid(d.Parameters) {
					t.Fatalf("not JSON: %s", d.Parameters)
				}
			}
		})
	}
}

func TestSchemaNoParameters(t *testing.T) {
	for _, y := range []string{
		"name: now\ndescription: d\nrun: tool.sh\n",
		"name: now\ndescription: d\nrun: tool.sh\nparameters:\n",
		"name: now\ndescription: d\nrun: tool.sh\nparameters: {}\n",
	} {
		r := loadOne(t, y, okScript, Options{})
		d, _ := r.Lookup("now")
		if want := `{"properties":{},"additionalProperties":false,"type":"object"}`; string(d.Parameters) != want {
			t.Errorf("schema = %s, want %s", d.Parameters, want)
		}
	}
}

// A schema written out under schema: reaches the model as written, keys in
// the order of the file.
func TestRawSchemaKeepsOrder(t *testing.T) {
	y := `name: search
description: d
run: tool.sh
schema:
  type: object
  properties:
    query: {type: string, minLength: 1}
    limit: {type: integer, minimum: 1, maximum: 50}
    after: {type: string, format: date}
  required: [query]
  additionalProperties: false
`
	r := loadOne(t, y, okScript, Options{})
	d, _ := r.Lookup("search")
	want := `{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":50},"after":{"type":"string","format":"date"}},"required":["query"],"additionalProperties":false}`
	if string(d.Parameters) != want {
		t.Errorf("schema:\n got  %s\n want %s", d.Parameters, want)
	}
	for args, want := range map[string]string{
		`{"query":"x","limit":10}`: "",
		`{"query":""}`:             "invalid arguments for search: /query: minLength: got 0, want 1",
		`{"query":"x","limit":99}`: "invalid arguments for search: /limit: maximum: got 99, want 50",
		`{"limit":1}`:              "invalid arguments for search: /query: missing required property",
		`{"query":"x","sort":1}`:   "invalid arguments for search: /sort: unknown property (accepted: after, limit, query)",
	} {
		err := r.CheckArgs("search", []byte(args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckArgs(%s) = %q, want %q", args, got, want)
		}
	}
}

func TestRawSchemaStrict(t *testing.T) {
	y := `name: s
description: d
run: tool.sh
strict: true
schema:
  type: object
  properties:
    q: {type: string}
    n: {type: [integer, "null"]}
  required: [q, n]
  additionalProperties: false
`
	r := loadOne(t, y, okScript, Options{})
	d, _ := r.Lookup("s")
	if !d.Strict {
		t.Error("strict not set")
	}
	if err := r.CheckArgs("s", []byte(`{"q":"x","n":null}`)); err != nil {
		t.Errorf("null for a nullable property: %v", err)
	}
}
