package trust

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A folder found by itself is used once trusted as it is; changed, not
// trusted, or without a record to check, it is refused with why. The
// user's own folder needs no record.
func TestReason(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tools.d")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\n"), 0o644)
	s := &Store{Path: filepath.Join(t.TempDir(), FileName)}
	reason := func(own string, storeErr error) string {
		t.Helper()
		r, err := Reason(dir, own, s, storeErr)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if got := reason("", nil); got != "this folder is not trusted" {
		t.Errorf("not trusted: %q", got)
	}
	if got := reason("", errors.New("no HOME")); got != "not trusted (no HOME)" {
		t.Errorf("no record: %q", got)
	}
	if got := reason(dir, nil); got != "" {
		t.Errorf("the user's own folder: %q", got)
	}
	if _, err := s.Trust(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := reason("", nil); got != "" {
		t.Errorf("trusted: %q", got)
	}
	os.WriteFile(filepath.Join(dir, "b.yaml"), []byte("name: b\n"), 0o644)
	if got := reason("", nil); got != "it changed since you trusted it" {
		t.Errorf("changed: %q", got)
	}

	var b bytes.Buffer
	list, _ := s.List()
	if err := s.WriteList(&b, list); err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(b.String()); len(f) < 2 || f[0] != "changed" || !strings.HasSuffix(f[1], "tools.d") {
		t.Errorf("list: %q", b.String())
	}
	os.RemoveAll(dir)
	b.Reset()
	s.WriteList(&b, list)
	if !strings.HasPrefix(b.String(), "missing ") {
		t.Errorf("list: %q", b.String())
	}
}

func TestCommand(t *testing.T) {
	if got := Command("./tools.d"); got != "agentloop tools trust" {
		t.Errorf("%q", got)
	}
	if got := Command("my tools"); got != "agentloop tools trust 'my tools'" {
		t.Errorf("%q", got)
	}
}
