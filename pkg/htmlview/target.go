package htmlview

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CheckTarget refuses a file the page must not be written to: one in a
// folder not there (no folder is made), a folder, a file that is not a
// web page (one an earlier page was written to is replaced). It reports
// whether out is a pipe or a device, written to and never replaced.
func CheckTarget(out string) (device bool, err error) {
	if dir := filepath.Dir(out); dir != "." {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("--html %s: folder %s: no such file or directory (--html makes no folder)", out, dir)
		}
	}
	fi, err := os.Stat(out)
	if err != nil {
		return false, nil
	}
	switch {
	case fi.IsDir():
		return false, fmt.Errorf("--html %s: is a folder; name a file for the page (--html %s)", out, filepath.Join(out, "run.html"))
	case fi.Mode().IsRegular() && fi.Size() > 0 && !isPage(out):
		return false, fmt.Errorf("--html %s: the file exists and is not a web page: it is left as it is (remove it, or name another file for the page)", out)
	}
	return !fi.Mode().IsRegular(), nil
}

// isPage reports whether the file starts as a web page does.
func isPage(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	b = bytes.TrimLeft(bytes.TrimPrefix(b[:n], []byte("\xef\xbb\xbf")), " \t\r\n")
	head := bytes.ToLower(b)
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
}
