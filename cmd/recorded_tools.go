package cmd

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/transcript"

	"github.com/agentloop/agentloop/pkg/engine"
)

// recordedTools are the tools folders for a recorded conversation:
// --tools-dir or AGENTLOOP_TOOLS_DIRS, else the folders the run recorded,
// else the configured ones (flag > variable > transcript > file, as for the
// recorded model).
// Recorded folders are agentloop's choice, not the user's: a transcript may
// come from anywhere, so they are used as ./tools.d is: those that exist
// and are trusted (a tool gone is a "missing tool" row of a replay; a run
// that goes on without it stops first, see narrowTools).
//
// A run of the default folders records them as tools.d: the user's own
// folder goes with it again. Recorded folders that are the configuration
// file's tools_dirs are the user's choice, as the file's are.
func (o *liveOptions) recordedTools(conv *transcript.Conversation) toolsSource {
	if o.toolsDirsSet || conv.Header == nil || len(conv.Header.ToolsDirs) == 0 {
		return toolsSource{o.ToolsDirs, o.toolsSetting}
	}
	dirs := conv.Header.ToolsDirs
	switch {
	case o.toolsSetting != "" && slices.Equal(dirs, o.ToolsDirs):
		return toolsSource{o.ToolsDirs, o.toolsSetting}
	case slices.Equal(dirs, engine.HeaderToolsDirs(nil)):
		return toolsSource{}
	}
	return toolsSource{dirs: dirs}
}

// toolsChosen reports whether the tools folders were named on the command
// line or in AGENTLOOP_TOOLS_DIRS: the user's choice for this command, which
// beats the folders a transcript recorded, as a flag or a variable beats a
// transcript's model. The file's tools_dirs, set for every project, does not.
func toolsChosen(cfg *config.Config) bool {
	k := cfg.Source("tools_dirs").Kind
	return k == config.SourceFlag || k == config.SourceEnv
}

// warnToolsDirsGone warns when the tools folders a recording names (as
// given to the run, so relative to where it started) are not there: every
// call of theirs would then be a "missing tool", for a reason the rows do
// not say. called are the tools the recording calls (engine.CalledTools), or,
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

// recordedToolsError is the usage error (exit 2) of a run that would go on
// with a recording without some of the tools it offered
// (engine.RecordedToolsError): src are the folders read, recordedDirs the
// recording's.
func recordedToolsError(ios *IOStreams, src toolsSource, recordedDirs []string, absent []toolset.Absent) error {
	return engine.RecordedToolsError(absent, recordedToolsRead(ios, src, recordedDirs))
}

// recordedToolsRead says which folders were read, src's, for a recording
// that names recordedDirs; a folder left out for want of trust says why.
func recordedToolsRead(ios *IOStreams, src toolsSource, recordedDirs []string) engine.ToolsRead {
	return engine.ToolsRead{
		Dirs: src.dirs, Setting: src.setting, Recorded: recordedDirs,
		Untrusted: func(dir string) (string, string) {
			if reason, err := untrustedReason(ios, dir); err == nil && reason != "" {
				return reason, trustCommand(dir)
			}
			return "", ""
		},
	}
}
