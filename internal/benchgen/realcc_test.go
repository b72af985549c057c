package benchgen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// Copies of real sessions are checked as the sessions are, each copy's
// calls on their own: as many calls and warnings per copy, no error.
func TestClaudeCodeFromRealSessions(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "logs", "claude-code_*.jsonl"))
	if len(names) == 0 {
		t.Fatal("no Claude Code sessions in testdata/logs")
	}
	var files [][]byte
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	check := func(data []byte) (calls, errs int) {
		st, err := transcript.Validate("log.jsonl", bytes.NewReader(data), transcript.Options{}, func(f transcript.Finding) {
			if f.Severity == transcript.Error {
				errs++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return st.ToolCalls, errs
	}
	var one, three bytes.Buffer
	if err := WriteClaudeCodeFrom(&one, files, 1); err != nil {
		t.Fatal(err)
	}
	// A copy is no shorter than the first: two and a byte make three.
	if err := WriteClaudeCodeFrom(&three, files, 2*int64(one.Len())+1); err != nil {
		t.Fatal(err)
	}
	calls1, errs1 := check(one.Bytes())
	calls3, errs3 := check(three.Bytes())
	if calls1 == 0 || calls3 != 3*calls1 || errs1 != 0 || errs3 != 0 {
		t.Errorf("one copy: %d calls, %d errors; three copies: %d calls, %d errors; want 3 × the calls and no error", calls1, errs1, calls3, errs3)
	}
	if bytes.Equal(copyIDs(files[0], 1), copyIDs(files[0], 2)) {
		t.Error("two copies have the same ids")
	}
}
