package cmd

import "context"

// interruptible runs work on a goroutine of its own and returns what it
// returns, or the interrupt's cause as soon as ctx is done: work blocked
// in a read (a pipe, a terminal) or a write (a reader that stopped
// reading) would hold the first Ctrl-C up until it ends. The command then
// returns and the process exits with work where it was, so work must
// leave nothing to clean up when it is cut short (no temporary file).
func interruptible(ctx context.Context, work func() error) error {
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
