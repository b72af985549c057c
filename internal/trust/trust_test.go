package trust

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTrust(t *testing.T) {
	state := t.TempDir()
	s := &Store{Path: filepath.Join(state, "agentloop", FileName)}
	project := t.TempDir()
	dir := filepath.Join(project, "tools.d")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\n"), 0o644)

	check := func(want Status) {
		t.Helper()
		got, err := s.Check(dir)
		if err != nil || got != want {
			t.Fatalf("Check = %v, %v; want %v", got, err, want)
		}
	}
	check(Untrusted)
	if _, err := os.Stat(s.Path); err == nil {
		t.Fatal("Check wrote the record")
	}

	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	e, err := s.Trust(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	canon, _ := filepath.EvalSymlinks(dir)
	if e.Dir != canon || !strings.HasPrefix(e.Digest, "sha256:") || !e.Trusted.Equal(now.Truncate(time.Second)) {
		t.Errorf("entry = %+v", e)
	}
	check(Trusted)

	// The record is the user's alone, and no temporary file is left.
	for p, want := range map[string]os.FileMode{s.Path: 0o600, filepath.Dir(s.Path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode().Perm(), err, want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(s.Path)); len(entries) != 1 {
		t.Errorf("state folder holds %d files", len(entries))
	}

	// The same folder by another path is the same folder.
	t.Chdir(project)
	check(Trusted)
	if got, _ := s.Check("tools.d"); got != Trusted {
		t.Errorf("relative path: %v", got)
	}

	// A change asks again; trusting again records the new contents.
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: b\n"), 0o644)
	check(Changed)
	if _, err := s.Trust("tools.d", now); err != nil {
		t.Fatal(err)
	}
	check(Trusted)
	if list, _ := s.List(); len(list) != 1 {
		t.Errorf("trusting again added an entry: %+v", list)
	}

	// A second folder; the list is in path order.
	other := t.TempDir()
	if _, err := s.Trust(other, now); err != nil {
		t.Fatal(err)
	}
	list, err := s.List()
	if err != nil || len(list) != 2 || !slices.IsSortedFunc(list, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) }) {
		t.Errorf("list = %+v, %v", list, err)
	}

	// A file that cannot be read makes the folder one that cannot be
	// checked: not trusted, and said so, not a failure of the record.
	if os.Geteuid() != 0 { // root reads it anyway
		secret := filepath.Join(dir, "secret.yaml")
		os.WriteFile(secret, nil, 0o000)
		var ue *UnreadableError
		if got, err := s.Check(dir); got != Changed || !errors.As(err, &ue) {
			t.Errorf("unreadable file: %v, %v", got, err)
		}
		os.Remove(secret)
	}

	// Untrust.
	if ok, err := s.Untrust(dir); !ok || err != nil {
		t.Errorf("Untrust = %v, %v", ok, err)
	}
	check(Untrusted)
	if ok, err := s.Untrust(dir); ok || err != nil {
		t.Errorf("Untrust again = %v, %v", ok, err)
	}
	// A folder gone since is untrusted by the path it had.
	os.RemoveAll(other)
	if ok, err := s.Untrust(other); !ok || err != nil {
		t.Errorf("Untrust of a removed folder = %v, %v", ok, err)
	}

	// Trusting what is not a folder is an error.
	if _, err := s.Trust(filepath.Join(dir, "a.yaml"), now); err == nil {
		t.Error("trusted a file")
	}
	if _, err := s.Trust(filepath.Join(project, "nope"), now); err == nil {
		t.Error("trusted a folder that does not exist")
	}
}

// A damaged record is an error naming the file, not an empty record that
// a write would then replace.
func TestTrustDamagedRecord(t *testing.T) {
	s := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	os.WriteFile(s.Path, []byte(`{"version":1,"folders":[`), 0o600)
	if _, err := s.Check(t.TempDir()); err == nil || !strings.Contains(err.Error(), s.Path) {
		t.Errorf("Check = %v", err)
	}
	if _, err := s.Trust(t.TempDir(), time.Now()); err == nil {
		t.Error("Trust over a damaged record succeeded")
	}
	if b, _ := os.ReadFile(s.Path); string(b) != `{"version":1,"folders":[` {
		t.Errorf("the record was rewritten: %s", b)
	}
}
