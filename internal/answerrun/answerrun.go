// Package answerrun sets a run up to hold its final answer to a schema
// (--schema): the schema in the form the run's API takes, or said in the
// system prompt; the check the loop is given; and what the transcript's
// header records of it. The loop knows none of JSON Schema, and the
// schema's package none of the loop: this is where the two meet.
package answerrun

import (
	"fmt"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Modes: how the schema goes to the model (--schema-mode).
const (
	// Native sends it in the API's structured output field.
	Native = transcript.SchemaNative
	// Prompt says it in the system prompt, for a server that has no
	// structured output or refuses it.
	Prompt = transcript.SchemaPrompt
)

// Modes are the values --schema-mode takes, in the order help lists them.
var Modes = []string{Native, Prompt}

// DefaultRetries is how many times an answer that does not match is sent
// back by default (--schema-retries).
const DefaultRetries = 1

// CheckMode says what is wrong with a --schema-mode value, or nil.
func CheckMode(mode string) error {
	switch mode {
	case Native, Prompt:
		return nil
	}
	return fmt.Errorf("--schema-mode %q: want native or prompt", mode)
}

// Setup is the loop's answer spec and the header's record for a run of
// the shape whose answer must match s. In native mode the schema goes in
// the API's form: OpenAI's strict form, or the schema as it is with
// strict false when strict mode cannot express it; Anthropic's form, or,
// for a schema Anthropic's structured outputs cannot take (there is no
// unenforced form to send), the system prompt, with a note saying why.
func Setup(s *answerschema.Schema, shape wire.Shape, mode string, retries int) (*agent.AnswerSpec, *transcript.AnswerSchema) {
	rec := &transcript.AnswerSchema{Schema: s.JSON(), Mode: mode, Retries: retries}
	spec := &agent.AnswerSpec{Retries: retries}
	strict := false
	if mode == Native {
		var w answerschema.Wire
		if shape.StrictAnswerSchema() {
			w = s.OpenAI()
			strict = w.Enforced
			rec.Name, rec.Strict = s.Name(), strict
		} else {
			w = s.Anthropic()
		}
		if !w.Enforced {
			rec.Note = w.Why
		}
		if w.Schema != nil {
			spec.Format = &agent.AnswerFormat{Name: rec.Name, Schema: w.Schema, Strict: strict}
			rec.Sent = w.Schema
		} else {
			rec.Mode = Prompt
			rec.Note += "; the schema is said in the system prompt instead"
		}
	}
	if rec.Mode == Prompt {
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
