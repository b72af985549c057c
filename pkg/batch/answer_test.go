package batch

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
)

func TestReadInputSchema(t *testing.T) {
	in := `{"id": "a", "prompt": "p", "schema": {"type": "object", "properties": {"temp": {"type": "integer"}}, "required": ["temp"]}}` + "\n" +
		`{"id": "b", "prompt": "p", "schema": "verdict, score int"}` + "\n" +
		`{"id": "c", "prompt": "p"}`
	items, err := ReadInput(strings.NewReader(in), "in.jsonl", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if items[0].Schema == nil || items[1].Schema == nil || items[2].Schema != nil {
		t.Fatalf("schemas: %v %v %v", items[0].Schema, items[1].Schema, items[2].Schema)
	}
	if a := items[1].Schema.Check(`{"verdict":"pass","score":3}`, false); !a.OK() {
		t.Errorf("the concise schema refuses a matching answer: %v", a.Problems)
	}

	bad := `{"id": "a", "prompt": "p", "schema": 3}` + "\n" +
		`{"id": "b", "prompt": "p", "schema": "score integer"}` + "\n" +
		`{"id": "c", "prompt": "p", "schema": {"type": "object", "required": "temp"}}`
	_, err = ReadInput(strings.NewReader(bad), "in.jsonl", FormatAuto)
	for _, want := range []string{
		`in.jsonl:1: "schema" must be a JSON Schema object or a string as --schema takes it, got a number`,
		`in.jsonl:2: "schema": column 7: "integer" is not a type`,
		`in.jsonl:3: "schema": `,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one with %q", err, want)
		}
	}
}

func TestFromTranscriptAnswerJSON(t *testing.T) {
	d := agent.OpenAIDialect{}
	schemaHdr := strings.TrimSuffix(hdr, "}") + `,"answer_schema":{"schema":{"type":"object","properties":{"temp":{"type":"integer"}},"required":["temp"]},"mode":"native","retries":1}}`
	jsonAnswer := strings.Replace(answer, `"the answer"`, `"{ \"temp\": 21 }"`, 1)
	r := FromTranscript(conv(t, schemaHdr, prompt, calls, res1, jsonAnswer, endStop), d)
	if string(r.AnswerJSON) != `{"temp":21}` || r.SchemaOK == nil || !*r.SchemaOK {
		t.Errorf("answered: %s %v", r.AnswerJSON, r.SchemaOK)
	}
	r = FromTranscript(conv(t, schemaHdr, prompt, calls, res1, answer, strings.Replace(endStop, `"stop"`, `"schema"`, 1)), d)
	if r.AnswerJSON != nil || r.SchemaOK == nil || *r.SchemaOK || r.Answer != "the answer" {
		t.Errorf("gave up: %+v", r)
	}
	r = FromTranscript(conv(t, hdr, prompt, calls, res1, jsonAnswer, endStop), d)
	if r.AnswerJSON != nil || r.SchemaOK != nil {
		t.Errorf("no schema: %+v", r)
	}
}
