package answerschema

import (
	"strings"
	"testing"
)

func TestPromptHoldsTheSchemaAsWritten(t *testing.T) {
	s, err := Parse("verdict, score int")
	if err != nil {
		t.Fatal(err)
	}
	p := s.Prompt()
	if !strings.HasSuffix(p, "\n"+string(s.JSON())) {
		t.Errorf("the prompt does not end with the schema:\n%s", p)
	}
	if !strings.Contains(p, "no code fence") {
		t.Errorf("the prompt does not ask for the value alone:\n%s", p)
	}
}
