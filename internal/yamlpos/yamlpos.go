// Package yamlpos decodes YAML files whose problems are reported at a line:
// the tool definitions and the configuration file. It decodes into yaml.v3
// nodes, which keep the line of every key and value, and reports a syntax
// error at the line to fix rather than at the line yaml.v3's message names.
package yamlpos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// SyntaxError is YAML that cannot be decoded, at the line to fix.
type SyntaxError struct {
	Line    int    // 1-based
	Problem string // yaml.v3's message without its "yaml: line N:" prefix
	Err     error  // yaml.v3's error
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Problem) }

func (e *SyntaxError) Unwrap() error { return e.Err }

// Decode reads the first YAML document of data and, as the files read this
// way hold one, the second if there is one. doc is nil when data holds no
// document (it is empty, or comments only). A decoding error is a
// *SyntaxError.
func Decode(data []byte) (doc, extra *yaml.Node, err error) {
	doc, extra, err = decode(data)
	if err != nil {
		_, problem := splitError(err)
		line := syntaxErrorLine(data, err)
		if tabIndented(data, line) {
			// yaml.v3 says "found character that cannot start any token".
			problem = "a tab in the indentation: YAML indents with spaces only"
		}
		return nil, nil, &SyntaxError{Line: line, Problem: problem, Err: err}
	}
	return doc, extra, nil
}

// tabIndented reports whether line n (1-based) of data starts with
// whitespace that holds a tab.
func tabIndented(data []byte, n int) bool {
	if n < 1 {
		return false
	}
	lines := bytes.SplitN(data, []byte("\n"), n+1)
	if len(lines) < n {
		return false
	}
	indent := lines[n-1][:len(lines[n-1])-len(bytes.TrimLeft(lines[n-1], " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

// Root is the top node of a decoded document: its content, not the
// document node itself.
func Root(doc *yaml.Node) *yaml.Node {
	if doc != nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return doc
}

func decode(data []byte) (doc, extra *yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	doc = new(yaml.Node)
	if err := dec.Decode(doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	extra = new(yaml.Node)
	if err := dec.Decode(extra); err != nil {
		if errors.Is(err, io.EOF) {
			return doc, nil, nil
		}
		return nil, nil, err
	}
	return doc, extra, nil
}

var errLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// splitError splits a yaml.v3 error into the line its message names, 0 if
// none, and the problem.
func splitError(err error) (int, string) {
	msg := err.Error()
	if m := errLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// syntaxErrorLine finds the line of data that a yaml.v3 decoding error is
// about. The line number in yaml.v3's message cannot be used as it is:
//
//   - its parser's errors ("did not find expected key", "did not find
//     expected ',' or '}'", ...) count lines from 0; its scanner's (tabs,
//     unterminated strings, "mapping values are not allowed ...") from 1;
//   - the number is where the construct being read starts (the block
//     mapping or list, the flow mapping, the plain or quoted scalar), not
//     where the offending text is: a misindented key deep in a list is
//     reported at the list's first item;
//   - when that construct starts on the first line, the offending text's
//     line is given instead, and when both are on the first line none is;
//   - errors of its reader (invalid UTF-8, control characters) and
//     unknown anchors name no line.
//
// So the number is only where to start looking. The line reported is the
// first line L such that lines 1 to L alone already fail with the same
// problem: for a misplaced key or list item, a tab or a bad byte that is
// the line holding it; for an unclosed bracket or quote, the line where it
// is opened (or, after a line ending in a comma, where the closing one is
// missing).
func syntaxErrorLine(data []byte, err error) int {
	named, problem := splitError(err)
	var ends []int // ends[i] is the offset just past line i+1
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] < len(data) {
		ends = append(ends, len(data))
	}
	fails := func(lines int) bool {
		_, _, err := decode(data[:ends[lines-1]])
		if err == nil {
			return false
		}
		_, p := splitError(err)
		return p == problem || slices.Contains(readerProblems, p) && slices.Contains(readerProblems, problem)
	}
	lo, hi := min(max(named, 1), len(ends)), len(ends)
	if lo > 1 && fails(lo-1) {
		// The construct starts on the first line and yaml.v3 named where
		// it gave up on it.
		lo, hi = 1, lo-1
	}
	return firstFailing(lo, hi, fails)
}

// readerProblems are the errors yaml.v3 finds in the bytes before reading
// them as YAML. Which of them a bad byte gives depends on the bytes after
// it, so lines cut short after one may give another.
var readerProblems = []string{
	"invalid leading UTF-8 octet", "incomplete UTF-8 octet sequence", "invalid trailing UTF-8 octet",
	"invalid length of a UTF-8 sequence", "invalid Unicode character", "control characters are not allowed",
	"incomplete UTF-16 character", "unexpected low surrogate area", "incomplete UTF-16 surrogate pair",
	"expected low surrogate area",
}

// firstFailing returns the least n in [lo, hi] for which fails(n), given
// fails(hi). It tries lo, lo+1, lo+3, lo+7, ... and then halves the last
// gap, so an answer at or just after lo costs a parse or two and one far
// from it a few dozen, on a file of any length.
func firstFailing(lo, hi int, fails func(int) bool) int {
	next, step := lo, 1
	for next < hi && !fails(next) {
		lo = next + 1
		next = min(next+step, hi)
		step *= 2
	}
	hi = next
	for lo < hi {
		mid := lo + (hi-lo)/2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// KindName describes a node for an error message: "a mapping", "a list",
// "nothing", or a scalar's quoted value.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "something else"
}

// IsNull reports whether n is an empty value (nothing after the colon, ~
// or null).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// MapValue returns the value of key in mapping n, or nil.
func MapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Deref follows an alias to the node it names.
func Deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}
