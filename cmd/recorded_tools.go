package cmd

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// warnToolsDirsGone warns when the tools folders a recording names (as
// given to the run, so relative to where it started) are not there: every
// call of theirs would then be a "missing tool", for a reason the rows do
// not say. called are the tools the recording calls (calledTools), or,
// for a follow-up, those it offered.
func warnToolsDirsGone(ios *IOStreams, o *liveOptions, conv *transcript.Conversation, called []string) {
	if o.toolsDirsSet || o.Quiet || conv.Header == nil || len(called) == 0 {
		return
	}
	for _, dir := range conv.Header.ToolsDirs {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(ios.ErrOut, "agentloop: warning: the recording's tools folder %s is not here (a folder is recorded as the run was given it): run from the folder the run started in, or pass --tools-dir\n", safeText(dir))
		}
	}
}

// calledTools are the names of the tools a conversation's turns call.
func calledTools(d agent.Dialect, conv *transcript.Conversation) []string {
	var names []string
	for _, rec := range conv.Messages {
		if d.Role(rec.Message) != "assistant" {
			continue
		}
		if t, err := d.ParseAssistant(rec.Message); err == nil {
			for _, c := range t.Calls {
				if !slices.Contains(names, c.Name) {
					names = append(names, c.Name)
				}
			}
		}
	}
	return names
}
