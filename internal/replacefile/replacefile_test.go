package replacefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file written is whole, private, and leaves no temporary file beside it.
func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "new\n" {
		t.Fatalf("%q, %v", data, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1", len(ents))
	}
}

// A write that fails leaves what was there, and no temporary file.
func TestWriteFailureKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("%v, want an error naming the path and the cause", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "old" {
		t.Errorf("%q, want the old file", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1", len(ents))
	}
}

// A device is written to, not renamed over.
func TestWriteDevice(t *testing.T) {
	if err := Write(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Errorf("%s replaced by a file: %v", os.DevNull, err)
	}
}

// A folder that is not there is an error naming the path.
func TestWriteNoFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent", "out")
	if err := Write(path, func(io.Writer) error { return nil }); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("%v", err)
	}
}
