package cmd

import (
	"bytes"
	"io"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// IOStreams are the standard streams of one invocation (pkg/iostreams).
// A copy is a copy of the streams: an item of a batch gets its own.
type IOStreams struct{ iostreams.IOStreams }

// watchedWriter is stdout as Execute watches it.
type watchedWriter = iostreams.WatchedWriter

// System returns the process's own streams.
func System() *IOStreams { return &IOStreams{*iostreams.System()} }

// Test returns streams backed by buffers: stdin, stdout and stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	ios, in, out, errOut := iostreams.Test()
	return &IOStreams{*ios}, in, out, errOut
}

// terminal is where a person can be asked a question (iostreams.Terminal).
func (s *IOStreams) terminal() (in io.Reader, out io.Writer, done func(), ok bool) {
	return s.Terminal()
}
