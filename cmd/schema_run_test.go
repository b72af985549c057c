package cmd

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

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
