package tools

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/agentloop/agentloop/pkg/wire"
)

// Defaults for the optional keys of a tool definition.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 16 << 10
	// DefaultMediaOutput is the default max_output of a tool whose output
	// is an image or a content array: an image the APIs take fits.
	DefaultMediaOutput = 3 << 20
	// MaxMaxOutput bounds max_output: the captured output is held in memory,
	// and no model context takes more than this anyway.
	MaxMaxOutput = 64 << 20
)

// Definition is one tool as the model sees it and as the executor runs it.
type Definition struct {
	Name        string
	Description string
	// Parameters is the JSON Schema object sent to the model: compact,
	// deterministic bytes with the properties in the order of the YAML file.
	Parameters json.RawMessage
	// Strict marks a schema in OpenAI strict-mode form: every property
	// required, optional ones nullable, no additional properties anywhere.
	Strict bool
	// Output is how stdout is read: OutputText (the default), OutputImage
	// or OutputContent.
	Output    string
	Confirm   bool          // needs approval before each call
	Timeout   time.Duration // DefaultTimeout unless set
	MaxOutput int64         // bytes of stdout kept; DefaultMaxOutput unless set
	Env       []string      // names of extra variables passed through
	Run       string        // absolute path of the executable, or ""
	Command   []string      // argv, run without a shell, or nil
	File      string        // YAML file the tool came from
	Line      int           // line of the tool in File
	// Overrides lists, as file:line, the tools of the same name in later
	// paths given to Load that this one overrides.
	Overrides []string
}

// clone returns a deep copy, so that callers of Definitions and Lookup
// cannot change what the registry runs.
func (d *Definition) clone() *Definition {
	c := *d
	c.Parameters = slices.Clone(d.Parameters)
	c.Env = slices.Clone(d.Env)
	c.Command = slices.Clone(d.Command)
	c.Overrides = slices.Clone(d.Overrides)
	return &c
}

// How a tool's stdout is read.
const (
	OutputText    = "text"    // the result's text
	OutputImage   = "image"   // one image: PNG, JPEG, GIF or WebP bytes
	OutputContent = "content" // a JSON array of text and image blocks, as MCP writes a result
)

// Image is a picture in a result.
type Image struct {
	MIMEType string
	Data     []byte
}

// Result is the outcome of one tool call, success or failure.
type Result struct {
	// Content is what the model sees: stdout on success, a plain-text
	// account of the failure otherwise. Always valid UTF-8.
	Content  string
	IsError  bool
	Kind     wire.Kind // wire.KindOK on success, else why the call failed
	ExitCode int       // the process's exit code; -1 when it did not run or did not exit normally
	Duration time.Duration
	// Truncated is set when stdout held more than MaxOutput bytes.
	Truncated bool
	// Bytes is the number of bytes the tool wrote to stdout, including
	// those that were dropped.
	Bytes int64
	// Images are the pictures of a tool whose output is an image or a
	// content array.
	Images []Image
}

func failure(kind, content string) Result {
	return Result{Content: content, IsError: true, Kind: kind, ExitCode: -1}
}
