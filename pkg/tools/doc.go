// Package tools turns the YAML tool definitions of a tools.d folder into the
// function definitions a model is offered, checks the arguments of each call
// against the tool's JSON Schema, and runs the tool's executable.
//
// A Registry is built once by Load and is safe for concurrent use. Call never
// returns a Go error for a tool's failure: an unknown tool, arguments that do
// not match the schema, a non-zero exit, a timeout or a cancellation are all
// Results with IsError set, so the loop can hand them to the model as
// observations. The executor contract (arguments as JSON on stdin and as
// ARG_* variables, a minimal environment, a process group killed on timeout,
// capped output) is described in docs/tools.md.
package tools
