package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// createOutput creates the transcript -o names. The folder must exist, and
// a file that is not an agentloop transcript is overwritten only with
// --force; an earlier transcript is replaced. With temp the file takes
// its name only at Commit (see transcript.CreateTemp).
func createOutput(path string, redact *transcript.Redactor, force, temp bool) (*transcript.Writer, error) {
	// "-" is stdout everywhere else, but stdout holds the answer: a file
	// called "-" made here would be a surprise, a transcript mixed into the
	// answer a worse one.
	if path == "-" {
		return nil, &ExitError{Code: ExitUsage, Err: errors.New(`-o -: the transcript cannot go to stdout, which holds the answer; name a file (-o ./- for one called "-")`)}
	}
	create := transcript.CreateAt
	if temp {
		create = transcript.CreateTempAt
	}
	w, err := create(path, redact, force)
	switch {
	case err == nil:
		return w, nil
	case errors.Is(err, transcript.ErrNotTranscript):
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o %s: %v: it is left as it is (--force overwrites it)", path, err)}
	case errors.Is(err, fs.ErrNotExist):
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o %s: %v (-o makes no folder)", path, err)}
	case errors.Is(err, transcript.ErrIsFolder):
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o %s: %v; name a file for the transcript (-o %s)", path, err, filepath.Join(path, "run.jsonl"))}
	case errors.Is(err, transcript.ErrNotFolder):
		return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("-o %s: %v", path, err)}
	}
	return nil, fmt.Errorf("-o %s: %w", path, err)
}

// replaceFile writes a file a command makes whole (a merged results file,
// a web page) at path: beside it under a temporary name, synced, 0600, and
// renamed over it, so that a reader never sees it half written and a
// failure leaves what was there. A device or a pipe (/dev/stdout) is
// written to, never renamed over. The caller has refused what path must
// not replace.
func replaceFile(path string, write func(io.Writer) error) error {
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
