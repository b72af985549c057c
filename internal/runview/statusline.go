package runview

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Options say where progress goes and how much of it.
type Options struct {
	// W is stderr.
	W io.Writer
	// Redact keeps secrets out of each line printed.
	Redact func(string) string
	// Verbose prints a line per call (-v); Quiet nothing (-q).
	Verbose, Quiet bool
	// TTY is set when W is a terminal; CanRedraw when it can also erase
	// a line, as a status line rewritten in place needs.
	TTY, CanRedraw bool
	// Width is the terminal's.
	Width int
}

// statusLine is a line of progress rewritten in place on stderr, with the
// -v lines printed above it. While a question is asked on the terminal the
// line stays off the screen and -v lines wait, so that the question is not
// overwritten or split. Its owner draws the line holding mu.
type statusLine struct {
	w      io.Writer
	redact func(string) string

	mu     sync.Mutex
	shown  bool // a status line is on screen
	held   int  // questions being asked
	queued []string
}

func (s *statusLine) clearLocked() {
	if s.shown {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.shown = false
	}
}

// showLocked puts text on screen in place of the line shown.
func (s *statusLine) showLocked(text string) {
	fmt.Fprint(s.w, "\r\x1b[K"+text)
	s.shown = true
}

// Hold takes the status line off the screen and keeps stderr quiet until
// release is called.
func (s *statusLine) Hold() (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clearLocked()
	s.held++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.held--
		if s.held == 0 {
			for _, line := range s.queued {
				fmt.Fprintln(s.w, line)
			}
			s.queued = nil
		}
	}
}

// printlnLocked writes a -v line, or queues it while a question is asked.
func (s *statusLine) printlnLocked(line string) {
	line = s.redact(line)
	if s.held > 0 {
		s.queued = append(s.queued, line)
		return
	}
	fmt.Fprintln(s.w, line)
}

// SetRedact replaces what keeps secrets out of each line: a command knows
// the secrets of its tools once it has loaded them.
func (s *statusLine) SetRedact(redact func(string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.redact = redact
}

// tickEvery is how often a live status line is drawn again, so that its
// elapsed time moves while nothing else happens.
const tickEvery = 200 * time.Millisecond

// redrawEvery draws the line with draw, under the line's lock, every
// interval until stop is closed; then it closes stopped.
func (l *statusLine) redrawEvery(interval time.Duration, stop <-chan struct{}, stopped chan<- struct{}, draw func()) {
	defer close(stopped)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			l.mu.Lock()
			draw()
			l.mu.Unlock()
		}
	}
}
