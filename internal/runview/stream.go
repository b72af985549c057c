package runview

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
)

// Stream writes the model's text to stdout as it is generated. Text a
// model writes before calling tools streams too (on a terminal that is the
// plan, worth seeing); it is ended with a blank line, and only the last
// turn's text is the answer. The status line on stderr is cleared before
// any text goes out, so the two never share a line.
type Stream struct {
	out io.Writer
	// pause takes the status line off stderr before text goes out.
	pause func()
	// safe is out on a terminal: the model's text shown, not obeyed.
	safe *termtext.Writer
	// open is set while a turn's text is being written; final when the
	// answer went out this way.
	open, final bool
	lastNL      bool
}

// NewStream streams to out, through termtext.Writer when out is a
// terminal (tty); pause is called before the text of a turn goes out.
func NewStream(out io.Writer, tty bool, pause func()) *Stream {
	s := &Stream{out: out, pause: pause}
	if tty {
		s.safe = termtext.NewWriter(out)
		s.out = s.safe
	}
	return s
}

// Attach makes loop stream its text through s; each event goes to s
// before the OnEvent loop had.
func (s *Stream) Attach(loop *agent.Loop) {
	loop.OnText = s.Text
	next := loop.OnEvent
	loop.OnEvent = func(e agent.Event) {
		s.Event(e)
		next(e)
	}
}

// Text is the loop's OnText.
func (s *Stream) Text(delta string) {
	if delta == "" {
		return
	}
	if !s.open {
		s.pause()
		s.open, s.final = true, false
	}
	io.WriteString(s.out, delta)
	s.lastNL = strings.HasSuffix(delta, "\n")
}

// Event ends a turn's text when the turn is complete.
func (s *Stream) Event(e agent.Event) {
	if e.Kind != agent.EventTurn || !s.open {
		return
	}
	s.endLine()
	// A turn that ends the run is the answer, calls or not: the loop does
	// not run the calls of a refused or cut-off turn, nor those of the
	// last request a budget allowed (a server that ignored its tool
	// choice).
	switch {
	case len(e.Turn.Calls) == 0, e.Turn.Stop == agent.StopMaxTokens, e.Turn.Stop == agent.StopRefusal,
		e.Request != nil && e.Request.Final:
		s.final = true
	default:
		fmt.Fprintln(s.out)
	}
	s.open = false
}

// Close ends a line cut off by an error.
func (s *Stream) Close() {
	if s.open {
		s.endLine()
		s.open = false
	}
}

func (s *Stream) endLine() {
	if s.safe != nil {
		s.safe.Flush()
	}
	if !s.lastNL {
		fmt.Fprintln(s.out)
		s.lastNL = true
	}
}

// Answered reports whether the final answer already went to stdout.
func (s *Stream) Answered() bool { return s.final }
