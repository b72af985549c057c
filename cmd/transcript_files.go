package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/pkg/history"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// The transcript files of run, replay -o and replay --resume: where they go
// and how they start.

// createTranscript creates a run's transcript at path, -o's when explicit
// (see createOutput). One that continues another names its parent and
// starts with the parent's whole conversation, so it stands on its own for
// validate, replay and a later resume.
func createTranscript(ios *IOStreams, path string, explicit, force bool, parent string, conv *transcript.Conversation, h transcript.Header, redact *transcript.Redactor) (*transcript.Writer, error) {
	if parent == "" {
		w, err := createAt(path, explicit, force, false, redact)
		if err != nil {
			return nil, err
		}
		h.Agentloop = Version()
		if err := w.WriteHeader(h); err != nil {
			w.Close()
			return nil, err
		}
		return w, nil
	}
	// The copy of the conversation is made whole before the transcript
	// takes its name: a crash while it is written must not leave a file
	// that looks like the conversation with its last calls unanswered,
	// which a resume would run again.
	w, err := createChild(path, explicit, force, parent, conv, h, redact, true)
	if err != nil {
		return nil, err
	}
	// In one write, so that a kill cannot leave part of a turn.
	if err := w.WriteMessages(conv.Messages...); err != nil {
		w.Close()
		return nil, err
	}
	// So do the results of calls that finished before the run stopped:
	// should this run stop too before they are sent, they are still not
	// run again.
	for _, rec := range conv.Finished {
		if err := w.WriteResult(rec); err != nil {
			w.Close()
			return nil, err
		}
	}
	if err := w.Commit(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// createAt creates a transcript at path: -o's when explicit (see
// createOutput), else one of agentloop's choosing. With temp the file is
// made under a temporary name, for the caller to Commit once it holds what
// it must before anything runs (see transcript.CreateTemp).
func createAt(path string, explicit, force, temp bool, redact *transcript.Redactor) (*transcript.Writer, error) {
	if explicit {
		return createOutput(path, redact, force, temp)
	}
	create := transcript.Create
	if temp {
		create = transcript.CreateTemp
	}
	w, err := create(path, redact)
	if err != nil {
		// The folder is agentloop's choice, not the user's: say how to
		// choose another.
		return nil, fmt.Errorf("%w (the transcripts folder comes from transcript_dir or XDG_STATE_HOME; -o FILE writes elsewhere, --no-transcript writes none)", err)
	}
	return w, nil
}

// createChild creates the transcript of a replay or a resumed run; its
// header names the parent. path is -o's when explicit, else one of
// agentloop's choosing; temp as for createAt.
func createChild(path string, explicit, force bool, parent string, conv *transcript.Conversation, h transcript.Header, redact *transcript.Redactor, temp bool) (*transcript.Writer, error) {
	if parent != "-" && sameFile(path, parent) {
		return nil, flagErrorf("-o %s would overwrite the transcript being read", path)
	}
	w, err := createAt(path, explicit, force, temp, redact)
	if err != nil {
		return nil, err
	}
	h.Parent, h.Agentloop = parent, Version()
	if conv.Header != nil {
		h.ParentID = conv.Header.ID
	}
	if err := w.WriteHeader(h); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// defaultTranscriptPath is transcriptsDir(dir)/<time>-<id>.jsonl.
func defaultTranscriptPath(ios *IOStreams, dir, id string) string {
	return filepath.Join(transcriptsDir(ios, dir), time.Now().UTC().Format("20060102T150405Z")+"-"+id+".jsonl")
}

// transcriptsDir is the transcripts folder dir names, or by default
// $XDG_STATE_HOME/agentloop/transcripts.
func transcriptsDir(ios *IOStreams, dir string) string {
	if dir == "" {
		dir = filepath.Join(stateDir(ios), "transcripts")
	}
	return dir
}

func stateDir(ios *IOStreams) string {
	if d := ios.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentloop")
	}
	if h := ios.Getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentloop")
	}
	return filepath.Join(".", ".agentloop")
}

// toolsDirsForHeader records the folders the tools came from.
func toolsDirsForHeader(dirs []string) []string {
	if len(dirs) == 0 {
		return []string{"tools.d"}
	}
	return dirs
}

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
