package cmd

import (
	"errors"
	"fmt"
	"io/fs"
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
