package recordschema

import (
	"encoding/json"
	"strings"
	"testing"
)

// The schema is one of the four records, each defined, and the same
// bytes every time (docs/transcript.md holds them).
func TestJSON(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OneOf []struct {
			Ref string `json:"$ref"`
		} `json:"oneOf"`
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.OneOf) != 4 {
		t.Fatalf("%d records, want 4", len(doc.OneOf))
	}
	for _, r := range doc.OneOf {
		name := strings.TrimPrefix(r.Ref, "#/$defs/")
		if _, ok := doc.Defs[name]; !ok {
			t.Errorf("%s is not defined", r.Ref)
		}
	}
	again, _ := JSON()
	if string(again) != string(b) {
		t.Error("the schema differs from one call to the next")
	}
}
