package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// IsPath reports whether a reference to a run names a file by its path
// (it has a dot or a slash) rather than a run to look up by id or "last".
func IsPath(ref string) bool {
	return strings.ContainsRune(ref, filepath.Separator) || strings.ContainsRune(ref, '.')
}

// Resolve resolves a reference to a run: the path of a file, else "last"
// or an id prefix among the transcripts of dir. Ids are letters and
// digits: a reference with a dot or a slash is a path, and a path that
// leads nowhere is said to, not looked up as an id. Every error says what
// of the reference is wrong.
func Resolve(dir, ref string) (string, error) {
	if IsPath(ref) {
		return transcriptFile(homePath(ref))
	}
	e, err := Lookup(dir, ref)
	var (
		nf  *NotFoundError
		amb *AmbiguousError
	)
	switch {
	case errors.As(err, &nf):
		// A transcript in the working folder, named without an extension.
		if _, serr := os.Stat(ref); serr == nil && ref != Last {
			return transcriptFile(ref)
		}
		return "", fmt.Errorf("%v in %s ('agentloop log' lists the runs)", err, dir)
	case errors.As(err, &amb):
		return "", err
	case err != nil:
		return "", fmt.Errorf("read the transcript folder: %w", err)
	}
	return e.Path, nil
}

// homePath reads a leading ~/ as the home folder, as a shell would: after
// the = of --continue=~/run.jsonl no shell does, and the = is needed there.
// A folder of the working folder named ~ wins.
func homePath(path string) string {
	rest, ok := strings.CutPrefix(path, "~/")
	if !ok {
		return path
	}
	if _, err := os.Lstat("~"); err == nil {
		return path
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, rest)
	}
	return path
}

// transcriptFile checks that a path given for a run is a file.
func transcriptFile(path string) (string, error) {
	fi, err := os.Stat(path)
	var pe *os.PathError
	switch {
	case errors.As(err, &pe):
		return "", fmt.Errorf("no transcript at %s: %v", path, pe.Err)
	case err != nil:
		return "", err
	case fi.IsDir():
		return "", fmt.Errorf("%s is a folder, not a transcript ('agentloop log --dir %s' lists the runs in it)", path, path)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file, not a transcript", path)
	}
	return path, nil
}
