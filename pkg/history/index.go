package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// IndexName is the file of a transcripts folder that lists the runs whose
// transcripts were written elsewhere (run -o FILE): one JSON line a run,
// appended as it starts. A history is every run, wherever its transcript
// went; the folder's own files need no line. Being hidden, the file is
// not a run of the folder's.
const IndexName = ".index.jsonl"

// maxIndexLine caps a line of the index: a path and an id fit many times
// over. A longer line, and what follows it, is not read.
const maxIndexLine = 64 << 10

// indexLine is a run of the index.
type indexLine struct {
	ID   string    `json:"id"`
	Path string    `json:"path"`
	Time time.Time `json:"time"`
}

// IndexPath is the index of the transcripts folder dir.
func IndexPath(dir string) string { return filepath.Join(dir, IndexName) }

// Record adds a run whose transcript is at path, written at the time at,
// to the index of dir, making dir (0700) and the index (0600) when they
// are not there. The path is kept absolute, so that the run is found from
// any working folder. A transcript in dir itself needs no line: the
// folder lists it, and none is written. A link in place of the index is
// not followed.
func Record(dir, id, path string, at time.Time) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if inFolder(dir, abs) {
		return nil
	}
	line, err := json.Marshal(indexLine{ID: id, Path: abs, Time: at.UTC()})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(IndexPath(dir), os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	// One write a line: runs that start at once append whole lines.
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// inFolder reports whether the file at path lies in the folder dir.
func inFolder(dir, path string) bool {
	a, errA := os.Stat(dir)
	b, errB := os.Stat(filepath.Dir(path))
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	absDir, err := filepath.Abs(dir)
	return err == nil && filepath.Dir(path) == absDir
}

// readIndex reads the index of dir: each path's last line, in the order
// of the lines, and how many lines the file holds. What cannot be read is
// no run: a missing index, a line that is not one (a write cut short, an
// edit by hand), and the rest of the file after a line too long to be one.
func readIndex(dir string) (lines []indexLine, all int) {
	f, err := os.Open(IndexPath(dir))
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, 0
	}
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), maxIndexLine)
	for sc.Scan() {
		all++
		var l indexLine
		if json.Unmarshal(bytes.TrimSpace(sc.Bytes()), &l) != nil || l.Path == "" || !filepath.IsAbs(l.Path) {
			continue
		}
		l.Path = filepath.Clean(l.Path)
		if i, seen := at[l.Path]; seen {
			// The file was written again: the later run is the one there.
			lines[i] = l
			continue
		}
		at[l.Path] = len(lines)
		lines = append(lines, l)
	}
	if sc.Err() != nil {
		all++ // a line too long, and what follows: dropped on a rewrite
	}
	return lines, all
}

// indexed are the files the index of dir lists, as the folder's files are
// listed: placed in time, and found by id, from their lines, so that the
// newest runs of a long history are read alone. A file named there that
// is gone, or is no longer a regular file, is left out when it is read.
func indexed(dir string) []file {
	lines, _ := readIndex(dir)
	out := make([]file, 0, len(lines))
	for _, l := range lines {
		if inFolder(dir, l.Path) {
			continue // listed with the folder's own
		}
		out = append(out, file{path: l.Path, named: true, at: l.Time, id: strings.ToLower(l.ID)})
	}
	return out
}

// Elsewhere splits entries of dir's listing into the runs whose
// transcripts are dir's files and those the index lists, written
// elsewhere.
func Elsewhere(dir string, entries []*Entry) (inDir, elsewhere []*Entry) {
	clean := filepath.Clean(dir)
	for _, e := range entries {
		if filepath.Dir(e.Path) == clean {
			inDir = append(inDir, e)
		} else {
			elsewhere = append(elsewhere, e)
		}
	}
	return inDir, elsewhere
}

// Forget drops from the index of dir the runs of entries (listed from it:
// their files stay where they are, the user's) and the lines whose files
// are gone, and says how many runs it forgot. The index is written anew,
// one line a run, under another name and renamed over the old one, so
// that a reader sees one or the other; a run recorded meanwhile may be
// lost from it. An index with nothing to drop is left as it is.
func Forget(dir string, entries []*Entry) (int, error) {
	lines, all := readIndex(dir)
	drop := map[string]bool{}
	for _, e := range entries {
		drop[filepath.Clean(e.Path)] = true
	}
	kept := slices.DeleteFunc(slices.Clone(lines), func(l indexLine) bool {
		if drop[l.Path] {
			return true
		}
		fi, err := os.Stat(l.Path)
		return errors.Is(err, os.ErrNotExist) || err == nil && !fi.Mode().IsRegular()
	})
	if len(kept) == all {
		return 0, nil
	}
	var buf bytes.Buffer
	for _, l := range kept {
		b, err := json.Marshal(l)
		if err != nil {
			return 0, err
		}
		buf.Write(append(b, '\n'))
	}
	tmp, err := os.CreateTemp(dir, IndexName+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("rewrite %s: %w", IndexPath(dir), err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("rewrite %s: %w", IndexPath(dir), err)
	}
	if err := os.Rename(tmp.Name(), IndexPath(dir)); err != nil {
		return 0, fmt.Errorf("rewrite %s: %w", IndexPath(dir), err)
	}
	return len(lines) - len(kept), nil
}
