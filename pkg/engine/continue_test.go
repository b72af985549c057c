package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

// A run without a transcript answers, writes no file, and its loop has
// no recorder (not a nil writer behind the interface).
func TestRunWithoutTranscript(t *testing.T) {
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("Yes.")}}, key)
	defer srv.Close()
	ts, _ := lookTool(t)
	dir := t.TempDir()
	s := settings(srv, "")
	s.Prompt, s.Output = "Ready?", Output{None: true, Dir: dir}
	r, err := New(s, Tools{Set: ts, Exec: ts}, Net{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Transcript != nil || r.Loop.Transcript != nil {
		t.Fatal("a run without a transcript has a recorder")
	}
	out, err := r.Go(context.Background())
	if err != nil || out.Answer != "Yes." {
		t.Fatalf("answer %q, %v", out.Answer, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d files written", len(entries))
	}
}

// A run found by id in a folder others can write to is refused: it may
// be one someone planted. One in a folder of the user's own is not.
func TestCheckFoundRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckFoundRun(dir, path); err != nil {
		t.Fatalf("a private folder: %v", err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	err := CheckFoundRun(dir, path)
	if KindOf(err) != Usage || !strings.Contains(err.Error(), "name the transcript by its path") {
		t.Errorf("a folder anyone writes to: %v (kind %v)", err, KindOf(err))
	}
}

// run -c with a space before the id: the id is refused as the start of
// the prompt, pointing at --continue=ID; words that are no id are not.
func TestRefInPrompt(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(file, []byte(`{"type":"header","version":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := RefInPrompt(dir, []string{file, "and in Rome?"})
	if KindOf(err) != Flag || !strings.Contains(err.Error(), "write --continue="+file) {
		t.Errorf("a transcript's path: %v", err)
	}
	for _, args := range [][]string{nil, {"decade", "and in Rome?"}, {"and in Rome?"}, {"3f2a9c"}} {
		if err := RefInPrompt(dir, args); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
}
