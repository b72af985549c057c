package transcript

// The kinds of a tool call's result, recorded as a results entry's error.
// Every part that answers a call (the tool executor, the approval between
// the loop and the tools, the loop itself) takes its kind from this one
// table, and replay reads them back from it.
const (
	// KindOK is a call that ran and succeeded: no error.
	KindOK = ""

	// From the tool executor.
	KindUnknownTool  = "unknown_tool"  // no tool of that name is loaded
	KindBadArguments = "bad_arguments" // not JSON, or not what the schema asks
	KindExit         = "exit"          // the tool exited non-zero
	KindTimeout      = "timeout"       // killed at its time limit
	KindStart        = "start"         // the tool could not be started
	KindCanceled     = "canceled"      // the run was interrupted while it ran
	KindBadOutput    = "bad_output"    // output: image or content, and the output is not that

	// From an MCP server.
	KindToolError = "tool_error" // the server's tool answered with isError
	KindServer    = "server"     // the server failed: it exited, could not be reached, or broke the protocol

	// From approval, between the loop and the tools.
	KindDenied  = "denied"  // a person said no, or nobody could be asked
	KindSkipped = "skipped" // an offline replay did not re-run the call

	// From the loop.
	KindDeclined = "declined" // not run: the turn was refused or cut off
	KindPanic    = "panic"    // the executor panicked
)

// ResultKinds are the kinds of a failed call, in the order the documentation
// lists them.
var ResultKinds = []string{
	KindUnknownTool, KindBadArguments, KindExit, KindTimeout, KindStart, KindCanceled, KindBadOutput,
	KindToolError, KindServer,
	KindDenied, KindSkipped, KindDeclined, KindPanic,
}

// NotRun reports whether a result of this kind answered a call without
// running it: a person or the flags kept it from running, or the loop
// declined it. Replaying such a call must not run it either.
func NotRun(kind string) bool {
	switch kind {
	case KindDenied, KindSkipped, KindDeclined:
		return true
	}
	return false
}

// SourceMCP is a result's source when the tool is one of an MCP server's;
// a script tool's result has no source.
const SourceMCP = "mcp"
