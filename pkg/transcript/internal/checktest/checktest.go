// Package checktest is what the tests of the formats share: the real logs
// of testdata/logs, and checking bytes with one format.
package checktest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript/internal/check"
)

// LogsDir is the folder of real logs other tools wrote (testdata/logs).
var LogsDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "testdata", "logs")
}()

// ReadLog reads a file of LogsDir.
func ReadLog(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(LogsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Validate checks data, named name, with the formats given (the first
// when --input is not set and none sniffs it), and returns the findings.
func Validate(t testing.TB, formats check.Registry, name string, data []byte, opts check.Options) ([]check.Finding, check.Stats) {
	t.Helper()
	var fs []check.Finding
	st, err := check.Validate(context.Background(), formats, name, bytes.NewReader(data), opts, func(f check.Finding) { fs = append(fs, f) })
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fs, st
}

// Head is the head of a file that holds data.
func Head(data string) *check.Head { return check.NewHead([]byte(data), true) }

// Lines joins lines into JSONL, a newline after each.
func Lines(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// Codes lists findings as "line severity code".
func Codes(fs []check.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, strconv.Itoa(f.Line)+" "+f.Severity.String()+" "+f.Code)
	}
	return out
}

// Dump writes findings a line each, for a test's failure.
func Dump(fs []check.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}
