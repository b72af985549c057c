package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/transcript"
)

var plural = english.Plural

// Summary is the last line of the plain output. It says what the exit
// status says: "no problems" only when there are none and every input was
// read; and for each format, how many conversations were checked and how
// many not.
func Summary(s transcript.Stats, formats map[string]FormatCount, unreadable int) string {
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
func formatList(formats map[string]FormatCount, n int) string {
	type kv struct {
		name string
		FormatCount
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

// Format is a format as --list-formats --json prints it.
type Format struct {
	Name    string `json:"name"`
	Reads   string `json:"reads"`
	Writer  string `json:"writer"`
	Example string `json:"example"`
}

// ListFormats prints the formats validate reads: a table, or with asJSON
// an object a format.
func ListFormats(w io.Writer, asJSON bool) error {
	formats := transcript.Formats()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for _, f := range formats {
			if err := enc.Encode(Format{Name: f.Name, Reads: f.Reads, Writer: f.Writer, Example: f.Example}); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FORMAT\tREADS\tWRITTEN BY\tEXAMPLE")
	for _, f := range formats {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, f.Reads, f.Writer, f.Example)
	}
	return tw.Flush()
}
