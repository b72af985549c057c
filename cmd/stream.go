package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
)

// answerStream writes the model's text to stdout as it is generated. Text a
// model writes before calling tools streams too (on a terminal that is the
// plan, worth seeing); it is ended with a blank line, and only the last
// turn's text is the answer. The status line on stderr is cleared before
// any text goes out, so the two never share a line.
type answerStream struct {
	out  io.Writer
	prog *progress
	// safe is out on a terminal: the model's text shown, not obeyed.
	safe *termtext.Writer
	// open is set while a turn's text is being written; final when the
	// answer went out this way.
	open, final bool
	lastNL      bool
}

// wantStream decides whether run streams: asked for with --stream, or by
// default on a terminal, never with --json.
func wantStream(ios *IOStreams, stream, noStream, asJSON bool) bool {
	if asJSON || noStream {
		return false
	}
	return stream || ios.IsStdoutTTY()
}

// Text is the loop's OnText.
func (s *answerStream) Text(delta string) {
	if delta == "" {
		return
	}
	if !s.open {
		s.prog.PauseForText()
		s.open, s.final = true, false
	}
	io.WriteString(s.out, delta)
	s.lastNL = strings.HasSuffix(delta, "\n")
}

// Event ends a turn's text when the turn is complete.
func (s *answerStream) Event(e agent.Event) {
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
func (s *answerStream) Close() {
	if s.open {
		s.endLine()
		s.open = false
	}
}

func (s *answerStream) endLine() {
	if s.safe != nil {
		s.safe.Flush()
	}
	if !s.lastNL {
		fmt.Fprintln(s.out)
		s.lastNL = true
	}
}

// answered reports whether the final answer already went to stdout.
func (s *answerStream) answered() bool { return s != nil && s.final }

// attachStream makes the loop stream the model's text to out (standard
// output); it returns nil when not streaming.
func attachStream(ios *IOStreams, out io.Writer, loop *agent.Loop, prog *progress, on bool) *answerStream {
	if !on {
		return nil
	}
	s := &answerStream{out: out, prog: prog}
	if ios.IsStdoutTTY() {
		s.safe = termtext.NewWriter(out)
		s.out = s.safe
	}
	loop.OnText = s.Text
	next := loop.OnEvent
	loop.OnEvent = func(e agent.Event) {
		s.Event(e)
		next(e)
	}
	return s
}
