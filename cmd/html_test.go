package cmd

import (
	"bytes"
	"testing"
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
	ios, _, _, _ := Test()
	out := &writeCounter{}
	ios.Out = out
	if err := writeHTMLReport(ios, "../testdata/demo/session.jsonl", "-"); err != nil {
		t.Fatal(err)
	}
	if want := out.Len()/(64<<10) + 1; out.writes > want {
		t.Errorf("a page of %d bytes written in %d writes, want at most %d", out.Len(), out.writes, want)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(bytes.TrimSpace(out.Bytes()), []byte("</html>")) {
		t.Errorf("not a whole page: %.80q … %.80q", out.Bytes(), out.Bytes()[max(0, out.Len()-80):])
	}
}
