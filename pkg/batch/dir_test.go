package batch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDirLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	d, _, _, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o700 {
		t.Errorf("OUTDIR mode %v", fi.Mode())
	}
	var le *LockedError
	if _, _, _, err := OpenDir(path); !errors.As(err, &le) {
		t.Errorf("a second batch on the same folder: %v", err)
	}
	d.Close()
	d2, _, _, err := OpenDir(path)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	d2.Close()
}

// A lock still held for a moment by a batch killed a moment ago (through
// a tool process it was starting) is waited for, not refused.
func TestDirLockReleasedSoonIsTaken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	d, _, _, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	releasing := make(chan struct{})
	go func() {
		time.Sleep(lockWait / 5)
		close(releasing)
		d.Close()
	}()
	d2, _, _, err := OpenDir(path)
	if err != nil {
		t.Fatalf("a lock released within the wait: %v", err)
	}
	select {
	case <-releasing:
	default:
		t.Error("the lock was taken while the first batch held it")
	}
	d2.Close()
}

// TestDirAttempts: an interrupted item's transcript is set aside as an
// attempt; a run stopped right after that finds it as the latest.
func TestDirAttempts(t *testing.T) {
	path := t.TempDir()
	d, _, _, err := OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	id := "a/b"
	if _, _, ok := d.Latest(id); ok {
		t.Error("a transcript before any")
	}
	cur := d.TranscriptPath(id)
	if cur != filepath.Join(path, "a%2Fb.jsonl") {
		t.Errorf("path %s", cur)
	}
	os.WriteFile(cur, []byte("first\n"), 0o600)
	if p, n, ok := d.Latest(id); !ok || p != cur || n != 0 {
		t.Errorf("latest %s %d %v", p, n, ok)
	}
	aside, err := d.SetAside(id)
	if err != nil || aside != filepath.Join(path, "a%2Fb~1.jsonl") {
		t.Fatalf("set aside: %s %v", aside, err)
	}
	// Stopped before the next transcript was made: the attempt is the latest.
	if p, n, ok := d.Latest(id); !ok || p != aside || n != 0 {
		t.Errorf("latest after set aside: %s %d %v", p, n, ok)
	}
	if again, err := d.SetAside(id); err != nil || again != aside {
		t.Errorf("set aside again with nothing new: %s %v", again, err)
	}
	os.WriteFile(cur, []byte("second\n"), 0o600)
	if p, n, ok := d.Latest(id); p != cur || n != 1 || !ok {
		t.Errorf("latest %s %d", p, n)
	}
	d.Close()

	// A new run finds the attempts, and removes a child transcript that was
	// never completed.
	tmp := filepath.Join(path, "a%2Fb.jsonl.123.tmp")
	os.WriteFile(tmp, []byte("partial"), 0o600)
	// Files of the user's own that look alike are left alone.
	mine := []string{"notes.jsonl.bak.tmp", "a b.jsonl.1.tmp", ".jsonl.1.tmp", "x.jsonl..tmp"}
	for _, name := range mine {
		os.WriteFile(filepath.Join(path, name), []byte("mine"), 0o600)
	}
	d, _, _, err = OpenDir(path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if aside, err := d.SetAside(id); err != nil || aside != filepath.Join(path, "a%2Fb~2.jsonl") {
		t.Errorf("second set aside: %s %v", aside, err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the partial child is still there: %v", err)
	}
	for _, name := range mine {
		if _, err := os.Stat(filepath.Join(path, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestDirRefusesPlantedSymlinks: a symbolic link planted in OUTDIR at the
// results file's or the lock's name is not followed: the batch refuses the
// folder and the file the link names is neither made nor changed.
func TestDirRefusesPlantedSymlinks(t *testing.T) {
	for _, name := range []string{ResultsName, lockName} {
		for _, exists := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/to nothing", true: "/to a file"}[exists], func(t *testing.T) {
				base := t.TempDir()
				victim := filepath.Join(base, "victim")
				if exists {
					if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				out := filepath.Join(base, "out")
				if err := os.Mkdir(out, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(victim, filepath.Join(out, name)); err != nil {
					t.Fatal(err)
				}
				d, _, _, err := OpenDir(out)
				if err == nil {
					d.Close()
					t.Error("OpenDir followed the link")
				}
				got, rerr := os.ReadFile(victim)
				if exists && string(got) != "keep\n" || !exists && rerr == nil {
					t.Errorf("the link's target: %q, %v", got, rerr)
				}
			})
		}
	}
}

// TestCheckDir: a file where OUTDIR, or a folder above it, should be is
// named before anything is made; a folder, or one that can be made, passes.
func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, ""},
		{filepath.Join(dir, "new", "out"), ""},
		{file, "is a file, not a folder"},
		{file + "/", "is a file, not a folder"},
		{filepath.Join(file, "out"), file + " is a file, not a folder"},
		{filepath.Join(file, "a", "b"), file + " is a file, not a folder"},
	} {
		got := ""
		if err := CheckDir(tc.path); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckDir(%s) = %q, want %q", tc.path, got, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("CheckDir made a folder: %v", err)
	}
}
