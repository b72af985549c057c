package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/longtext"
	"github.com/agentloop/agentloop/pkg/textview"
)

// runReplayShow renders a recorded run for reading (pkg/textview): on a
// terminal with its colours and width, piped plain. An interrupt ends it
// at once, even in a blocked read or write.
func runReplayShow(ctx context.Context, opts *ReplayOptions) error {
	return interruptible(ctx, func() error {
		_, err := replayShow(opts, textview.LongText)
		return err
	})
}

// replayShow is runReplayShow with texts longer than limit left in the
// file; it returns where they are.
func replayShow(opts *ReplayOptions, limit int) (*longtext.Store, error) {
	ios := opts.IO
	in := ios.In
	if opts.File != "-" {
		f, err := os.Open(opts.File)
		if err != nil {
			return nil, &ExitError{Code: ExitUsage, Err: fmt.Errorf("read transcript: %w", err)}
		}
		defer f.Close()
		in = f
	}
	view := textview.Options{Name: opts.File, LongText: limit}
	if ios.IsStdoutTTY() {
		view.Width = ios.Width()
		view.Color = ios.ColorEnabled()
	}
	res, err := textview.Render(ios.Out, in, view)
	if res.Torn != nil {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: %s:%d: the last line is incomplete (the writer was stopped mid-record); it is ignored\n", termtext.Safe(opts.File), res.Torn.Line)
	}
	return res.Long, err
}
