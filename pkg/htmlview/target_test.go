package htmlview

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A page replaces an earlier page, an empty file or nothing; it is not
// written over a folder or a file that is not a page, nor into a folder
// not there; a device is written to.
func TestCheckTarget(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "old.html")
	os.WriteFile(page, []byte("\xef\xbb\xbf\n  <!DOCTYPE html><html></html>"), 0o600)
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o600)
	empty := filepath.Join(dir, "empty.html")
	os.WriteFile(empty, nil, 0o600)
	for _, tt := range []struct {
		out, want string
		device    bool
	}{
		{page, "", false},
		{empty, "", false},
		{filepath.Join(dir, "new.html"), "", false},
		{"/dev/null", "", true},
		{dir, "is a folder", false},
		{notes, "is not a web page", false},
		{filepath.Join(dir, "none", "p.html"), "--html makes no folder", false},
	} {
		device, err := CheckTarget(tt.out)
		if device != tt.device || tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: device %v, %v; want %v, %q", tt.out, device, err, tt.device, tt.want)
		}
	}
}
