// Package check is validate's engine: the streaming grammar checker of the
// three wire shapes (OpenAI Chat Completions, OpenAI Responses, Anthropic
// Messages), and what every format reads a file with: the scanner, lines,
// whole-file JSON documents streamed a value at a time, request bodies.
//
// A format (Format, in a folder of its own under pkg/transcript/format) says
// from the head of a file whether the file is its own, and reads it, handing
// each conversation's messages to the checker a message at a time; the
// checker keeps, per conversation, the calls of its last turn and the ids it
// has used, so memory stays bounded by the longest line whatever the size
// of the file. pkg/transcript lists the formats and runs Validate.
package check

import (
	"context"
	"fmt"
	"hash/maphash"
	"io"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/pkg/wire"
)

// ToolChecker knows the tools a run may call. The checker asks it about
// every call when tool definitions are at hand (agentloop validate
// --tools-dir); *tools.Registry implements it.
type ToolChecker interface {
	Has(name string) bool
	// CheckArgs validates a call's arguments, given as a JSON document,
	// against the tool's schema.
	CheckArgs(name string, args []byte) error
}

// Options say how to read and judge the input. The zero value detects the
// input format and the Shape of each conversation.
type Options struct {
	// Input forces the input format (the name of a format); "" detects it.
	Input string
	// Shape forces the Shape of every conversation: "openai" or "anthropic";
	// "" detects it per conversation.
	Shape string
	// Strict reports warnings as errors.
	Strict bool
	// AllowPending accepts a conversation that ends with calls not yet
	// answered (a run in progress).
	AllowPending bool
	// AllowUnchecked accepts, with a warning, a conversation whose tool
	// calls could not be checked (a shape the rules do not cover, a
	// recorded request to an endpoint validate does not read), which is
	// otherwise an error: a file is not passed on calls nobody checked.
	AllowUnchecked bool
	// Tools, when set, must define every tool called, and validates the
	// arguments of each call.
	Tools ToolChecker
	// MaxLine is the longest line, or value of a streamed document, held
	// in memory; a longer one is reported (line-too-long) and passed over.
	// 0 holds any length.
	MaxLine int
}

// Finding is one problem found.
type Finding struct {
	File string `json:"file"`
	// Line is the 1-based line the finding is about; 0 when it is about the
	// file as a whole.
	Line int `json:"line"`
	// Index is the 0-based position of the message in its conversation, or
	// -1 when the finding is not about one message.
	Index int `json:"index"`
	// Path locates the message inside a JSON document ("messages[3]",
	// "input[2]") when a line or file holds many; empty otherwise.
	Path     string   `json:"path,omitempty"`
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	// IDs are the tool call ids involved, if any.
	IDs []string `json:"ids,omitempty"`
	// Status is the HTTP status recorded for the request the finding is
	// about (cassettes, HAR files); 0 when none was.
	Status int `json:"status,omitempty"`
}

// Confirmed reports whether the API refused the request the finding is
// about: an error on a body that was answered with a 400.
func (f Finding) Confirmed() bool { return f.Severity == Error && f.Status == 400 }

// String formats the finding like a compiler message:
// "file:line: error: messages[3]: message [code]".
func (f Finding) String() string {
	loc := f.File
	if f.Line > 0 {
		loc += ":" + strconv.Itoa(f.Line)
	}
	where := ""
	if f.Path != "" {
		where = f.Path + ": "
	}
	s := fmt.Sprintf("%s: %s: %s%s [%s]", loc, f.Severity, where, f.Message, f.Code)
	switch {
	case f.Confirmed():
		s += " (recorded response 400: confirmed)"
	case f.Status != 0:
		s += fmt.Sprintf(" (recorded response %d)", f.Status)
	}
	return s
}

// Stats count what was checked.
type Stats struct {
	Files         int `json:"files"`
	Conversations int `json:"conversations"`
	Messages      int `json:"messages"`
	ToolCalls     int `json:"tool_calls"`
	Errors        int `json:"errors"`
	Warnings      int `json:"warnings"`
	// Unchecked are the conversations (of Conversations) whose tool calls
	// were not checked: a shape the rules do not cover, a recorded request
	// to an endpoint validate does not read.
	Unchecked int `json:"unchecked"`
	// Skipped are the lines (or items) of a log passed over as neither a
	// message nor a line its format knows: the writer's bookkeeping beside
	// the conversation (a role no API has, an object of no API's type, a
	// line type of the log's own that is new), which no API is sent.
	Skipped int `json:"skipped"`
	// Format is what one file was read as: the name of its format,
	// qualified by the Shape of its messages where the format has none of
	// its own ("openai-messages", "anthropic-request"). Add leaves it out
	// of totals.
	Format string `json:"format,omitempty"`
}

// Add adds the counts of o to s.
func (s *Stats) Add(o Stats) {
	s.Files += o.Files
	s.Conversations += o.Conversations
	s.Messages += o.Messages
	s.ToolCalls += o.ToolCalls
	s.Errors += o.Errors
	s.Warnings += o.Warnings
	s.Unchecked += o.Unchecked
	s.Skipped += o.Skipped
}

// Validate checks the file read from r, named name in findings, with the
// formats of reg, and calls emit for each finding; it stops, returning
// ctx's error, when ctx is done. The error is non-nil only when r cannot
// be read or opts are invalid; what is wrong with the content is reported
// through emit. See pkg/transcript.Validate for the order of findings and
// the memory it takes.
func Validate(ctx context.Context, reg Registry, name string, r io.Reader, opts Options, emit func(Finding)) (Stats, error) {
	if opts.Input != "" && reg.Lookup(opts.Input) == nil {
		return Stats{}, fmt.Errorf("unknown input format %q (want %s)", opts.Input, strings.Join(reg.Names(), ", "))
	}
	switch wire.Shape(opts.Shape) {
	case "", wire.Chat, wire.Messages:
	default:
		return Stats{}, fmt.Errorf("unknown Shape %q (want openai or anthropic)", opts.Shape)
	}
	if emit == nil {
		emit = func(Finding) {}
	}
	v := &File{name: name, opts: opts, emit: emit, seed: maphash.MakeSeed(), ctx: ctx, done: ctx.Done(), reg: reg}
	v.stats.Files = 1
	err := v.run(r)
	v.stats.Format = v.label()
	return v.stats, err
}
