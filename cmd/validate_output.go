package cmd

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// jsonFinding is a finding as --json prints it.
type jsonFinding struct {
	File      string   `json:"file"`
	Line      int      `json:"line,omitempty"`
	Index     *int     `json:"index,omitempty"`
	Path      string   `json:"path,omitempty"`
	Severity  string   `json:"severity"`
	Code      string   `json:"code"`
	Message   string   `json:"message"`
	IDs       []string `json:"ids,omitempty"`
	Status    int      `json:"status,omitempty"`
	Confirmed bool     `json:"confirmed,omitempty"`
}

// jsonFile says, after a file's findings, what it was read as and what it
// held; or, for an input that could not be read, why.
type jsonFile struct {
	File          string `json:"file"`
	Format        string `json:"format,omitempty"`
	Conversations int    `json:"conversations"`
	Messages      int    `json:"messages"`
	ToolCalls     int    `json:"tool_calls"`
	Errors        int    `json:"errors"`
	Warnings      int    `json:"warnings"`
	Unchecked     int    `json:"unchecked"`
	Skipped       int    `json:"skipped"`
	Unreadable    string `json:"unreadable,omitempty"`
}

type jsonSummary struct {
	Summary bool `json:"summary"`
	transcript.Stats
	Unreadable int `json:"unreadable"`
	// Formats counts the files read as each format; ByFormat what they
	// held.
	Formats  map[string]int         `json:"formats"`
	ByFormat map[string]formatCount `json:"by_format"`
}

// formatCount is what the files read as one format held: their
// conversations, and of those the ones whose tool calls were not checked.
type formatCount struct {
	Files         int `json:"files"`
	Conversations int `json:"conversations"`
	Unchecked     int `json:"unchecked"`
}

// jsonFormat is a format as --list-formats --json prints it.
type jsonFormat struct {
	Name    string `json:"name"`
	Reads   string `json:"reads"`
	Writer  string `json:"writer"`
	Example string `json:"example"`
}

// validation is what checking the files found.
type validation struct {
	total      transcript.Stats
	formats    map[string]formatCount
	unreadable int
}

// add counts a file read.
func (r *validation) add(st transcript.Stats) {
	r.total.Add(st)
	c := r.formats[st.Format]
	c.Files++
	c.Conversations += st.Conversations
	c.Unchecked += st.Unchecked
	r.formats[st.Format] = c
}

// files counts the files read as each format.
func (r *validation) files() map[string]int {
	m := make(map[string]int, len(r.formats))
	for k, c := range r.formats {
		m[k] = c.Files
	}
	return m
}

// validateOutput writes findings as they come, from the goroutine that
// checks the files, until it is stopped.
type validateOutput struct {
	mu      sync.Mutex
	opts    *ValidateOptions
	out     *bufio.Writer
	enc     *json.Encoder
	stopped bool
}

func (o *validateOutput) finding(f transcript.Finding) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if !o.opts.JSON {
		// A finding quotes ids, names and paths from the file: one line,
		// its control bytes shown, not obeyed.
		fmt.Fprintln(o.out, strings.ReplaceAll(safeText(f.String()), "\n", `\n`))
		return
	}
	jf := jsonFinding{File: f.File, Line: f.Line, Path: f.Path, Severity: f.Severity.String(), Code: f.Code, Message: f.Message,
		IDs: f.IDs, Status: f.Status, Confirmed: f.Confirmed()}
	if f.Index >= 0 {
		jf.Index = &f.Index
	}
	o.enc.Encode(jf)
}

// file ends a file's output: its format (with --json), or why it could not
// be read (on stderr).
func (o *validateOutput) file(name string, st transcript.Stats, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	if err != nil {
		o.out.Flush()
		fmt.Fprintf(o.opts.IO.ErrOut, "agentloop: %s\n", safeText(err.Error()))
		if o.opts.JSON {
			o.enc.Encode(jsonFile{File: name, Unreadable: err.Error()})
		}
		return
	}
	if o.opts.JSON {
		o.enc.Encode(jsonFile{File: name, Format: st.Format, Conversations: st.Conversations, Messages: st.Messages,
			ToolCalls: st.ToolCalls, Errors: st.Errors, Warnings: st.Warnings, Unchecked: st.Unchecked, Skipped: st.Skipped})
	}
}

// stop ends the output where it is: nothing the checking goroutine finds
// after this is printed.
func (o *validateOutput) stop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopped = true
	o.out.Flush()
}

// summary is the last line of the plain output. It says what the exit
// status says: "no problems" only when there are none and every input was
// read; and for each format, how many conversations were checked and how
// many not.
func summary(s transcript.Stats, formats map[string]formatCount, unreadable int) string {
	counts := fmt.Sprintf("%s %s, %s %s", group(s.Messages), plural(s.Messages, "message", "messages"),
		group(s.ToolCalls), plural(s.ToolCalls, "tool call", "tool calls"))
	if s.Skipped > 0 {
		// Lines of the logs' own bookkeeping: not messages, not checked.
		counts += fmt.Sprintf(", %s %s passed over", group(s.Skipped), plural(s.Skipped, "line", "lines"))
	}
	counts = "(" + counts + ")"
	files := fmt.Sprintf("%d %s", s.Files, plural(s.Files, "file", "files"))
	kinds := formatList(formats, s.Files)
	if kinds != "" {
		counts += ": " + kinds
	}
	if s.Errors == 0 && s.Warnings == 0 && unreadable == 0 {
		return fmt.Sprintf("no problems in %s %s", files, counts)
	}
	line := fmt.Sprintf("%s %s, %s %s in %s %s", group(s.Errors), plural(s.Errors, "error", "errors"),
		group(s.Warnings), plural(s.Warnings, "warning", "warnings"), files, counts)
	if unreadable > 0 {
		line = fmt.Sprintf("%d %s not read; %s", unreadable, plural(unreadable, "input", "inputs"), line)
	}
	return line
}

// formatList counts files by format, most first, each with the
// conversations checked in them and those not: "2 claude-code (5
// conversations checked), 1 vcr (2 conversations checked, 1 not checked)";
// the files' count left out when all n files share one format.
func formatList(formats map[string]formatCount, n int) string {
	type kv struct {
		name string
		formatCount
	}
	var list []kv
	for k, c := range formats {
		if c.Files > 0 {
			list = append(list, kv{k, c})
		}
	}
	slices.SortFunc(list, func(a, b kv) int {
		return cmp.Or(cmp.Compare(b.Files, a.Files), strings.Compare(a.name, b.name))
	})
	parts := make([]string, len(list))
	for i, e := range list {
		checked := e.Conversations - e.Unchecked
		convs := fmt.Sprintf("%s %s checked", group(checked), plural(checked, "conversation", "conversations"))
		if e.Unchecked > 0 {
			convs += fmt.Sprintf(", %s not checked", group(e.Unchecked))
		}
		parts[i] = fmt.Sprintf("%s (%s)", e.name, convs)
		if len(list) > 1 || e.Files != n {
			parts[i] = fmt.Sprintf("%d %s", e.Files, parts[i])
		}
	}
	return strings.Join(parts, ", ")
}

// group writes n with thousands separators: 1,204.
func group(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + group(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
