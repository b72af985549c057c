package cmd

import (
	"fmt"
	"strings"

	"github.com/agentloop/agentloop/pkg/replay"
)

// printConformance says on stderr whether the replayed answer matches the
// schema the recording records, and reports whether it does not (a
// failure of the replay, as a divergence is).
func printConformance(ios *IOStreams, c *replay.Conformance) bool {
	if c == nil {
		return false
	}
	if c.OK {
		fmt.Fprintln(ios.ErrOut, "replay: the answer matches the recorded schema")
		return false
	}
	fmt.Fprintf(ios.ErrOut, "replay: the answer does not match the recorded schema: %s\n", displayText(strings.Join(c.Problems, "; "), 2000))
	return true
}
