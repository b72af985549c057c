package trust

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/agentloop/agentloop/internal/shell"
	"github.com/agentloop/agentloop/internal/termtext"
)

// Reason says why the tools of dir, a folder found by itself, are not to
// be used, or "" when they are: own is the user's own tools folder (used
// unless anyone could have put a tool in it), store the record of the
// folders trusted, or why there is none (storeErr).
func Reason(dir, own string, store *Store, storeErr error) (string, error) {
	if own != "" {
		a, errA := Canonical(dir)
		b, errB := Canonical(own)
		// Yours, unless anyone could have put a tool in it: then it is
		// trusted as a project's folder is, as it was reviewed.
		if errA == nil && errB == nil && a == b && NotPrivate(own) == "" {
			return "", nil
		}
	}
	if storeErr != nil {
		return "not trusted (" + storeErr.Error() + ")", nil
	}
	status, err := store.Check(dir)
	var unreadable *UnreadableError
	switch {
	case errors.As(err, &unreadable):
		return fmt.Sprintf("it cannot be read to check it (%v)", unreadable.Err), nil
	case err != nil:
		return "", fmt.Errorf("trusted tools folders: %w", err)
	}
	switch status {
	case Trusted:
		return "", nil
	case Changed:
		return "it changed since you trusted it", nil
	}
	return "this folder is not trusted", nil
}

// Command is the command that trusts dir.
func Command(dir string) string {
	if filepath.Clean(dir) == "tools.d" {
		return "agentloop tools trust"
	}
	return "agentloop tools trust " + shell.Quote(dir)
}

// WriteList writes a line a folder trusted: whether it is as it was
// trusted (trusted, changed or missing), its path, and when.
func (s *Store) WriteList(w io.Writer, list []Entry) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	for _, e := range list {
		state := "trusted"
		switch status, err := s.Check(e.Dir); {
		case err != nil && errors.Is(err, os.ErrNotExist):
			state = "missing"
		case err != nil:
			return err
		case status == Changed:
			state = "changed"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", state, termtext.Display(e.Dir, len(e.Dir)), e.Trusted.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
