package cmd

import (
	"io"

	"github.com/agentloop/agentloop/internal/runview"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// wantStream decides whether run streams: asked for with --stream, or by
// default on a terminal, never with --json.
func wantStream(ios *iostreams.IOStreams, stream, noStream, asJSON bool) bool {
	if asJSON || noStream {
		return false
	}
	return stream || ios.IsStdoutTTY()
}

// attachStream makes the loop stream the model's text to out (standard
// output); it returns nil when not streaming.
func attachStream(ios *iostreams.IOStreams, out io.Writer, loop *agent.Loop, prog *runview.Progress, on bool) *runview.Stream {
	if !on {
		return nil
	}
	s := runview.NewStream(out, ios.IsStdoutTTY(), prog.PauseForText)
	s.Attach(loop)
	return s
}
