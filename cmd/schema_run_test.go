package cmd

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// The value is compact when a program reads it, indented on a terminal,
// its members and numbers as the model wrote them; nothing is printed of
// an answer that did not match, or of a run that ended without one.
func TestSchemaAnswer(t *testing.T) {
	ok := &agent.Outcome{Reason: wire.ReasonStop, Checked: &agent.AnswerCheck{OK: true, JSON: json.RawMessage(`{"z":1.50,"a":[1,2]}`)}}
	if got := string(schemaAnswer(ok, false)); got != `{"z":1.50,"a":[1,2]}`+"\n" {
		t.Errorf("piped: %q", got)
	}
	if got := string(schemaAnswer(ok, true)); got != "{\n  \"z\": 1.50,\n  \"a\": [\n    1,\n    2\n  ]\n}\n" {
		t.Errorf("terminal: %q", got)
	}
	budget := &agent.Outcome{Reason: wire.ReasonMaxSteps, Exhausted: agent.ExhaustedSteps, Checked: ok.Checked}
	if schemaAnswer(budget, false) == nil {
		t.Error("a budget's matching answer is not printed")
	}
	for _, out := range []*agent.Outcome{
		{Reason: wire.ReasonSchema, Checked: &agent.AnswerCheck{Problems: []string{"/a: missing required property"}}},
		{Reason: wire.ReasonMaxTokens},
		{Reason: wire.ReasonError, Checked: ok.Checked},
	} {
		if v := schemaAnswer(out, false); v != nil {
			t.Errorf("%s: printed %q", out.Reason, v)
		}
	}
}

func TestSchemaError(t *testing.T) {
	out := &agent.Outcome{Reason: wire.ReasonSchema, Checked: &agent.AnswerCheck{Problems: []string{"/a: missing required property", "/b: got string, want integer"}}}
	err := schemaError(&schemaOptions{Retries: 2}, out)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitSchema {
		t.Fatalf("%v", err)
	}
	if want := "the answer does not match the schema, after 2 retries: /a: missing required property; /b: got string, want integer"; err.Error() != want {
		t.Errorf("%q\nwant %q", err, want)
	}
	if err := schemaError(&schemaOptions{}, out); strings.Contains(err.Error(), "retr") {
		t.Errorf("no retries: %q", err)
	}
}
