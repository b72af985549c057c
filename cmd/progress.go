package cmd

import (
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// The progress shown on stderr is drawn by internal/runview: its lines
// keep the provider keys out, and the values given to the servers once a
// command has loaded its tools (SetRedact).

func newProgress(ios *iostreams.IOStreams, verbose, quiet bool) *runview.Progress {
	return runview.NewProgress(progressOptions(ios, verbose, quiet))
}

func newBatchProgress(ios *iostreams.IOStreams, verbose, quiet bool, total int) *runview.Batch {
	return runview.NewBatch(progressOptions(ios, verbose, quiet), total)
}

func progressOptions(ios *iostreams.IOStreams, verbose, quiet bool) runview.Options {
	return runview.Options{W: ios.ErrOut, Redact: secrets(ios).RedactString, Verbose: verbose, Quiet: quiet,
		TTY: ios.IsStderrTTY(), CanRedraw: ios.CanRedraw(), Width: ios.Width()}
}
