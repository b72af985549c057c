package batch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// TestDirRefusesSharedFolders: an OUTDIR another user can write to, or
// that is theirs, may hold a transcript they planted under an item's name;
// the batch would go on from it and run the calls it left pending. Such a
// folder is refused before anything in it is read; a folder of one's own
// (group-writable too, as umask 002 makes it) is used.
func TestDirRefusesSharedFolders(t *testing.T) {
	cases := []struct {
		name  string
		mode  os.FileMode
		owner int // -1: the user's own
		ok    bool
	}{
		{"own", 0o700, -1, true},
		{"own, group-writable", 0o770, -1, true},
		{"writable by all", 0o777, -1, false},
		{"writable by all, sticky as /tmp", 0o777 | os.ModeSticky, -1, false},
		{"another user's", 0o755, 65534, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if err := os.Mkdir(out, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(out, c.mode); err != nil {
				t.Fatal(err)
			}
			if c.owner >= 0 {
				if os.Geteuid() != 0 {
					t.Skip("only root can give a folder to another user")
				}
				if err := os.Chown(out, c.owner, c.owner); err != nil {
					t.Fatal(err)
				}
			}
			d, _, _, err := OpenDir(out)
			if err == nil {
				d.Close()
			}
			if (err == nil) != c.ok {
				t.Fatalf("OpenDir: %v, want ok = %v", err, c.ok)
			}
			if !c.ok && !strings.Contains(err.Error(), "planted") {
				t.Errorf("the error does not say why: %v", err)
			}
			if _, serr := os.Stat(filepath.Join(out, ResultsName)); !c.ok && serr == nil {
				t.Error("a results file was made in the refused folder")
			}
		})
	}
}

// A transcript a full disk left with no message in it (empty: the first
// write refused whole; a header alone; a header cut short) is removed, so
// that no empty file is taken for an attempt; one that holds the prompt is
// kept to go on from, and what is not a regular file is left alone.
func TestDirDiscardEmpty(t *testing.T) {
	d, _, _, err := OpenDir(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, content string
		link        bool
		kept        bool
	}{
		{id: "empty"},
		{id: "header", content: hdr + "\n"},
		{id: "torn", content: hdr[:40]},
		{id: "prompt", content: hdr + "\n" + prompt + "\n", kept: true},
		{id: "calls", content: hdr + "\n" + prompt + "\n" + calls[:30], kept: true},
		{id: "link", link: true, kept: true},
		{id: "none"},
	}
	for _, tt := range tests {
		p := d.TranscriptPath(tt.id)
		switch {
		case tt.link:
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		case tt.id != "none":
			if err := os.WriteFile(p, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.DiscardEmpty(tt.id); err != nil {
			t.Errorf("%s: %v", tt.id, err)
		}
		if _, err := os.Lstat(p); (err == nil) != tt.kept {
			t.Errorf("%s: kept %v, want %v", tt.id, err == nil, tt.kept)
		}
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the file a link named: %v", err)
	}
}

// A link at an item's transcript name is not followed when the transcript
// is looked at: one to a device that never ends (/dev/zero) would be read
// for ever.
func TestHoldsMessageFollowsNoLink(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	p := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	if held, err := HoldsMessage(p); err == nil || held {
		t.Errorf("HoldsMessage of a link to /dev/zero = %v, %v; want an error", held, err)
	}
}
