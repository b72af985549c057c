package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Runs written elsewhere are in the history through the folder's index:
// listed in time among the folder's own, found by id and as the last, and
// a file gone since is left out, never an error for the whole listing.
func TestIndex(t *testing.T) {
	dir := folder(t, 3) // 00000000…, 00010000…, 00020000…, one a minute from t0
	elsewhere := t.TempDir()
	out := filepath.Join(elsewhere, "review.jsonl")
	run{id: "0e000000aaaaaaaa", start: t0.Add(90 * time.Second), prompt: "written with -o", end: "stop"}.write(t, out)
	newest := filepath.Join(elsewhere, "newest.jsonl")
	run{id: "0f000000bbbbbbbb", start: t0.Add(10 * time.Minute), prompt: "the newest", end: "stop"}.write(t, newest)
	gone := filepath.Join(elsewhere, "gone.jsonl")
	run{id: "0d000000cccccccc", start: t0.Add(5 * time.Minute), prompt: "moved since", end: "stop"}.write(t, gone)
	for _, r := range []struct {
		id, path string
		at       time.Time
	}{{"0e000000aaaaaaaa", out, t0.Add(90 * time.Second)}, {"0d000000cccccccc", gone, t0.Add(5 * time.Minute)}, {"0f000000bbbbbbbb", newest, t0.Add(10 * time.Minute)}} {
		if err := Record(dir, r.id, r.path, r.at); err != nil {
			t.Fatal(err)
		}
	}
	// A transcript of the folder itself needs no line.
	if err := Record(dir, "00000000", filepath.Join(dir, "x.jsonl"), t0); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(IndexPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("index mode %04o, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(IndexPath(dir))
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("%d lines in the index, want 3:\n%s", n, data)
	}

	got, err := List(dir, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "0f000000 00020000 0e000000 00010000 00000000" {
		t.Errorf("List: %s", ids(got))
	}
	got, err = List(dir, Query{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "0f000000 00020000" {
		t.Errorf("List -n 2: %s", ids(got))
	}
	for ref, want := range map[string]string{"0e00": out, Last: newest} {
		e, err := Lookup(dir, ref)
		if err != nil || e.Path != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", ref, e, err, want)
		}
	}
	var nf *NotFoundError
	if _, err := Lookup(dir, "0d00"); !errors.As(err, &nf) {
		t.Errorf("Lookup of a run whose file is gone: %v", err)
	}

	all, err := Scan(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	inDir, outside := Elsewhere(dir, all)
	if ids(inDir) != "00020000 00010000 00000000" || ids(outside) != "0f000000 0e000000" {
		t.Errorf("Elsewhere: %s | %s", ids(inDir), ids(outside))
	}

	// Forget drops the runs given and the lines of files gone; the files
	// stay.
	n, err := Forget(dir, outside[1:])
	if err != nil || n != 2 {
		t.Errorf("Forget: %d, %v; want 2", n, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the forgotten run's file: %v", err)
	}
	got, _ = List(dir, Query{})
	if ids(got) != "0f000000 00020000 00010000 00000000" {
		t.Errorf("after Forget: %s", ids(got))
	}
	if fi, err := os.Stat(IndexPath(dir)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the index rewritten: %v %v", fi, err)
	}
}

// An index that is not what agentloop writes costs the runs it names,
// never the listing: lines that are not runs, a path given twice (the
// later run wrote over the file), a line too long to be one.
func TestIndexDamaged(t *testing.T) {
	dir := folder(t, 1)
	a := filepath.Join(t.TempDir(), "a.jsonl")
	run{id: "0a000000aaaaaaaa", start: t0.Add(time.Minute), prompt: "second run at a", end: "stop"}.write(t, a)
	index := strings.Join([]string{
		`{"id":"0b000000","path":"` + a + `","time":"2026-03-01T10:00:30Z"}`,
		`not json`,
		`{"id":"0c000000","path":"relative.jsonl","time":"2026-03-01T10:00:00Z"}`,
		`{"id":"0a000000aaaaaaaa","path":"` + a + `","time":"2026-03-01T10:01:00Z"}`,
		`{"id":"0d000000","path":"/dev/zero","time":"2026-03-01T10:02:00Z"}`,
		`{"id":"0e000000","path":"/nowhere/x.jsonl","time":"2026-03-01T10:03:00Z"}`,
		`{"id":"0f000000","path":"` + a + strings.Repeat("x", maxIndexLine) + `","time":"2026-03-01T10:04:00Z"}`,
		`{"id":"1a000000","path":"/after/the/long/line.jsonl","time":"2026-03-01T10:05:00Z"}`,
	}, "\n")
	writeFile(t, IndexPath(dir), index)
	got, err := List(dir, Query{})
	if err != nil {
		t.Fatal(err)
	}
	if ids(got) != "0a000000 00000000" {
		t.Errorf("List: %s", ids(got))
	}
	if e, err := Lookup(dir, "0a00"); err != nil || e.Path != a {
		t.Errorf("Lookup: %v %v", e, err)
	}

	// Pruned, the index keeps one line a run there is.
	if n, err := Forget(dir, nil); err != nil || n != 2 {
		t.Errorf("Forget: %d, %v; want the two runs that are not there", n, err)
	}
	data, _ := os.ReadFile(IndexPath(dir))
	if want := `{"id":"0a000000aaaaaaaa","path":"` + a + `","time":"2026-03-01T10:01:00Z"}` + "\n"; string(data) != want {
		t.Errorf("the index after Forget:\n%s\nwant\n%s", data, want)
	}
	if n, err := Forget(dir, nil); err != nil || n != 0 {
		t.Errorf("Forget again: %d, %v", n, err)
	}
}

// A link put where the index goes is not written through.
func TestRecordRefusesLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	writeFile(t, target, "")
	if err := os.Symlink(target, IndexPath(dir)); err != nil {
		t.Skip(err)
	}
	if err := Record(dir, "0123", filepath.Join(t.TempDir(), "t.jsonl"), t0); err == nil {
		t.Error("recorded through a link")
	}
	if data, _ := os.ReadFile(target); len(data) != 0 {
		t.Errorf("the link's target was written: %q", data)
	}
}
