package transcript

import (
	"context"
	"io"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// ToolChecker knows the tools a run may call. The checker asks it about
// every call when tool definitions are at hand (agentloop validate
// --tools-dir); *tools.Registry implements it.
type ToolChecker = check.ToolChecker

// Options say how to read and judge the input. The zero value detects the
// input format and the shape of each conversation.
type Options = check.Options

// Finding is one problem found.
type Finding = check.Finding

// Stats count what was checked.
type Stats = check.Stats

// Severity says whether a finding makes a transcript one the API would
// refuse (Error) or one that is accepted but risky (Warning).
type Severity = check.Severity

// Severities, in increasing order.
const (
	Warning = check.Warning
	Error   = check.Error
)

// Code describes one kind of finding. Codes are stable: scripts match on them.
type Code = check.Code

// Evidence for the errors of Codes.
const (
	EvidenceRecorded = check.EvidenceRecorded
	EvidenceReported = check.EvidenceReported
	EvidenceInferred = check.EvidenceInferred
)

// Codes is every finding the checker reports, in the order of the rules.
var Codes = check.Codes

// LookupCode returns the description of a code.
func LookupCode(code string) (Code, bool) { return check.LookupCode(code) }

// ShapeRule is a rule of Amazon Bedrock Converse or Ollama, shapes checked
// with the Anthropic or the Chat Completions rules: the severity the shape
// gives a code and the evidence for it.
type ShapeRule = check.ShapeRule

// ShapeRules are the rules of Bedrock Converse and Ollama, in the order
// docs/validate.md lists them.
var ShapeRules = check.ShapeRules

// Validate checks the transcript or message log read from r, named name in
// findings, and calls emit for each finding. The error is non-nil only when
// r cannot be read or opts are invalid; what is wrong with the content is
// reported through emit. The file's format is the one of Formats whose
// sniff is surest of it, or the one Options.Input names.
//
// Findings come in file order, but for those that wait on what follows,
// which come once it is read, still with the line they are about: calls a
// merged Anthropic user turn leaves unanswered, at the end of the turn; and
// at the end of a conversation or request body, a last assistant message
// without its thinking block, Responses outputs that previous_response_id
// might account for, Responses reasoning items without their ciphertext
// (which matter only if store is false), and calls to tools that a later
// tools list might define.
//
// Memory is the largest line (or, for a whole-file JSON document, the
// largest message), plus what the current conversation has seen: the calls
// of its last turn, and every call id it has used, to find reused ids (and,
// for OpenAI Responses items, one id per reasoning item). The
// ids grow with the number of calls, by 30 to 40 bytes of heap a call
// (5.5 MiB for the 200,000 calls of a 1 GB agentloop transcript, 73 MiB for
// 2 million).
func Validate(name string, r io.Reader, opts Options, emit func(Finding)) (Stats, error) {
	return ValidateContext(context.Background(), name, r, opts, emit)
}

// ValidateContext is Validate that stops, returning ctx's error, when ctx
// is done. A read that blocks (a FIFO, a terminal) is not interrupted: a
// caller that must stop at once stops waiting for it.
func ValidateContext(ctx context.Context, name string, r io.Reader, opts Options, emit func(Finding)) (Stats, error) {
	return check.Validate(ctx, registry, name, r, opts, emit)
}
