package cmd

import (
	"io"

	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/agent"
)

// answerStream writes the model's text to stdout as it is generated
// (runview.Stream).
type answerStream struct{ *runview.Stream }

// wantStream decides whether run streams: asked for with --stream, or by
// default on a terminal, never with --json.
func wantStream(ios *IOStreams, stream, noStream, asJSON bool) bool {
	if asJSON || noStream {
		return false
	}
	return stream || ios.IsStdoutTTY()
}

// answered reports whether the final answer already went to stdout.
func (s *answerStream) answered() bool { return s != nil && s.Answered() }

// attachStream makes the loop stream the model's text to out (standard
// output); it returns nil when not streaming.
func attachStream(ios *IOStreams, out io.Writer, loop *agent.Loop, prog *progress, on bool) *answerStream {
	if !on {
		return nil
	}
	s := runview.NewStream(out, ios.IsStdoutTTY(), prog.PauseForText)
	s.Attach(loop)
	return &answerStream{s}
}
