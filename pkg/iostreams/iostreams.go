// Package iostreams holds the standard streams of one invocation and what
// is known of them: which are terminals, the width, whether colours are
// wanted, the environment. Commands read and write only through them, so
// tests can swap in buffers and flip the terminal flags.
package iostreams

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/term"
)

// IOStreams are the standard streams of one invocation. Commands read and write
// only through them, so tests can swap in buffers and flip the terminal flags.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY  bool
	stdinData bool // stdin is a pipe or a file: something to read
	stdoutTTY bool
	stderrTTY bool
	width     int
	color     bool

	// getenv reads the process environment; tests replace it.
	getenv func(string) string
	// openTTY opens the controlling terminal (see Terminal); nil in tests.
	openTTY func() (io.ReadWriteCloser, error)
}

// System returns the process's own streams.
func System() *IOStreams {
	ios := &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdinData: hasData(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		getenv:    os.Getenv,
		openTTY:   openControllingTerminal,
	}
	// The width of the terminal stdout is on, else of the one stderr is on
	// (progress lines go there while the answer is piped), else $COLUMNS.
	ios.width = 80
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); ios.stdoutTTY && err == nil && w > 0 {
		ios.width = w
	} else if w, _, err := term.GetSize(int(os.Stderr.Fd())); ios.stderrTTY && err == nil && w > 0 {
		ios.width = w
	} else if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		ios.width = c
	}
	ios.color = colorWanted(ios.stdoutTTY, os.Getenv)
	return ios
}

// colorWanted reports whether output takes ANSI colours: on a terminal,
// unless NO_COLOR is set to anything but "" (https://no-color.org) or the
// terminal is dumb.
func colorWanted(tty bool, getenv func(string) string) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// Test returns streams backed by buffers: stdin, stdout and stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: 80, getenv: func(string) string { return "" }}, in, out, errOut
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// hasData reports whether f is a pipe or a regular file. A terminal or a
// character device such as /dev/null holds no input worth waiting for.
func hasData(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&os.ModeNamedPipe != 0 || m.IsRegular() || m&os.ModeSocket != 0
}

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// HasStdinData reports whether stdin is a pipe or a file to read a prompt from.
func (s *IOStreams) HasStdinData() bool { return s.stdinData }

// SetStdinData marks stdin as piped (or not); tests use it.
func (s *IOStreams) SetStdinData(on bool) { s.stdinData = on }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetTTY sets all three terminal flags; tests use it to fake a terminal.
func (s *IOStreams) SetTTY(stdin, stdout, stderr bool) {
	s.stdinTTY, s.stdoutTTY, s.stderrTTY = stdin, stdout, stderr
}

// Width is the terminal width: stdout's, else stderr's, else $COLUMNS, else 80.
func (s *IOStreams) Width() int { return s.width }

// SetWidth sets the width; tests use it.
func (s *IOStreams) SetWidth(w int) { s.width = w }

// CanRedraw reports whether stderr is a terminal that can erase a line, as
// a status line rewritten in place needs: not one whose TERM is dumb.
func (s *IOStreams) CanRedraw() bool {
	return s.stderrTTY && (s.getenv == nil || s.getenv("TERM") != "dumb")
}

// ColorEnabled reports whether stdout takes ANSI colours (a terminal, NO_COLOR unset).
func (s *IOStreams) ColorEnabled() bool { return s.color }

// SetColorEnabled turns colours on or off; tests use it.
func (s *IOStreams) SetColorEnabled(on bool) { s.color = on }

// Getenv reads an environment variable.
func (s *IOStreams) Getenv(key string) string {
	if s.getenv == nil {
		return ""
	}
	return s.getenv(key)
}

// SetEnv replaces the environment lookup; tests use it.
func (s *IOStreams) SetEnv(getenv func(string) string) { s.getenv = getenv }

// WatchedWriter remembers the first error a write to it returned. Writes
// may come from several goroutines, as they may to an *os.File.
type WatchedWriter struct {
	w   io.Writer
	mu  sync.Mutex
	err error
}

// Watch wraps w.
func Watch(w io.Writer) *WatchedWriter { return &WatchedWriter{w: w} }

// Unwrap is the writer watched.
func (w *WatchedWriter) Unwrap() io.Writer { return w.w }

func (w *WatchedWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = err
		}
		w.mu.Unlock()
	}
	return n, err
}

// Err is the first error a write returned.
func (w *WatchedWriter) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// openControllingTerminal opens /dev/tty, the process's controlling terminal,
// which stays a terminal when stdin is a pipe (`git diff | agentloop run`).
func openControllingTerminal() (io.ReadWriteCloser, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}

// Terminal returns where a person can be asked a question: the answer is
// read from in, the question written to out; done releases them. ok is
// false when no one is there to ask.
//
// A person is taken to be present when stdin or stderr is a terminal.
// The answer is then read from the controlling terminal, else from stdin
// when that is the terminal; the question goes to stderr when it is a
// terminal, else to the controlling terminal, so that it shows where the
// answer is typed. With every stream redirected (a CI job, cron, a test)
// nobody is asked, even when the process has a controlling terminal.
func (s *IOStreams) Terminal() (in io.Reader, out io.Writer, done func(), ok bool) {
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
