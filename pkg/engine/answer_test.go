package engine

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

func parse(t *testing.T, s string) *answerschema.Schema {
	t.Helper()
	sch, err := answerschema.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func TestAnswerSetupNative(t *testing.T) {
	s := parse(t, `{"title":"weather","type":"object","properties":{"city":{"type":"string"},"note":{"type":"string"}},"required":["city"]}`)
	for _, shape := range wire.Shapes {
		spec, rec := (&Answer{Schema: s, Mode: SchemaNative, Retries: 2}).setup(shape)
		if spec.Format == nil || spec.Instructions != "" || rec.Mode != SchemaNative || rec.Retries != 2 || spec.Retries != 2 {
			t.Fatalf("%s: spec %+v, record %+v", shape, spec, rec)
		}
		if string(rec.Sent) != string(spec.Format.Schema) || string(rec.Schema) != string(s.JSON()) {
			t.Errorf("%s: records %s as sent, %s as the schema", shape, rec.Sent, rec.Schema)
		}
		if shape.StrictAnswerSchema() {
			if !spec.Format.Strict || spec.Format.Name != "weather" || !rec.Strict {
				t.Errorf("%s: format %+v", shape, spec.Format)
			}
			// The optional note went nullable; its null means "not given".
			if c := spec.Check(`{"city":"Paris","note":null}`); !c.OK || string(c.JSON) != `{"city":"Paris"}` {
				t.Errorf("%s: a strict null is not dropped: %+v", shape, c)
			}
		} else if c := spec.Check(`{"city":"Paris","note":null}`); c.OK {
			t.Errorf("%s: a null the schema does not take passes", shape)
		}
	}
}

// A schema an API's enforced form cannot hold: OpenAI's is sent as it is,
// not strict; Anthropic has no such form, and the schema goes in the
// system prompt. Both say why.
func TestAnswerSetupUnenforced(t *testing.T) {
	s := parse(t, `{"type":"object","properties":{"labels":{"type":"object","additionalProperties":{"type":"string"}}},"required":["labels"]}`)
	spec, rec := (&Answer{Schema: s, Mode: SchemaNative, Retries: 1}).setup(wire.Chat)
	if spec.Format == nil || spec.Format.Strict || rec.Strict || !strings.Contains(rec.Note, "/properties/labels") {
		t.Errorf("chat: format %+v, record %+v", spec.Format, rec)
	}
	spec, rec = (&Answer{Schema: s, Mode: SchemaNative, Retries: 1}).setup(wire.Messages)
	if spec.Format != nil || rec.Mode != SchemaPrompt || !strings.Contains(spec.Instructions, string(s.JSON())) || rec.Prompt != spec.Instructions {
		t.Errorf("anthropic: spec %+v, record %+v", spec, rec)
	}
	if !strings.Contains(rec.Note, "system prompt instead") {
		t.Errorf("anthropic: note %q", rec.Note)
	}
}

func TestAnswerSetupPrompt(t *testing.T) {
	s := parse(t, "verdict, score int")
	spec, rec := (&Answer{Schema: s, Mode: SchemaPrompt}).setup(wire.Responses)
	if spec.Format != nil || spec.Instructions == "" || rec.Sent != nil || rec.Mode != SchemaPrompt || rec.Name != "" {
		t.Errorf("spec %+v, record %+v", spec, rec)
	}
	c := spec.Check("```json\n{}\n```")
	if c.OK || !strings.Contains(c.Feedback, "code fence") || len(c.Problems) != 1 {
		t.Errorf("check %+v", c)
	}
	if c := spec.Check(`{"verdict":"pass","score":2}`); !c.OK || c.Feedback != "" {
		t.Errorf("check %+v", c)
	}
}

func TestCheckSchemaMode(t *testing.T) {
	if CheckSchemaMode("native") != nil || CheckSchemaMode("prompt") != nil || CheckSchemaMode("tool") == nil {
		t.Error("modes")
	}
}

func TestAnswerSetupNone(t *testing.T) {
	var a *Answer
	if spec, rec := a.setup(wire.Chat); spec != nil || rec != nil {
		t.Error("a run without a schema gets one")
	}
}

// What an API's form leaves out is named in the note, and still checked.
func TestAnswerSetupLoosened(t *testing.T) {
	s := parse(t, `{"type":"object","properties":{"line":{"type":"integer","minimum":1}},"required":["line"],"additionalProperties":false}`)
	spec, rec := (&Answer{Schema: s, Mode: SchemaNative, Retries: 1}).setup(wire.Messages)
	if spec.Format == nil || rec.Note != "left out of what the API is sent, checked here: /properties/line/minimum" {
		t.Fatalf("note %q", rec.Note)
	}
	if strings.Contains(string(rec.Sent), `"minimum"`) {
		t.Errorf("sent %s", rec.Sent)
	}
	if c := spec.Check(`{"line":0}`); c.OK || !strings.HasPrefix(c.Problems[0], "/line") {
		t.Errorf("check %+v", c)
	}
}

// A run that goes on with a recording is held to its schema, as recorded
// unless a flag or a variable says otherwise.
func TestRecordedAnswer(t *testing.T) {
	h := &transcript.Header{AnswerSchema: &transcript.AnswerSchema{Schema: []byte(`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`), Mode: SchemaPrompt, Retries: 3}}
	file := &Answer{Mode: SchemaNative, Retries: 1}
	a, err := RecordedAnswer(h, file, map[string]bool{})
	if err != nil || a.Schema == nil || a.Mode != SchemaPrompt || a.Retries != 3 {
		t.Fatalf("as recorded: %+v %v", a, err)
	}
	a, _ = RecordedAnswer(h, file, map[string]bool{"schema_retries": true})
	if a.Retries != 1 || a.Mode != SchemaPrompt {
		t.Errorf("retries given: %+v", a)
	}
	a, _ = RecordedAnswer(h, &Answer{Mode: SchemaNative}, map[string]bool{"schema": true})
	if a.Schema != nil {
		t.Errorf("--schema '' keeps the recorded schema: %+v", a)
	}
	if a, _ := RecordedAnswer(&transcript.Header{}, file, nil); a != file {
		t.Errorf("no recorded schema: %+v", a)
	}
	h.AnswerSchema.Schema = []byte(`{"type":"object","required":"a"}`)
	if _, err := RecordedAnswer(h, file, nil); err == nil {
		t.Error("a recorded schema that cannot be read passes")
	}
}

// What a flag or a variable gave of the schema's settings is theirs; what
// is left to defaults a recorded schema may set.
func TestSchemaGiven(t *testing.T) {
	cfg, err := config.Resolve(config.Input{
		Flag: func(name string) (string, []string, bool) {
			if name == "schema-retries" {
				return "3", []string{"3"}, true
			}
			return "", nil, false
		},
		Getenv: func(k string) string { return map[string]string{"AGENTLOOP_SCHEMA_MODE": "prompt"}[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	got := SchemaGiven(cfg)
	if got["schema"] || !got["schema_retries"] || !got["schema_mode"] {
		t.Errorf("%v", got)
	}
}

func TestSchemaMismatch(t *testing.T) {
	out := &agent.Outcome{Checked: &agent.AnswerCheck{Problems: []string{"/score: not an integer", "/verdict: missing"}}}
	if got := SchemaMismatch(2, out); got != "the answer does not match the schema, after 2 retries: /score: not an integer; /verdict: missing" {
		t.Errorf("%q", got)
	}
	if got := SchemaMismatch(0, &agent.Outcome{}); got != "the answer does not match the schema" {
		t.Errorf("%q", got)
	}
}
