package batch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/trust"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// lockName is the lock file that keeps two batches out of one OUTDIR.
const lockName = ".lock"

// Dir is a batch's output folder, OUTDIR, opened by one batch at a time:
// results.jsonl, a transcript per item (FileName(id) + ".jsonl"), and the
// transcripts of earlier attempts at items that were continued
// (AttemptName(id, n) + ".jsonl").
type Dir struct {
	Path    string
	Results *ResultsFile
	lock    *os.File
	mu      sync.Mutex
	// attempts is the highest attempt number kept of each name.
	attempts map[string]int
	// caseless is set when the file system takes names of any case as
	// one ("A.jsonl" is "a.jsonl").
	caseless bool
}

// CheckDir says what keeps path from being an OUTDIR, before anything is
// made or run: a file where the folder, or a folder above it, should be.
// It returns nil for a folder, and for one that can be made.
func CheckDir(path string) error {
	clean := filepath.Clean(path)
	for p := clean; ; {
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil && p == clean:
			return errors.New("is a file, not a folder")
		case err == nil:
			return fmt.Errorf("%s is a file, not a folder", p)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return nil // for OpenDir to report
		}
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
	}
}

// OpenDir opens OUTDIR, creating it (0700) if need be, and takes its lock:
// a second batch writing the same folder would run the same items twice.
// It returns the results already written and a torn last line it cut off.
func OpenDir(path string) (*Dir, []Result, *Torn, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("create %s: %w", path, bare(err))
	}
	if err := checkOwn(path); err != nil {
		return nil, nil, nil, err
	}
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("lock %s: %w", path, bare(err))
	}
	if err := flock(lock); err != nil {
		lock.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, nil, nil, &LockedError{Path: path}
		}
		return nil, nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	d := &Dir{Path: path, lock: lock, attempts: map[string]int{}}
	entries, err := os.ReadDir(path)
	if err != nil {
		d.Close()
		return nil, nil, nil, fmt.Errorf("read %s: %w", path, bare(err))
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			// A child transcript cut off before it was complete: never
			// the item's transcript.
			if partialTranscript(e.Name()) {
				_ = os.Remove(filepath.Join(path, e.Name()))
			}
			continue
		}
		if i := strings.LastIndexByte(name, '~'); i > 0 {
			if n, err := strconv.Atoi(name[i+1:]); err == nil && n > d.attempts[name[:i]] {
				d.attempts[name[:i]] = n
			}
		}
	}
	d.caseless = isCaseless(path)
	res, results, torn, err := OpenResults(filepath.Join(path, ResultsName))
	if err != nil {
		d.Close()
		return nil, nil, nil, err
	}
	d.Results = res
	return d, results, torn, nil
}

// partialTranscript reports whether a file name is that of a transcript
// being written whole before it takes its name ("NAME.jsonl.DIGITS.tmp",
// as os.CreateTemp makes it), NAME a transcript's. Only those are removed:
// OUTDIR may be a folder that holds the user's own files.
func partialTranscript(name string) bool {
	rest, ok := strings.CutSuffix(name, ".tmp")
	i := strings.LastIndex(rest, ".jsonl.")
	if !ok || i <= 0 {
		return false
	}
	digits := rest[i+len(".jsonl."):]
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	return strings.Trim(rest[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.%~") == ""
}

// checkOwn refuses an OUTDIR another user could have put files in (see
// trust.NotPrivate). A transcript planted there under an item's name
// would be taken for that item's stopped run, and the batch would run the
// calls it left pending.
func checkOwn(path string) error {
	if why := trust.NotPrivate(path); why != "" {
		return fmt.Errorf("%s %s: a transcript planted there would be taken for an item's and the calls it left pending run; use a folder of your own", path, why)
	}
	return nil
}

// lockWait is how long OpenDir waits for a lock held: a batch killed a
// moment ago holds it a little longer, through a tool it was starting (a
// process between its fork and its exec holds every descriptor).
const lockWait = time.Second

// flock takes the lock, waiting up to lockWait for a holder to go.
func flock(f *os.File) error {
	deadline := time.Now().Add(lockWait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LockedError is an OUTDIR another batch holds.
type LockedError struct{ Path string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is in use by another agentloop batch; wait for it, or give another -d", e.Path)
}

// isCaseless reports whether the folder's file system ignores case.
func isCaseless(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, strings.ToUpper(lockName)))
	return err == nil
}

// Caseless reports whether OUTDIR's file system takes names that differ
// only in case as one; ids that differ only in case cannot share it.
func (d *Dir) Caseless() bool { return d.caseless }

// TranscriptPath is the path of the item's transcript.
func (d *Dir) TranscriptPath(id string) string {
	return filepath.Join(d.Path, FileName(id)+".jsonl")
}

// Latest is the item's transcript if it has one: FileName(id).jsonl, or
// when that is missing (a run stopped between setting it aside and
// creating the next) the newest attempt kept. attempts counts the earlier
// attempts kept.
func (d *Dir) Latest(id string) (path string, attempts int, ok bool) {
	name := FileName(id)
	d.mu.Lock()
	n := d.attempts[name]
	d.mu.Unlock()
	p := filepath.Join(d.Path, name+".jsonl")
	if _, err := os.Stat(p); err == nil {
		return p, n, true
	}
	if n > 0 {
		return filepath.Join(d.Path, AttemptName(id, n)+".jsonl"), n - 1, true
	}
	return "", 0, false
}

// SetAside keeps the item's transcript as its next earlier attempt, so that
// the run that continues it can take its name, and returns its new path.
// When the transcript is already missing (set aside by a run that stopped
// before the next began) the newest attempt is returned as it is.
func (d *Dir) SetAside(id string) (string, error) {
	name := FileName(id)
	p := filepath.Join(d.Path, name+".jsonl")
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.attempts[name]
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) && n > 0 {
		return filepath.Join(d.Path, AttemptName(id, n)+".jsonl"), nil
	}
	next := filepath.Join(d.Path, AttemptName(id, n+1)+".jsonl")
	if err := os.Rename(p, next); err != nil {
		return "", fmt.Errorf("keep %s as an earlier attempt: %w", p, bare(err))
	}
	d.attempts[name] = n + 1
	return next, nil
}

// HoldsMessage reports whether the transcript at path holds a message
// record: a run that got as far as its prompt, which can go on. One that
// holds none (empty, a header alone, a header cut short by a full disk or
// a kill) starts over. A line that is not a record ends the look.
func HoldsMessage(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := transcript.NewReader(f)
	for {
		rec, err := r.Next()
		if err != nil {
			return false, nil // the end, or a line cut short
		}
		if rec.Message != nil {
			return true, nil
		}
	}
}

// DiscardEmpty removes the item's transcript when it holds no message
// (HoldsMessage): a run that could not write its prompt (a full disk)
// leaves it empty, or a header alone or cut short. It is nothing to keep
// as an earlier attempt, and nothing to go on from. Anything at its name
// that is not a regular file is left alone, unread.
func (d *Dir) DiscardEmpty(id string) error {
	p := d.TranscriptPath(id)
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	held, err := HoldsMessage(p)
	if err != nil || held {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s, which holds no message: %w", p, bare(err))
	}
	return nil
}

// Close releases the lock and the results file.
func (d *Dir) Close() error {
	var err error
	if d.Results != nil {
		err = d.Results.Close()
	}
	if d.lock != nil {
		d.lock.Close() // releases the flock
	}
	return err
}
