package transcript

import (
	"encoding/json"
	"strings"

	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
	"github.com/agentloop/agentloop/pkg/wire"
)

// answerCheck is validate's answer-schema rule: a transcript whose header
// records an answer schema (run --schema) ends with a final answer that
// matches it. It keeps the line of the last message that may be the final
// answer (an assistant message without calls, after which nothing but a
// Responses reasoning item came), and checks it when the end record says
// the run ended with an answer.
type answerCheck struct {
	schema *answerschema.Schema
	strict bool
	// line is the final answer's line so far, and n its number (0: none).
	line []byte
	n    int
}

// header reads the header's answer_schema, when it has one.
func (a *answerCheck) header(f *check.File, n int, raw []byte) {
	if len(raw) == 0 {
		return
	}
	var as AnswerSchema
	if err := json.Unmarshal(raw, &as); err != nil {
		f.Finding(n, check.Error, "invalid-record", "header record: \"answer_schema\": %v", err)
		return
	}
	if len(as.Schema) == 0 {
		f.Finding(n, check.Error, "answer-schema", "the header's answer_schema holds no schema: the final answer cannot be checked")
		return
	}
	s, err := answerschema.FromJSON(as.Schema, "")
	if err != nil {
		f.Finding(n, check.Error, "answer-schema", "the header's answer schema cannot be read: %v", err)
		return
	}
	a.schema, a.strict = s, as.Strict
}

// message notes a message record: the final answer so far, or the end of
// one.
func (a *answerCheck) message(f *check.File, n int, line []byte, m *check.Msg) {
	if a.schema == nil {
		return
	}
	calls := 0
	m.Calls(func(_, _ []byte) { calls++ })
	switch {
	case calls == 0 && string(m.Role()) == "assistant":
		a.line, a.n = append(a.line[:0], line...), n
	case calls == 0 && !m.HasRole() && string(m.Type()) == "reasoning":
		// Before the message item of its turn.
	default:
		a.line, a.n = a.line[:0], 0
	}
}

// end checks the final answer of a run that ended with one: answered
// (stop), given up on for not matching (schema), or the last answer a
// budget allowed.
func (a *answerCheck) end(f *check.File, reason string) {
	if a.schema == nil {
		return
	}
	switch reason {
	case wire.ReasonStop, wire.ReasonSchema:
	case wire.ReasonMaxSteps, wire.ReasonBudget, wire.ReasonContext:
		if a.n == 0 {
			return // the budget ended the run before an answer
		}
	default:
		return
	}
	if a.n == 0 {
		f.Finding(0, check.Error, "answer-schema", "the run ended with reason %q, but no final answer follows the last tool call", reason)
		return
	}
	var rec struct {
		Message json.RawMessage `json:"message"`
	}
	if json.Unmarshal(a.line, &rec) != nil {
		return // reported as a record that is not JSON
	}
	_, text := MessageText(rec.Message)
	ans := a.schema.Check(text, a.strict)
	if ans.OK() {
		return
	}
	problems := make([]string, len(ans.Problems))
	for i, p := range ans.Problems {
		problems[i] = p.String()
	}
	f.Finding(a.n, check.Error, "answer-schema", "the final answer does not match the schema the header records: %s", strings.Join(problems, "; "))
}
