package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// The transcript files of run, replay -o and replay --resume: where they go
// and how they start.

// Output says where a run's transcript goes.
type Output struct {
	// None writes no transcript.
	None bool
	// Path is -o's file when Explicit, else one agentloop chose (a batch
	// item's); "" is a new file in Dir.
	Path     string
	Explicit bool
	// Dir is the transcripts folder (DefaultDir's when "").
	Dir string
	// Force lets -o overwrite a file that is not a transcript.
	Force bool
}

// NewPath is dir/<time>-<id>.jsonl, the name of a new run's transcript.
func NewPath(dir, id string) string {
	return filepath.Join(dir, time.Now().UTC().Format("20060102T150405Z")+"-"+id+".jsonl")
}

// StateDir is agentloop's state folder: $XDG_STATE_HOME/agentloop, else
// ~/.local/state/agentloop, else ./.agentloop.
func StateDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "agentloop")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "agentloop")
	}
	return filepath.Join(".", ".agentloop")
}

// TranscriptsDir is the transcripts folder dir names, or by default
// StateDir's transcripts.
func TranscriptsDir(getenv func(string) string, dir string) string {
	if dir == "" {
		dir = filepath.Join(StateDir(getenv), "transcripts")
	}
	return dir
}

// HeaderToolsDirs are the tools folders as a header records them: the
// default ones as tools.d.
func HeaderToolsDirs(dirs []string) []string {
	if len(dirs) == 0 {
		return []string{"tools.d"}
	}
	return dirs
}

// createTranscript creates a run's transcript at path, -o's when explicit
// (see CreateOutput). One that continues another names its parent and
// starts with the parent's whole conversation, so it stands on its own for
// validate, replay and a later resume.
func createTranscript(path string, o Output, parent string, conv *transcript.Conversation, h transcript.Header, redact *transcript.Redactor) (*transcript.Writer, error) {
	if parent == "" {
		w, err := createAt(path, o.Explicit, o.Force, false, redact)
		if err != nil {
			return nil, err
		}
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
	w, err := CreateChild(path, o.Explicit, o.Force, parent, conv, h, redact, true)
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
// CreateOutput), else one of agentloop's choosing. With temp the file is
// made under a temporary name, for the caller to Commit once it holds what
// it must before anything runs (see transcript.CreateTemp).
func createAt(path string, explicit, force, temp bool, redact *transcript.Redactor) (*transcript.Writer, error) {
	if explicit {
		return CreateOutput(path, redact, force, temp)
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

// CreateChild creates the transcript of a replay or a resumed run; its
// header, which names its agentloop, names the parent too. path is -o's
// when explicit, else one of agentloop's choosing; temp as for createAt.
func CreateChild(path string, explicit, force bool, parent string, conv *transcript.Conversation, h transcript.Header, redact *transcript.Redactor, temp bool) (*transcript.Writer, error) {
	if parent != "-" && sameFile(path, parent) {
		return nil, flagf("-o %s would overwrite the transcript being read", path)
	}
	w, err := createAt(path, explicit, force, temp, redact)
	if err != nil {
		return nil, err
	}
	h.Parent = parent
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

// CreateOutput creates the transcript -o names. The folder must exist, and
// a file there is replaced only when it is a transcript (or with force).
// With temp it is made under a temporary name (transcript.CreateTempAt).
func CreateOutput(path string, redact *transcript.Redactor, force, temp bool) (*transcript.Writer, error) {
	// "-" is stdout everywhere else, but stdout holds the answer: a file
	// called "-" made here would be a surprise, a transcript mixed into the
	// answer a worse one.
	if path == "-" {
		return nil, usagef(`-o -: the transcript cannot go to stdout, which holds the answer; name a file (-o ./- for one called "-")`)
	}
	create := transcript.CreateAt
	if temp {
		create = transcript.CreateTempAt
	}
	w, err := create(path, redact, force)
	switch {
	case err == nil:
		return w, nil
	case errors.Is(err, transcript.ErrNotTranscript):
		return nil, usagef("-o %s: %v: it is left as it is (--force overwrites it)", path, err)
	case errors.Is(err, fs.ErrNotExist):
		return nil, usagef("-o %s: %v (-o makes no folder)", path, err)
	case errors.Is(err, transcript.ErrIsFolder):
		return nil, usagef("-o %s: %v; name a file for the transcript (-o %s)", path, err, filepath.Join(path, "run.jsonl"))
	case errors.Is(err, transcript.ErrNotFolder):
		return nil, usagef("-o %s: %v", path, err)
	}
	return nil, fmt.Errorf("-o %s: %w", path, err)
}
