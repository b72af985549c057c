package cmd

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// errStdoutClosed is the cause of a live run's cancellation when the program
// reading its streamed text went away (`agentloop run --stream | head -1`).
var errStdoutClosed = errors.New("standard output was closed")

// closedOutput is standard output as a live run streams to it: the first
// write that fails because nobody reads any more (EPIPE) calls closed, and
// later writes go nowhere.
type closedOutput struct {
	w      io.Writer
	closed func()
	gone   atomic.Bool
}

func (c *closedOutput) Write(p []byte) (int, error) {
	if c.gone.Load() {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		if !c.gone.Swap(true) {
			c.closed()
		}
		return len(p), nil
	}
	return n, err
}

// catchBrokenPipes keeps a closed pipe on standard output or error from
// killing the process while a live run goes on, until the returned function
// is called: Go's runtime dies of SIGPIPE on such a write unless the signal
// is caught, which would leave the transcript without its end record. Caught
// (not ignored, which tools would inherit), the write fails with EPIPE
// instead: on stdout the run stops as interrupted, on stderr a line of
// progress is lost and the run goes on.
func catchBrokenPipes() (stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGPIPE)
	return func() { signal.Stop(c) }
}
