package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript/recordschema"
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
			b, err := recordschema.JSON()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(ios.Out, "%s\n", b)
			return err
		},
	})
	return c
}
