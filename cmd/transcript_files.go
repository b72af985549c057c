package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/agentloop/agentloop/pkg/engine"
	"github.com/agentloop/agentloop/pkg/history"
)

// transcriptsDir is the transcripts folder dir names, or by default
// $XDG_STATE_HOME/agentloop/transcripts.
func transcriptsDir(ios *IOStreams, dir string) string {
	return engine.TranscriptsDir(ios.Getenv, dir)
}

func stateDir(ios *IOStreams) string { return engine.StateDir(ios.Getenv) }

// recordElsewhere puts a run whose transcript -o wrote elsewhere in the
// history: the transcripts folder's index names its file, so that
// agentloop log, log show and run -c find it as they find the folder's
// own. A history that cannot be written to costs the run nothing but its
// line there, said unless -q. A file that is not a regular one (-o
// /dev/stdout) is no run to list; nor is an index made in the working
// folder, where the transcripts go when neither HOME nor XDG_STATE_HOME
// is set.
func recordElsewhere(ios *IOStreams, o *liveOptions, id, path string) {
	dir := transcriptsDir(ios, o.TranscriptDir)
	if ios.Getenv("XDG_STATE_HOME") == "" && ios.Getenv("HOME") == "" && dir == transcriptsDir(ios, "") {
		return
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if err := history.Record(dir, id, path, time.Now()); err != nil && !o.Quiet {
		fmt.Fprintf(ios.ErrOut, "agentloop: warning: the run is not in the history ('agentloop log'): %s\n", safeText(err.Error()))
	}
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
