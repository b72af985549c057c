package runview

import (
	"encoding/json"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// The value is compact when a program reads it, indented on a terminal,
// its members and numbers as the model wrote them; nothing is printed of
// an answer that did not match, or of a run that ended without one.
func TestSchemaAnswer(t *testing.T) {
	ok := &agent.Outcome{Reason: wire.ReasonStop, Checked: &agent.AnswerCheck{OK: true, JSON: json.RawMessage(`{"z":1.50,"a":[1,2]}`)}}
	if got := string(SchemaAnswer(ok, false)); got != `{"z":1.50,"a":[1,2]}`+"\n" {
		t.Errorf("piped: %q", got)
	}
	if got := string(SchemaAnswer(ok, true)); got != "{\n  \"z\": 1.50,\n  \"a\": [\n    1,\n    2\n  ]\n}\n" {
		t.Errorf("terminal: %q", got)
	}
	budget := &agent.Outcome{Reason: wire.ReasonMaxSteps, Exhausted: agent.ExhaustedSteps, Checked: ok.Checked}
	if SchemaAnswer(budget, false) == nil {
		t.Error("a budget's matching answer is not printed")
	}
	for _, out := range []*agent.Outcome{
		{Reason: wire.ReasonSchema, Checked: &agent.AnswerCheck{Problems: []string{"/a: missing required property"}}},
		{Reason: wire.ReasonMaxTokens},
		{Reason: wire.ReasonError, Checked: ok.Checked},
	} {
		if v := SchemaAnswer(out, false); v != nil {
			t.Errorf("%s: printed %q", out.Reason, v)
		}
	}
}

// run --json says the answer's value and whether it matched only for a
// run with a schema; one that did not match has a null value and its
// problems.
func TestNewResultSchema(t *testing.T) {
	out := &agent.Outcome{Reason: wire.ReasonSchema, Checked: &agent.AnswerCheck{Problems: []string{"/a: missing"}}}
	b, _ := json.Marshal(NewResult(out, "", nil, true))
	var m map[string]any
	json.Unmarshal(b, &m)
	if v, ok := m["answer_json"]; !ok || v != nil || m["schema_ok"] != false || m["schema_problems"] == nil {
		t.Errorf("with a schema: %s", b)
	}
	b, _ = json.Marshal(NewResult(out, "", nil, false))
	m = nil
	json.Unmarshal(b, &m)
	if _, ok := m["schema_ok"]; ok {
		t.Errorf("without a schema: %s", b)
	}
}
