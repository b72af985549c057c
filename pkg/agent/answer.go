package agent

import (
	"encoding/json"
	"strings"
)

// AnswerSpec holds a run's final answer to a schema. The loop does not
// know JSON Schema: it is given the check, and asks again with what the
// check says when an answer does not match.
//
// The schema governs the answer only: turns that call tools are not
// checked, and the tools stay offered. An answer is a turn without calls
// that ends the run (stop), or the answer to the last request a budget
// allows, which is checked but not asked again (no request is left).
type AnswerSpec struct {
	// Format is sent with every request, the last a budget allows
	// included; nil sends none (the schema is then in Instructions).
	Format *AnswerFormat
	// Instructions are appended to the system prompt of every request
	// (the schema in words, for a server without structured output).
	Instructions string
	// Check reads a final answer's text against the schema.
	Check func(text string) AnswerCheck
	// Retries is how many times an answer that does not match is sent
	// back, with what is wrong with it, for another. Each retry is a model
	// call: a step, which the budgets count.
	Retries int
}

// AnswerCheck is a final answer checked against the schema.
type AnswerCheck struct {
	OK bool
	// JSON is the answer's value as compact JSON, when its text is one
	// JSON value; nil otherwise.
	JSON json.RawMessage
	// Problems are what does not match, each at its JSON pointer.
	Problems []string
	// Feedback is what the model is told when the answer does not match.
	Feedback string
}

// system is the system prompt a request carries: the loop's, and the
// answer's instructions after it.
func (l *Loop) system() string {
	if l.Answer == nil || l.Answer.Instructions == "" {
		return l.System
	}
	if l.System == "" {
		return l.Answer.Instructions
	}
	return l.System + "\n\n" + l.Answer.Instructions
}

// answerFormat is the structured output a request asks for, or nil.
func (l *Loop) answerFormat() *AnswerFormat {
	if l.Answer == nil {
		return nil
	}
	return l.Answer.Format
}

// answerFormatBytes is about what the structured output field adds to
// each request, for the budgets' estimate.
func (l *Loop) answerFormatBytes() int {
	if f := l.answerFormat(); f != nil {
		return len(f.Schema) + len(f.Name) + 64
	}
	return 0
}

// checkAnswer checks a final answer's text, when the loop has a schema,
// and says so to OnEvent (retry: it is sent back for another). It
// returns nil without a schema.
func (l *Loop) checkAnswer(out *Outcome, step int, text string, retriesLeft bool) *AnswerCheck {
	if l.Answer == nil || l.Answer.Check == nil {
		return nil
	}
	c := l.Answer.Check(text)
	out.Checked = &c
	l.emit(Event{Kind: EventAnswerCheck, Step: step, Check: &c, Retry: !c.OK && retriesLeft})
	return &c
}

// schemaEndError is what an end record says of an answer that did not
// match: its problems.
func schemaEndError(c *AnswerCheck) string {
	if c == nil || len(c.Problems) == 0 {
		return "the answer does not match the schema"
	}
	return "the answer does not match the schema: " + strings.Join(c.Problems, "; ")
}
