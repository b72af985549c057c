package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/answerschema"
	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// schemaOptions hold a run's final answer to a schema (--schema): the
// flags as given, and the schema once read. A run without one reads
// nothing and sets nothing up.
type schemaOptions struct {
	Arg     string
	Retries int
	Mode    string
	// schema is Arg read; nil for a run without one.
	schema *answerschema.Schema
	// given says which of schema, schema_retries and schema_mode a flag
	// or a variable gave: what a recorded schema does not override.
	given map[string]bool
}

func addSchemaFlags(f *pflag.FlagSet, o *schemaOptions) {
	f.StringVar(&o.Arg, "schema", "", "the final answer must be one JSON value matching `SCHEMA`: a JSON Schema file, a JSON Schema written out, or llm's concise form ('verdict, score int'); stdout is the value, and it exits 5 when the answer still does not match")
	f.IntVar(&o.Retries, "schema-retries", config.DefaultSchemaRetries, "how many times (`N`) an answer that does not match --schema is sent back, with what failed, for another")
	f.StringVar(&o.Mode, "schema-mode", engine.SchemaNative, "how --schema goes to the model: native (the API's structured output field) or prompt (the system prompt)")
}

// useConfig takes the settings of a configuration and reads the schema
// they name, if any: a schema that cannot be used is a usage error before
// anything runs.
func (o *schemaOptions) useConfig(cfg *config.Config) error {
	o.Arg, o.Retries, o.Mode = cfg.Schema, cfg.SchemaRetries, cfg.SchemaMode
	o.schema = nil
	o.given = engine.SchemaGiven(cfg)
	if err := engine.CheckSchemaMode(o.Mode); err != nil {
		return flagErrorf("%v", err)
	}
	if o.Arg == "" {
		return nil
	}
	s, err := answerschema.Parse(o.Arg)
	if err != nil {
		return flagErrorf("%s: %v", schemaSetting(cfg), err)
	}
	o.schema = s
	return nil
}

// useRecorded goes on with a recorded run (run -c, replay --resume) held
// to the schema its header records, as recorded unless a flag or a
// variable says otherwise (an empty --schema holds it to none).
func (o *schemaOptions) useRecorded(h *transcript.Header, path string) error {
	cur := &engine.Answer{Schema: o.schema, Mode: o.Mode, Retries: o.Retries}
	a, err := engine.RecordedAnswer(h, cur, o.given)
	if err != nil {
		return fmt.Errorf("%s: %v; give --schema (or --schema '' for none)", path, err)
	}
	o.schema, o.Mode, o.Retries = a.Schema, a.Mode, a.Retries
	return nil
}

// schemaSetting names where the schema was given, for its errors.
func schemaSetting(cfg *config.Config) string {
	if name := settingName(cfg.Source("schema"), "schema"); name != "" {
		return name
	}
	return "--schema"
}

// with is the options for one run whose own schema (a batch item's)
// replaces the run's; o when it has none.
func (o *schemaOptions) with(own *answerschema.Schema) *schemaOptions {
	if own == nil {
		return o
	}
	c := *o
	c.schema = own
	return &c
}

// engine is the run's schema as the engine takes it; nil for a run
// without one.
func (o *schemaOptions) engine() *engine.Answer {
	if !o.on() {
		return nil
	}
	return &engine.Answer{Schema: o.schema, Mode: o.Mode, Retries: o.Retries}
}

// on reports whether the run holds its answer to a schema.
func (o *schemaOptions) on() bool { return o != nil && o.schema != nil }

// printSchemaAnswer prints the value of a run with a schema, its text
// made safe for a terminal as any JSON agentloop prints.
func printSchemaAnswer(ios *iostreams.IOStreams, out *agent.Outcome) {
	if v := runview.SchemaAnswer(out, ios.IsStdoutTTY()); v != nil {
		io.WriteString(ios.Out, terminalText(ios, string(v)))
	}
}

// schemaError is the error of a run whose answer still did not match the
// schema after its retries: exit 5, saying what failed.
func schemaError(o *schemaOptions, out *agent.Outcome) error {
	retries := 0
	if o != nil {
		retries = o.Retries
	}
	return &ExitError{Code: ExitSchema, Err: errors.New(termtext.Display(engine.SchemaMismatch(retries, out), 4000))}
}
