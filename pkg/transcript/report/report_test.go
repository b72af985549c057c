package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		st         transcript.Stats
		formats    map[string]FormatCount
		unreadable int
		want       string
	}{
		{transcript.Stats{Files: 1, Messages: 12, ToolCalls: 1}, map[string]FormatCount{"agentloop": {1, 1, 0}}, 0,
			"no problems in 1 file (12 messages, 1 tool call): agentloop (1 conversation checked)"},
		{transcript.Stats{Files: 2, Messages: 1204, ToolCalls: 311, Errors: 3, Warnings: 1}, map[string]FormatCount{"claude-code": {2, 5, 0}}, 0,
			"3 errors, 1 warning in 2 files (1,204 messages, 311 tool calls): claude-code (5 conversations checked)"},
		{transcript.Stats{Files: 3, Messages: 1234567, Errors: 1}, map[string]FormatCount{"openai-messages": {1, 1, 0}, "claude-code": {2, 3, 0}}, 0,
			"1 error, 0 warnings in 3 files (1,234,567 messages, 0 tool calls): 2 claude-code (3 conversations checked), 1 openai-messages (1 conversation checked)"},
		// Conversations whose calls were not checked are counted apart, by
		// format.
		{transcript.Stats{Files: 2, Messages: 12, ToolCalls: 3, Errors: 2}, map[string]FormatCount{"vcr": {1, 4, 2}, "messages": {1, 1, 1}}, 0,
			"2 errors, 0 warnings in 2 files (12 messages, 3 tool calls): 1 messages (0 conversations checked, 1 not checked), 1 vcr (2 conversations checked, 2 not checked)"},
		// Lines of a log's bookkeeping are counted.
		{transcript.Stats{Files: 1, Conversations: 1, Messages: 4, ToolCalls: 1, Skipped: 3}, map[string]FormatCount{"openai-messages": {1, 1, 0}}, 0,
			"no problems in 1 file (4 messages, 1 tool call, 3 lines passed over): openai-messages (1 conversation checked)"},
		// An input that could not be read is never "no problems": the
		// exit status is 2.
		{transcript.Stats{}, map[string]FormatCount{}, 1, "1 input not read; 0 errors, 0 warnings in 0 files (0 messages, 0 tool calls)"},
		{transcript.Stats{Files: 1, Messages: 2}, map[string]FormatCount{"openai-messages": {1, 1, 0}}, 2,
			"2 inputs not read; 0 errors, 0 warnings in 1 file (2 messages, 0 tool calls): openai-messages (1 conversation checked)"},
	} {
		if got := Summary(tc.st, tc.formats, tc.unreadable); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// Files reads each file once, stdin once, and counts an input it cannot
// read apart: the plain output names the findings, one a line, and the
// reason a file was not read goes to stderr.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"role":"user","content":"hi"}`+"\n"+`{"role":"assistant","content":"hello"}`+"\n"), 0o600)
	os.WriteFile(bad, []byte(`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`+"\n"+`{"role":"user","content":"next"}`+"\n"), 0o600)
	var out, errOut bytes.Buffer
	w := NewWriter(&out, &errOut, false)
	r := Files(context.Background(), []string{good, bad, filepath.Join(dir, "none.jsonl"), "-", "-"}, strings.NewReader(""), transcript.Options{}, w)
	if err := w.Finish(&r); err != nil {
		t.Fatal(err)
	}
	if r.Unreadable != 2 || r.Total.Files != 3 || r.Total.Errors == 0 {
		t.Errorf("tally %+v", r)
	}
	if !strings.Contains(errOut.String(), "none.jsonl") || !strings.Contains(errOut.String(), "standard input can be read only once") {
		t.Errorf("stderr: %q", errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasPrefix(lines[0], bad+":") || !strings.HasPrefix(lines[len(lines)-1], "2 inputs not read; ") {
		t.Errorf("output:\n%s", out.String())
	}

	// With JSON: a finding, a record a file, a summary object.
	out.Reset()
	errOut.Reset()
	w = NewWriter(&out, &errOut, true)
	r = Files(context.Background(), []string{bad}, nil, transcript.Options{}, w)
	if err := w.Finish(&r); err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimSpace(out.String()), "\n")
	var f Finding
	var file File
	var sum SummaryJSON
	if err := json.Unmarshal([]byte(lines[0]), &f); err != nil || f.File != bad || f.Severity != "error" || f.Code == "" {
		t.Errorf("finding %s: %v", lines[0], err)
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-2]), &file); err != nil || file.File != bad || file.Format == "" || file.Errors == 0 {
		t.Errorf("file %s: %v", lines[len(lines)-2], err)
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || !sum.Summary || sum.Formats[file.Format] != 1 || sum.ByFormat[file.Format].Files != 1 {
		t.Errorf("summary %s: %v", lines[len(lines)-1], err)
	}
}

// After Stop, nothing more is written.
func TestStop(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, &out, false)
	w.Stop()
	w.Finding(transcript.Finding{File: "x", Code: "c", Message: "m"})
	w.File("x", transcript.Stats{}, os.ErrNotExist)
	if out.Len() != 0 {
		t.Errorf("written after Stop: %q", out.String())
	}
}
