package cmd

import (
	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// The progress shown on stderr is drawn by internal/runview. redact, which
// a command sets once its tools are known, keeps the provider keys and
// the values given to the servers out of every line.

// progress is the display of one run (runview.Progress).
type progress struct {
	*runview.Progress
	redact *transcript.Redactor
}

func newProgress(ios *IOStreams, verbose, quiet bool) *progress {
	p := &progress{redact: secrets(ios)}
	p.Progress = runview.NewProgress(progressOptions(ios, verbose, quiet, func(s string) string { return p.redact.RedactString(s) }))
	return p
}

// batchProgress is the display of a batch (runview.Batch).
type batchProgress struct {
	*runview.Batch
	redact *transcript.Redactor
}

func newBatchProgress(ios *IOStreams, verbose, quiet bool, total int) *batchProgress {
	p := &batchProgress{redact: secrets(ios)}
	p.Batch = runview.NewBatch(progressOptions(ios, verbose, quiet, func(s string) string { return p.redact.RedactString(s) }), total)
	return p
}

func progressOptions(ios *IOStreams, verbose, quiet bool, redact func(string) string) runview.Options {
	return runview.Options{W: ios.ErrOut, Redact: redact, Verbose: verbose, Quiet: quiet,
		TTY: ios.IsStderrTTY(), CanRedraw: ios.CanRedraw(), Width: ios.Width()}
}

// What the approver needs of a display (approvalUI), and where a run's
// transcript goes.
func (p *progress) hold() (release func())      { return p.Hold() }
func (p *progress) note(line string)            { p.Note(line) }
func (p *progress) transcriptPath(line string)  { p.TranscriptPath(line) }
func (p *batchProgress) hold() (release func()) { return p.Hold() }
func (p *batchProgress) note(line string)       { p.Note(line) }
