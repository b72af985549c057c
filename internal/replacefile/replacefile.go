// Package replacefile writes a file whole or not at all: what a reader
// finds at its path is the old file or the new one, never half of it.
package replacefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes a file a command makes whole (a merged results file,
// a web page) at path: beside it under a temporary name, synced, 0600, and
// renamed over it, so that a reader never sees it half written and a
// failure leaves what was there. A device or a pipe (/dev/stdout) is
// written to, never renamed over. The caller has refused what path must
// not replace.
func Write(path string, write func(io.Writer) error) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := write(f); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", path, err)
		}
		return f.Close()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		// What it holds is as private as what it was made from.
		err = f.Chmod(0o600)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
