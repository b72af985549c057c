package transcript

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestHeaderToolNames: the names of recorded tool definitions of each wire
// shape, in order; a definition that is not an object is passed over.
func TestHeaderToolNames(t *testing.T) {
	h := Header{Tools: []json.RawMessage{
		json.RawMessage(`{"type":"function","function":{"name":"read_file","parameters":{}}}`),
		json.RawMessage(`{"name":"now","input_schema":{"type":"object"}}`),
		json.RawMessage(`{"type":"function","name":"grep","parameters":{}}`),
		json.RawMessage(`"not a definition"`),
	}}
	if got, want := h.ToolNames(), []string{"read_file", "now", "grep"}; !slices.Equal(got, want) {
		t.Errorf("ToolNames() = %q, want %q", got, want)
	}
	if got := (&Header{}).ToolNames(); got != nil {
		t.Errorf("no tools: %q", got)
	}
}
