package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/pkg/history"
)

// LogShowOptions are the inputs of `agentloop log show` and `log path`.
type LogShowOptions struct {
	IO  *IOStreams
	Dir string
	// Ref is an id prefix, "last" or a path.
	Ref string
	// HTML is the file --html writes, "-" for stdout.
	HTML string
}

func newCmdLogShow(ios *IOStreams, runF func(*LogShowOptions) error) *cobra.Command {
	opts := &LogShowOptions{IO: ios}
	c := &cobra.Command{
		Use:   "show [ID|last]",
		Short: "Show a past run for reading",
		Long: `Render a past run as 'agentloop replay --show' does: every message, each tool
call with its result, the tokens and how the run ended. ID is the start of a
run's id as 'agentloop log' prints it, or "last" (the default) for the newest
run; a transcript's path works too.

--html FILE writes the run as one self-contained web page instead (see
'agentloop replay --help').`,
		Example: `  agentloop log show
  agentloop log show 3f2a9c | less -R
  agentloop log show --html run.html last`,
		Args: maxArgs(1, "ID"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = history.Last
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			dir, err := logDir(c, ios)
			if err != nil {
				return err
			}
			opts.Dir = dir
			if runF != nil {
				return runF(opts)
			}
			return runLogShow(c.Context(), opts)
		},
	}
	c.Flags().StringVar(&opts.HTML, "html", "", "write the run as a self-contained HTML page to `FILE` (- for stdout)")
	return c
}

func runLogShow(ctx context.Context, opts *LogShowOptions) error {
	path, err := findRun(opts.Dir, opts.Ref)
	if err != nil {
		return err
	}
	if opts.HTML != "" {
		return writeHTMLReport(ctx, opts.IO, path, opts.HTML)
	}
	return runReplayShow(ctx, &ReplayOptions{IO: opts.IO, File: path})
}

func newCmdLogPath(ios *IOStreams, runF func(*LogShowOptions) error) *cobra.Command {
	opts := &LogShowOptions{IO: ios}
	return &cobra.Command{
		Use:   "path [ID|last]",
		Short: "Print the path of a past run's transcript",
		Long: `Print the path of a run's transcript, for scripts. ID is the start of a run's
id as 'agentloop log' prints it, or "last" (the default) for the newest run.`,
		Example: `  agentloop log path
  agentloop validate "$(agentloop log path last)"
  agentloop replay "$(agentloop log path 3f2a9c)"`,
		Args: maxArgs(1, "ID"),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Ref = history.Last
			if len(args) == 1 {
				opts.Ref = args[0]
			}
			dir, err := logDir(c, ios)
			if err != nil {
				return err
			}
			opts.Dir = dir
			if runF != nil {
				return runF(opts)
			}
			path, err := findRun(opts.Dir, opts.Ref)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(ios.Out, terminalText(ios, path))
			return err
		},
	}
}

// isRunPath reports whether a reference to a run names a file by its path
// (it has a dot or a slash) rather than a run to look up by id or "last".
func isRunPath(ref string) bool {
	return strings.ContainsRune(ref, filepath.Separator) || strings.ContainsRune(ref, '.')
}

// findRun resolves a reference to a run: the path of a file, else "last"
// or an id prefix among the transcripts of dir. Ids are letters and
// digits: a reference with a dot or a slash is a path, and a path that
// leads nowhere is said to, not looked up as an id.
func findRun(dir, ref string) (string, error) {
	if ref == "" {
		return "", flagErrorf("an empty run reference: give the start of an id, %q or a transcript's path", history.Last)
	}
	if isRunPath(ref) {
		return transcriptFile(homePath(ref))
	}
	e, err := history.Lookup(dir, ref)
	var (
		nf  *history.NotFoundError
		amb *history.AmbiguousError
	)
	switch {
	case errors.As(err, &nf):
		// A transcript in the working folder, named without an extension.
		if _, serr := os.Stat(ref); serr == nil && ref != history.Last {
			return transcriptFile(ref)
		}
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("%v in %s ('agentloop log' lists the runs)", err, dir)}
	case errors.As(err, &amb):
		return "", &ExitError{Code: ExitUsage, Err: err}
	case err != nil:
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("read the transcript folder: %w", err)}
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
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("no transcript at %s: %v", path, pe.Err)}
	case err != nil:
		return "", &ExitError{Code: ExitUsage, Err: err}
	case fi.IsDir():
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s is a folder, not a transcript ('agentloop log --dir %s' lists the runs in it)", path, path)}
	case !fi.Mode().IsRegular():
		return "", &ExitError{Code: ExitUsage, Err: fmt.Errorf("%s is not a regular file, not a transcript", path)}
	}
	return path, nil
}

// maxArgs allows at most n positional arguments, named in the error.
func maxArgs(n int, names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) > n {
			return flagErrorf("%s takes at most %d argument(s) (%s), got %d", c.CommandPath(), n, strings.Join(names, ", "), len(args))
		}
		return nil
	}
}
