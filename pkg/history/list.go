package history

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// parseName reads the name agentloop gives a transcript: the time the run
// started (UTC, to the second) and its id, as in
// 20260301T100000Z-0123abcd.jsonl.
func parseName(name string) (at time.Time, id string, ok bool) {
	const stamp = "20060102T150405Z"
	rest, found := strings.CutSuffix(name, ".jsonl")
	if !found || len(rest) < len(stamp)+2 || rest[len(stamp)] != '-' {
		return time.Time{}, "", false
	}
	for i := 0; i < len(stamp); i++ {
		c, want := rest[i], stamp[i]
		if want >= '0' && want <= '9' && (c < '0' || c > '9') || (want == 'T' || want == 'Z') && c != want {
			return time.Time{}, "", false
		}
	}
	id = rest[len(stamp)+1:]
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return time.Time{}, "", false
		}
	}
	at, err := time.Parse(stamp, rest[:len(stamp)])
	if err != nil {
		return time.Time{}, "", false
	}
	return at, strings.ToLower(id), true
}

// nameSlack is how much later than the time in its name a run may have
// started: the name is taken just before the header is written.
const nameSlack = time.Minute

// file is a file of the folder, before it is read.
type file struct {
	path string
	// regular is set when the folder's listing says it is a regular file.
	regular bool
	// named is set for a name agentloop gave: at and id come from it.
	named bool
	at    time.Time
	id    string
}

// files lists the files of dir that may be runs: not hidden, not folders;
// and the files of runs written elsewhere that its index lists.
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
		f := file{path: filepath.Join(dir, name), regular: de.Type().IsRegular()}
		f.at, f.id, f.named = parseName(name)
		out = append(out, f)
	}
	return append(out, indexed(dir)...), nil
}

// readAll reads files at once with a few workers per core (more than one,
// for the reads that wait on a disk) and drops those that are no runs'
// (gone since the listing, not regular files).
func readAll(fs []file, opts Options) []*Entry {
	entries := make([]*Entry, len(fs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(fs), 4*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(fs) {
					return
				}
				entries[i] = readFile(fs[i].path, fs[i].regular, opts)
			}
		})
	}
	wg.Wait()
	return slices.DeleteFunc(entries, func(e *Entry) bool { return e == nil })
}

// Scan reads every file of dir that is not hidden, and those its index
// lists (runs written elsewhere), newest first. A folder that does not
// exist holds no runs.
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
	// Parents links each run that continues another to it, and that one to
	// its own, up to the conversation's first run, whether or not the query
	// returns them: Threads then places each run in its whole conversation,
	// whatever the limit and the filters left out.
	Parents bool
}

// List returns the runs of dir the query asks for, newest first. Only the
// files it needs are read: a file agentloop named is placed by the time in
// its name, so the newest few runs of a large folder cost a few reads.
// A file with another name is always read.
func List(dir string, q Query) ([]*Entry, error) {
	all, err := files(dir)
	if err != nil {
		return nil, err
	}
	opts := Options{Answers: q.Answers || q.Search != ""}
	keep := func(e *Entry) bool {
		return !(q.RunsOnly && e.Header == nil) && !(!q.Since.IsZero() && e.Time().Before(q.Since)) &&
			(q.Search == "" || e.Matches(q.Search))
	}
	kept := func(read []*Entry) []*Entry {
		return slices.DeleteFunc(slices.Clone(read), func(e *Entry) bool { return !keep(e) })
	}
	// Named files started too long ago are not even read.
	fs := slices.DeleteFunc(slices.Clone(all), func(f file) bool {
		return f.named && !q.Since.IsZero() && f.at.Add(nameSlack).Before(q.Since)
	})
	var read, entries []*Entry
	if q.Limit <= 0 || q.Search != "" {
		read = readAll(fs, opts)
		entries = kept(read)
	} else {
		var named, other []file
		for _, f := range fs {
			if f.named {
				named = append(named, f)
			} else {
				other = append(other, f)
			}
		}
		slices.SortFunc(named, func(a, b file) int { return b.at.Compare(a.at) })
		read = readAll(other, opts)
		entries = kept(read)
		for len(named) > 0 {
			Sort(entries)
			// Enough read when no unread run can be newer than the last kept.
			if len(entries) >= q.Limit && named[0].at.Add(nameSlack).Before(entries[q.Limit-1].Time()) {
				break
			}
			n := min(len(named), max(q.Limit-len(entries), 8))
			more := readAll(named[:n], opts)
			read = append(read, more...)
			entries = append(entries, kept(more)...)
			named = named[n:]
		}
	}
	Sort(entries)
	if q.Limit > 0 && len(entries) > q.Limit {
		entries = entries[:q.Limit]
	}
	if q.Parents {
		linkParents(all, read)
	}
	return entries, nil
}

// linkParents links each entry read that continues another run to it, and
// that run to its own, up to the conversation's first run: the parent is
// among the entries read, else in a file agentloop named with its id
// (every file named otherwise was read). A parent id that two transcripts
// share (a copied file) links to the newest, as Threads does. A run whose
// parent is in no file (pruned) is left unlinked.
func linkParents(all []file, read []*Entry) {
	done := make(map[string]bool, len(read))
	have := make(map[string]bool, len(read))
	for _, e := range read {
		done[e.Path], have[e.ID()] = true, true
	}
	asked := map[string]bool{}
	for next := read; len(next) > 0; {
		want := map[string]bool{}
		for _, e := range next {
			if id := parentID(e); id != "" && !have[id] && !asked[id] {
				want[strings.ToLower(id)], asked[id] = true, true
			}
		}
		var more []file
		for _, f := range all {
			if f.named && want[f.id] && !done[f.path] {
				more = append(more, f)
				done[f.path] = true
			}
		}
		next = readAll(more, Options{})
		for _, e := range next {
			have[e.ID()] = true
		}
		read = append(read, next...)
	}
	Sort(read)
	byID := make(map[string]*Entry, len(read))
	for _, e := range read {
		if id := e.ID(); id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = e
			}
		}
	}
	for _, e := range read {
		if p := byID[parentID(e)]; p != nil && p != e {
			e.parent = p
		}
	}
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
