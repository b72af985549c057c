package history

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// nameRE matches the name agentloop gives a transcript: the time the run
// started (UTC, to the second) and its id.
var nameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9]{8}T[0-9]{6}Z)-([0-9A-Za-z]+)\.jsonl$`)
})

// nameSlack is how much later than the time in its name a run may have
// started: the name is taken just before the header is written.
const nameSlack = time.Minute

// file is a file of the folder, before it is read.
type file struct {
	path string
	// named is set for a name agentloop gave: at and id come from it.
	named bool
	at    time.Time
	id    string
}

// files lists the files of dir that may be runs: not hidden, not folders.
func files(dir string) ([]file, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]file, 0, len(des))
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") || de.IsDir() {
			continue
		}
		f := file{path: filepath.Join(dir, name)}
		if m := nameRE().FindStringSubmatch(name); m != nil {
			if t, err := time.Parse("20060102T150405Z", m[1]); err == nil {
				f.named, f.at, f.id = true, t, strings.ToLower(m[2])
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// readAll reads files at once with a few workers (the time goes in system
// calls, which run in parallel) and drops those that are no runs' (gone
// since the listing, not regular files).
func readAll(fs []file, opts Options) []*Entry {
	entries := make([]*Entry, len(fs))
	workers := min(len(fs), 4*runtime.GOMAXPROCS(0))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				entries[i] = Read(fs[i].path, opts)
			}
		}()
	}
	for i := range fs {
		next <- i
	}
	close(next)
	wg.Wait()
	return slices.DeleteFunc(entries, func(e *Entry) bool { return e == nil })
}

// Scan reads every file of dir that is not hidden, newest first. A folder
// that does not exist holds no runs.
func Scan(dir string, opts Options) ([]*Entry, error) {
	fs, err := files(dir)
	if err != nil {
		return nil, err
	}
	entries := readAll(fs, opts)
	Sort(entries)
	return entries, nil
}

// Query says which runs List returns.
type Query struct {
	// Limit is how many of the newest to return; 0 returns all.
	Limit int
	// Since leaves out the runs started before it.
	Since time.Time
	// Search keeps the runs whose prompt or answer holds it (Matches);
	// every file is read.
	Search string
	// RunsOnly leaves out the files that are not transcripts.
	RunsOnly bool
	// Answers reads each run's answer too.
	Answers bool
}

// List returns the runs of dir the query asks for, newest first. Only the
// files it needs are read: a file agentloop named is placed by the time in
// its name, so the newest few runs of a large folder cost a few reads.
// A file with another name is always read.
func List(dir string, q Query) ([]*Entry, error) {
	fs, err := files(dir)
	if err != nil {
		return nil, err
	}
	opts := Options{Answers: q.Answers || q.Search != ""}
	keep := func(e *Entry) bool {
		return !(q.RunsOnly && e.Header == nil) && !(!q.Since.IsZero() && e.Time().Before(q.Since)) &&
			(q.Search == "" || e.Matches(q.Search))
	}
	// Named files started too long ago are not even read.
	fs = slices.DeleteFunc(fs, func(f file) bool { return f.named && !q.Since.IsZero() && f.at.Add(nameSlack).Before(q.Since) })
	if q.Limit <= 0 || q.Search != "" {
		entries := slices.DeleteFunc(readAll(fs, opts), func(e *Entry) bool { return !keep(e) })
		Sort(entries)
		if q.Limit > 0 && len(entries) > q.Limit {
			entries = entries[:q.Limit]
		}
		return entries, nil
	}
	var named, other []file
	for _, f := range fs {
		if f.named {
			named = append(named, f)
		} else {
			other = append(other, f)
		}
	}
	slices.SortFunc(named, func(a, b file) int { return b.at.Compare(a.at) })
	entries := slices.DeleteFunc(readAll(other, opts), func(e *Entry) bool { return !keep(e) })
	for len(named) > 0 {
		Sort(entries)
		// Enough read when no unread run can be newer than the last kept.
		if len(entries) >= q.Limit && named[0].at.Add(nameSlack).Before(entries[q.Limit-1].Time()) {
			break
		}
		n := min(len(named), max(q.Limit-len(entries), 8))
		entries = append(entries, slices.DeleteFunc(readAll(named[:n], opts), func(e *Entry) bool { return !keep(e) })...)
		named = named[n:]
	}
	Sort(entries)
	if len(entries) > q.Limit {
		entries = entries[:q.Limit]
	}
	return entries, nil
}

// Lookup finds the run a reference names in dir, as Find does, reading
// only the files whose names could hold it (and every file with another
// name).
func Lookup(dir, ref string) (*Entry, error) {
	if ref == "" || ref == Last {
		entries, err := List(dir, Query{Limit: 1, RunsOnly: true})
		if err != nil {
			return nil, err
		}
		return Find(entries, Last)
	}
	fs, err := files(dir)
	if err != nil {
		return nil, err
	}
	want := strings.ToLower(ref)
	candidates := slices.DeleteFunc(slices.Clone(fs), func(f file) bool { return f.named && !strings.HasPrefix(f.id, want) })
	e, err := Find(readAll(candidates, Options{}), ref)
	var nf *NotFoundError
	if errors.As(err, &nf) && len(candidates) < len(fs) {
		// A file named by another id than its header's (renamed by hand).
		return Find(readAll(fs, Options{}), ref)
	}
	return e, err
}
