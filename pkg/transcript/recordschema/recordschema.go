// Package recordschema publishes the JSON Schema of a transcript's
// records (agentloop schema transcript), reflected from their types.
package recordschema

import (
	"encoding/json"

	"github.com/invopop/jsonschema"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// JSON is the JSON Schema of one transcript line, reflected from
// the record types: a header, a message, a result or an end record.
func JSON() ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:                  true,
		AllowAdditionalProperties:  true,
		RequiredFromJSONSchemaTags: false,
	}
	root := &jsonschema.Schema{
		Version:     jsonschema.Version,
		ID:          "https://github.com/agentloop/agentloop/transcript.schema.json",
		Title:       "agentloop transcript record",
		Description: "One line of an agentloop JSONL transcript: a header first, then message records (with result records for calls that finished while others of their turn ran), then an end record.",
		Definitions: jsonschema.Definitions{},
	}
	for _, v := range []any{&transcript.Header{}, &transcript.Message{}, &transcript.CallResult{}, &transcript.End{}} {
		s := r.Reflect(v)
		for name, def := range s.Definitions {
			root.Definitions[name] = def
		}
		root.OneOf = append(root.OneOf, &jsonschema.Schema{Ref: s.Ref})
	}
	return json.MarshalIndent(root, "", "  ")
}
