package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

func newCmdSchema(ios *iostreams.IOStreams) *cobra.Command {
	c := &cobra.Command{
		Use:     "schema",
		Short:   "Print JSON Schemas of agentloop's file formats",
		Example: `  agentloop schema transcript > transcript.schema.json`,
		Args:    noArgs,
		RunE:    func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(&cobra.Command{
		Use:     "transcript",
		Short:   "Print the JSON Schema of a transcript record (one line of a transcript)",
		Example: "  agentloop schema transcript > transcript.schema.json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			b, err := TranscriptSchema()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(ios.Out, "%s\n", b)
			return err
		},
	})
	return c
}

// TranscriptSchema is the JSON Schema of one transcript line, reflected from
// the record types: a header, a message, a result or an end record.
func TranscriptSchema() ([]byte, error) {
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
