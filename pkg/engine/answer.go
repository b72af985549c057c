package engine

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// A run's final answer held to a schema (--schema): the schema in the form
// the run's API takes, or said in the system prompt; the check the loop
// is given; and what the transcript's header records of it. The loop
// knows none of JSON Schema, and the schema's package none of the loop:
// this is where the two meet.

// Schema modes: how the schema goes to the model (--schema-mode).
const (
	// SchemaNative sends it in the API's structured output field.
	SchemaNative = transcript.SchemaNative
	// SchemaPrompt says it in the system prompt, for a server that has
	// no structured output or refuses it.
	SchemaPrompt = transcript.SchemaPrompt
)

// CheckSchemaMode says what is wrong with a --schema-mode value, or nil.
func CheckSchemaMode(mode string) error {
	switch mode {
	case SchemaNative, SchemaPrompt:
		return nil
	}
	return fmt.Errorf("--schema-mode %q: want native or prompt", mode)
}

// Answer is the schema a run's final answer must match, and how it is
// held to it.
type Answer struct {
	Schema *answerschema.Schema
	// Mode is SchemaNative or SchemaPrompt.
	Mode string
	// Retries is how many times an answer that does not match is sent
	// back for another.
	Retries int
}

// setup is the loop's answer spec and the header's record for a run of
// the shape; nil and nil without a schema. In native mode the schema goes
// in the API's form: OpenAI's strict form, or the schema as it is with
// strict false when strict mode cannot express it; Anthropic's form, or,
// for a schema Anthropic's structured outputs cannot take (there is no
// unenforced form to send), the system prompt, with a note saying why.
func (a *Answer) setup(shape wire.Shape) (*agent.AnswerSpec, *transcript.AnswerSchema) {
	if a == nil || a.Schema == nil {
		return nil, nil
	}
	s, mode, retries := a.Schema, a.Mode, a.Retries
	rec := &transcript.AnswerSchema{Schema: s.JSON(), Mode: mode, Retries: retries}
	spec := &agent.AnswerSpec{Retries: retries}
	strict := false
	if mode == SchemaNative {
		var w answerschema.Wire
		if shape.StrictAnswerSchema() {
			w = s.OpenAI()
			strict = w.Enforced
			rec.Name, rec.Strict = s.Name(), strict
		} else {
			w = s.Anthropic()
		}
		switch {
		case !w.Enforced:
			rec.Note = w.Why
		case len(w.Loosened) > 0:
			// Said to the model in the schema's descriptions, and held
			// by the check here.
			rec.Note = "left out of what the API is sent, checked here: " + strings.Join(w.Loosened, ", ")
		}
		if w.Schema != nil {
			spec.Format = &agent.AnswerFormat{Name: rec.Name, Schema: w.Schema, Strict: strict}
			rec.Sent = w.Schema
		} else {
			rec.Mode = SchemaPrompt
			rec.Note += "; the schema is said in the system prompt instead"
		}
	}
	if rec.Mode == SchemaPrompt {
		spec.Instructions = s.Prompt()
		rec.Prompt = spec.Instructions
	}
	spec.Check = func(text string) agent.AnswerCheck {
		a := s.Check(text, strict)
		c := agent.AnswerCheck{OK: a.OK(), JSON: a.JSON}
		for _, p := range a.Problems {
			c.Problems = append(c.Problems, p.String())
		}
		if !c.OK {
			c.Feedback = a.Feedback()
		}
		return c
	}
	return spec, rec
}

// RecordedAnswer is the answer schema a run that goes on with a recording
// (run -c, replay --resume) is held to: the one its header records, with
// its retries and mode, as recorded unless given names the settings a
// flag or a variable gave ("schema", "schema_retries", "schema_mode"; a
// schema given, even "", keeps a's). a is what the settings say, nil for
// no schema.
func RecordedAnswer(h *transcript.Header, a *Answer, given map[string]bool) (*Answer, error) {
	if h == nil || h.AnswerSchema == nil || given["schema"] {
		return a, nil
	}
	rec := h.AnswerSchema
	s, err := answerschema.FromJSON(rec.Schema, "")
	if err != nil {
		return nil, fmt.Errorf("the schema its header records cannot be read: %v", err)
	}
	out := &Answer{Schema: s, Mode: rec.Mode, Retries: rec.Retries}
	if a != nil && given["schema_retries"] {
		out.Retries = a.Retries
	}
	switch {
	case a != nil && given["schema_mode"]:
		out.Mode = a.Mode
	case CheckSchemaMode(rec.Mode) != nil:
		out.Mode = SchemaNative
	}
	return out, nil
}

// SchemaGiven says which of schema, schema_retries and schema_mode a flag
// or a variable gave in cfg: what a recorded schema does not override.
func SchemaGiven(cfg *config.Config) map[string]bool {
	given := map[string]bool{}
	for _, k := range []string{"schema", "schema_retries", "schema_mode"} {
		src := cfg.Source(k).Kind
		given[k] = src == config.SourceFlag || src == config.SourceEnv
	}
	return given
}

// SchemaMismatch says that a run's answer still did not match the schema
// after its retries, and what failed.
func SchemaMismatch(retries int, out *agent.Outcome) string {
	msg := "the answer does not match the schema"
	if retries > 0 {
		msg += fmt.Sprintf(", after %d %s", retries, english.Plural(retries, "retry", "retries"))
	}
	if c := out.Checked; c != nil && len(c.Problems) > 0 {
		msg += ": " + strings.Join(c.Problems, "; ")
	}
	return msg
}
