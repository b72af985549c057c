package history

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A reference is a path when it has a dot or a slash, else an id or
// "last" in the folder; each way it can be wrong says what is.
func TestResolve(t *testing.T) {
	dir := folder(t, 3)
	mine := filepath.Join(dir, "mine.jsonl")
	run{id: "abcdef01", start: t0.Add(-time.Hour), prompt: "q", end: "stop"}.write(t, mine)
	if p, err := Resolve(dir, mine); err != nil || p != mine {
		t.Errorf("a path: %q, %v", p, err)
	}
	if p, err := Resolve(dir, "abcdef"); err != nil || p != mine {
		t.Errorf("an id: %q, %v", p, err)
	}
	for ref, want := range map[string]string{
		filepath.Join(dir, "none.jsonl"): "no transcript at ",
		dir + "/":                        "is a folder, not a transcript ('agentloop log --dir",
		"ffffff99":                       "('agentloop log' lists the runs)",
	} {
		if _, err := Resolve(dir, ref); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", ref, err, want)
		}
	}
	run{id: "abcdef02", start: t0.Add(-2 * time.Hour), prompt: "q", end: "stop"}.write(t, filepath.Join(dir, "other.jsonl"))
	var amb *AmbiguousError
	if _, err := Resolve(dir, "abcdef"); !errors.As(err, &amb) {
		t.Errorf("two runs: %v", err)
	}

	// A file of the working folder named without an extension.
	t.Chdir(t.TempDir())
	writeFile(t, "myrun", "x")
	if p, err := Resolve(dir, "myrun"); err != nil || p != "myrun" {
		t.Errorf("a file here: %q, %v", p, err)
	}
	if !IsPath("a.jsonl") || !IsPath("dir/x") || IsPath("last") || IsPath("3f2a9c") {
		t.Error("IsPath")
	}
}
