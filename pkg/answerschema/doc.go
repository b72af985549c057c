// Package answerschema holds a run's final answer to a JSON Schema: it
// reads the schema the user gives (a JSON Schema file, a JSON Schema
// written out, or llm's concise form, "verdict, score int, reasons: why"),
// checks an answer's text against it and words every problem for the
// model and the user, and makes the forms of the schema the APIs are sent
// (OpenAI's strict form, Anthropic's structured outputs) and the name it
// is sent under.
//
// The user's schema is the one that checks the answer, whatever form of
// it an API was sent: what a form cannot say is left to the check here.
//
// Nothing is computed when the package is initialised, so a run without a
// schema pays nothing for it; a schema is compiled when it is read. A
// Schema is not changed by its use: one may check the answers of many runs
// at once.
package answerschema
