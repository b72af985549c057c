package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// writeCounter counts the writes it is given: each is a system call when
// the page goes to a file or a pipe.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// A page goes out in buffers of 64 KiB, not in the template's thousands of
// small pieces: a write each cost a 1,000-step page a third of its time.
func TestHTMLPageWrittenInLargeWrites(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	out := &writeCounter{}
	ios.Out = out
	if err := writeHTMLReport(context.Background(), ios, "../testdata/demo/session.jsonl", "-"); err != nil {
		t.Fatal(err)
	}
	if want := out.Len()/(64<<10) + 1; out.writes > want {
		t.Errorf("a page of %d bytes written in %d writes, want at most %d", out.Len(), out.writes, want)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(out.Bytes()), []byte("</html>")) {
		t.Errorf("not a whole page: %.80q … %.80q", out.Bytes(), out.Bytes()[max(0, out.Len()-80):])
	}
}

// An interrupt while a page is drawn into a file: the command ends with
// it, and leaves neither a page nor its temporary file; a page drawn
// before stays as it was.
func TestHTMLPageInterrupted(t *testing.T) {
	ios, _, _, stderr := iostreams.Test()
	convs, err := engine.LoadConversations("../testdata/demo/session.jsonl", ios.In, ios.ErrOut, engine.DrawInvalid)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "run.html")
	before := "<!DOCTYPE html>\nthe page drawn before\n"
	if err := os.WriteFile(out, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupted)
	if err := writePage(ctx, ios, convs[0], "session.jsonl", out); !errors.Is(err, errInterrupted) {
		t.Fatalf("an interrupted page: %v", err)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != before {
		t.Errorf("the page drawn before is now %q (%v)", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the folder: %v", entries)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %q", stderr)
	}
}
