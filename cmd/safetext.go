package cmd

import (
	"io"

	"github.com/agentloop/agentloop/internal/termtext"
)

// What of a text may reach a terminal as it is, and how wide it is there,
// is decided in internal/termtext; the commands call it by these names.
var (
	safeText    = termtext.Safe
	displayText = termtext.Display
	oneLineText = termtext.OneLine
	fitWidth    = termtext.Fit
)

// jsonOut is where JSON Lines for stdout go: on a terminal through
// termtext.Writer, since JSON leaves C1 controls and bidirectional
// overrides as they are (the \u escapes it gets instead are the same
// JSON); piped, byte for byte. Each line ends whole, so nothing is left
// to flush.
func jsonOut(ios *IOStreams) io.Writer {
	if ios.IsStdoutTTY() {
		return termtext.NewWriter(ios.Out)
	}
	return ios.Out
}

// terminalText is text for stdout: made safe when stdout is a terminal,
// byte for byte when it is piped or redirected.
func terminalText(ios *IOStreams, s string) string {
	if ios.IsStdoutTTY() {
		return safeText(s)
	}
	return s
}
