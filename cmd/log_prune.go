package cmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// LogPruneOptions are the inputs of `agentloop log prune`.
type LogPruneOptions struct {
	IO        *iostreams.IOStreams
	Dir       string
	OlderThan time.Duration
	Yes       bool
	now       func() time.Time
}

func newCmdLogPrune(ios *iostreams.IOStreams, runF func(*LogPruneOptions) error) *cobra.Command {
	opts := &LogPruneOptions{IO: ios, now: time.Now}
	var olderThan string
	c := &cobra.Command{
		Use:   "prune --older-than AGE [--yes]",
		Short: "Remove the transcripts of old runs",
		Long: `Remove the transcripts of the runs that started more than AGE ago (30d, 2w,
3mo, 12h, 90min; "m" alone is refused: write min or mo), read as 'log --since'
reads it. Without --yes nothing is removed: the files that would be are printed,
one path a line on stdout, with a summary on stderr.

Only agentloop transcripts are removed: a file in the folder that is not one
(or whose header cannot be read) is left alone whatever its age. A run that
continued a removed one keeps its own copy of the conversation. A run written
elsewhere with -o leaves the history, its file left where it is; so does one
whose file was moved or removed since.`,
		Example: `  agentloop log prune --older-than 30d
  agentloop log prune --older-than 30d --yes`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if olderThan == "" {
				return flagErrorf("say how old a run must be to go: --older-than AGE (30d, 2w, 12h)")
			}
			age, err := history.ParseAge(olderThan)
			if err != nil {
				return flagErrorf("--older-than: %v", err)
			}
			opts.OlderThan = age
			dir, err := logDir(c, ios)
			if err != nil {
				return err
			}
			opts.Dir = dir
			if runF != nil {
				return runF(opts)
			}
			return runLogPrune(opts)
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "remove runs started more than `AGE` ago (30d, 2w, 12h)")
	c.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "remove them (without it, only list them)")
	return c
}

func runLogPrune(opts *LogPruneOptions) error {
	ios := opts.IO
	entries, err := history.Scan(opts.Dir, history.Options{})
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("read the transcript folder: %w", err)}
	}
	cutoff := opts.now().Add(-opts.OlderThan)
	// A run written elsewhere (-o) leaves the history, its file stays:
	// the user chose where it went.
	old, elsewhere := history.Elsewhere(opts.Dir, history.Older(entries, cutoff))
	var size int64
	for _, e := range old {
		size += e.Size
		// A name in the folder may come from anywhere: on a terminal its
		// escapes are shown; piped, it is the path a script removes.
		fmt.Fprintln(ios.Out, terminalText(ios, e.Path))
	}
	n := fmt.Sprintf("%d transcript%s (%s)", len(old), plural(len(old), "", "s"), bytesize.Binary(int(size)))
	forget := fmt.Sprintf("%d run%s written elsewhere (-o)", len(elsewhere), plural(len(elsewhere), "", "s"))
	if !opts.Yes {
		if len(old) == 0 && len(elsewhere) == 0 {
			fmt.Fprintf(ios.ErrOut, "no run in %s started before %s\n", termtext.Safe(opts.Dir), cutoff.Local().Format("2006-01-02 15:04"))
			return nil
		}
		if len(old) > 0 {
			fmt.Fprintf(ios.ErrOut, "would remove %s of runs started before %s; run again with --yes to remove them\n", n, cutoff.Local().Format("2006-01-02 15:04"))
		}
		if len(elsewhere) > 0 {
			fmt.Fprintf(ios.ErrOut, "would forget %s started before %s, leaving their files where they are; run again with --yes to forget them\n", forget, cutoff.Local().Format("2006-01-02 15:04"))
		}
		return nil
	}
	removed, freed, err := history.Remove(old)
	fmt.Fprintf(ios.ErrOut, "removed %d transcript%s (%s)\n", removed, plural(removed, "", "s"), bytesize.Binary(int(freed)))
	// The lines of runs whose files are gone go too: the index stays as
	// long as the history it lists.
	forgot, ferr := history.Forget(opts.Dir, elsewhere)
	if forgot > 0 {
		fmt.Fprintf(ios.ErrOut, "forgot %d run%s written elsewhere (-o), their files left where they are\n", forgot, plural(forgot, "", "s"))
	}
	return errors.Join(err, ferr)
}
