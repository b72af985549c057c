package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/history"
)

// What run -c checks of the run it goes on with, and of its prompt.

// CheckFoundRun refuses a run looked up by id (or "last") in a transcripts
// folder others can put files in, or a transcript of another user, there
// or where the folder's index of runs written elsewhere (-o) says: going
// on runs the calls it left pending, with the user's tools. (A path the
// user gives names the file the user chose: it needs no check.)
func CheckFoundRun(dir, path string) error {
	if why := trust.NotPrivate(dir); why != "" {
		return usagef("the transcripts folder %s %s: a run found there may be one someone planted; name the transcript by its path to go on from it, or make the folder your own", dir, why)
	}
	if index := history.IndexPath(dir); !sameDir(filepath.Dir(path), dir) {
		if why := trust.NotPrivate(index); why != "" {
			return usagef("%s, which says where the runs written elsewhere are, %s: a run found through it may be one someone planted; name the transcript by its path to go on from it", index, why)
		}
	}
	if why := trust.NotPrivate(path); why != "" {
		return usagef("%s %s: a run found there may be one someone planted; name the transcript by its path to go on from it", path, why)
	}
	return nil
}

// RefInPrompt refuses a prompt whose first argument names a run: written
// with a space, `--continue 3f2a9c "and in Rome?"` gives -c no value, so
// the id would be sent as the start of a prompt to the last conversation,
// not to the one named. A first argument that names a run is the start
// of an id of the folder's (six characters or more, a digit among them:
// words such as "decade" are not taken for one) or an agentloop
// transcript's path. The whole prompt quoted as one argument is sent.
func RefInPrompt(dir string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	ref, what := args[0], ""
	switch {
	case strings.HasSuffix(ref, ".jsonl") && isTranscriptFile(ref):
		what = fmt.Sprintf("%q is a transcript: to go on with it", ref)
	case looksLikeID(ref):
		e, err := history.Lookup(dir, ref)
		var amb *history.AmbiguousError
		switch {
		case err == nil:
			what = fmt.Sprintf("%q is the start of run %s's id: to go on with that run", ref, e.ID())
		case errors.As(err, &amb):
			what = fmt.Sprintf("%q is the start of the ids of %d runs: to go on with one of them", ref, len(amb.Matches))
		default:
			return nil
		}
	default:
		return nil
	}
	return flagf("%s, write --continue=%s (with the =: -c alone goes on with the last run, and what follows is the prompt); to ask the last run, quote the whole prompt as one argument", what, ref)
}

// looksLikeID reports whether s could be the start of a run's id as
// agentloop log prints it: hexadecimal, at least six characters, a digit
// among them.
func looksLikeID(s string) bool {
	if len(s) < 6 || len(s) > 16 {
		return false
	}
	digit := false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		default:
			return false
		}
	}
	return digit
}

// isTranscriptFile reports whether path is a regular file that starts as
// an agentloop transcript does.
func isTranscriptFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	b := make([]byte, 64)
	n, _ := io.ReadFull(f, b)
	return bytes.HasPrefix(bytes.TrimLeft(b[:n], " \t"), []byte(`{"type":"header"`))
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && fa.IsDir() && os.SameFile(fa, fb)
}
