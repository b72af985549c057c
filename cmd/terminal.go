package cmd

import (
	"io"
	"os"
)

// openControllingTerminal opens /dev/tty, the process's controlling terminal,
// which stays a terminal when stdin is a pipe (`git diff | agentloop run`).
func openControllingTerminal() (io.ReadWriteCloser, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}

// terminal returns where a person can be asked a question: the answer is
// read from in, the question written to out; done releases them. ok is
// false when no one is there to ask.
//
// A person is taken to be present when stdin or stderr is a terminal.
// The answer is then read from the controlling terminal, else from stdin
// when that is the terminal; the question goes to stderr when it is a
// terminal, else to the controlling terminal, so that it shows where the
// answer is typed. With every stream redirected (a CI job, cron, a test)
// nobody is asked, even when the process has a controlling terminal.
func (s *IOStreams) terminal() (in io.Reader, out io.Writer, done func(), ok bool) {
	if !s.stdinTTY && !s.stderrTTY {
		return nil, nil, nil, false
	}
	if s.openTTY != nil {
		if tty, err := s.openTTY(); err == nil {
			out := io.Writer(tty)
			if s.stderrTTY {
				out = s.ErrOut
			}
			return tty, out, func() { tty.Close() }, true
		}
	}
	if s.stdinTTY {
		return s.In, s.ErrOut, func() {}, true
	}
	return nil, nil, nil, false
}
