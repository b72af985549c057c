package cmd

import (
	"context"
	"fmt"
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

// isRunPath reports whether a reference to a run names a file by its path.
var isRunPath = history.IsPath

// findRun resolves a reference to a run (history.Resolve): a path, "last"
// or the start of an id.
func findRun(dir, ref string) (string, error) {
	if ref == "" {
		return "", flagErrorf("an empty run reference: give the start of an id, %q or a transcript's path", history.Last)
	}
	path, err := history.Resolve(dir, ref)
	if err != nil {
		return "", &ExitError{Code: ExitUsage, Err: err}
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
