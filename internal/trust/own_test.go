package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotPrivate: a folder or file of one's own that only its owner (and
// group) can write is private; one every user can write to is not, a
// sticky bit (/tmp's) notwithstanding; what cannot be looked at is left
// to the caller's open.
func TestNotPrivate(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  bool
		mode os.FileMode
		want string // "" or a part of the reason
	}{
		{"own folder", true, 0o700, ""},
		{"group-writable folder", true, 0o770, ""},
		{"folder writable by all", true, 0o777, "can be written by every user (mode 0777)"},
		{"sticky folder writable by all", true, 0o777 | os.ModeSticky, "can be written by every user"},
		{"own file", false, 0o600, ""},
		{"file writable by all", false, 0o666, "can be written by every user (mode 0666)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x")
			var err error
			if c.dir {
				err = os.Mkdir(p, 0o700)
			} else {
				err = os.WriteFile(p, nil, 0o600)
			}
			if err == nil {
				err = os.Chmod(p, c.mode)
			}
			if err != nil {
				t.Fatal(err)
			}
			got := NotPrivate(p)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("NotPrivate = %q, want %q", got, c.want)
			}
		})
	}
	if got := NotPrivate(filepath.Join(t.TempDir(), "gone")); got != "" {
		t.Errorf("a path not there: %q, want \"\" (the open says why)", got)
	}
}
