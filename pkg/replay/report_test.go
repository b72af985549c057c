package replay

import (
	"strings"
	"testing"
)

// The report aligns its rows, prints each divergence's diff after its row
// with its escapes shown, not obeyed, counts the statuses in their order,
// and says whether any call diverged.
func TestWriteReport(t *testing.T) {
	var b strings.Builder
	failed := WriteReport(&b, []Row{
		{Step: 1, ID: "call_1", Name: "ls", Status: Same},
		{Step: 2, ID: "c2", Name: "date\x1b[2J", Status: Different, Diff: []byte("-a\n+b\x1b[31m\n")},
		{Line: 3, Step: 2, ID: "c3", Name: "rm", Status: NotRun, Recorded: "declined"},
	})
	want := "step 1  call_1  ls             same\n" +
		"step 2  c2      date\\u001b[2J  DIFFERENT\n" +
		"-a\n+b\\u001b[31m\n" +
		"line 3 step 2  c3      rm             not run (declined in the recording)\n" +
		"replay: 3 calls: 1 same, 1 different, 1 not run\n"
	if !failed || b.String() != want {
		t.Errorf("failed %v, report:\n%s\nwant:\n%s", failed, b.String(), want)
	}
	b.Reset()
	if WriteReport(&b, nil) || b.String() != "replay: no tool calls to replay\n" {
		t.Errorf("no rows: %q", b.String())
	}
}

// Whether the replayed answer matches the recorded schema is said, and a
// mismatch is a failure; a recording without a schema says nothing.
func TestWriteConformance(t *testing.T) {
	var b strings.Builder
	if WriteConformance(&b, nil) || b.Len() != 0 {
		t.Errorf("no schema: %q", b.String())
	}
	if WriteConformance(&b, &Conformance{OK: true}) || b.String() != "replay: the answer matches the recorded schema\n" {
		t.Errorf("a match: %q", b.String())
	}
	b.Reset()
	if !WriteConformance(&b, &Conformance{Problems: []string{"/a: missing", "/b: got string"}}) ||
		b.String() != "replay: the answer does not match the recorded schema: /a: missing; /b: got string\n" {
		t.Errorf("a mismatch: %q", b.String())
	}
}
