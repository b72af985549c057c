package history

import (
	"slices"
	"strings"
)

// Run is one entry of a thread, with how deep in it it sits: 0 for the run
// that started the conversation, 1 for a run that continued it, and so on.
type Run struct {
	*Entry
	Depth int
}

// Thread is a conversation as its runs carried it on: each run after the
// first continued an earlier one (-c, replay --resume). A run whose parent
// is not among the entries (pruned, or left out by a filter) starts a
// thread at depth 1, so that it still shows as a continuation.
type Thread []Run

// Latest is the newest run of the thread.
func (t Thread) Latest() *Entry {
	var latest *Entry
	for _, r := range t {
		if latest == nil || r.Time().After(latest.Time()) {
			latest = r.Entry
		}
	}
	return latest
}

// Threads groups entries into threads: a thread's runs in the order of the
// conversation (a parent before the runs that continue it, those in the
// order they started), the threads newest first by their latest run. A
// parent id that two transcripts share (a copied file) links to the first.
func Threads(entries []*Entry) []Thread {
	byID := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		if id := e.ID(); id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = e
			}
		}
	}
	children := map[*Entry][]*Entry{}
	var roots []*Entry
	for _, e := range entries {
		parent := byID[parentID(e)]
		if parent == nil || parent == e {
			roots = append(roots, e)
			continue
		}
		children[parent] = append(children[parent], e)
	}
	byStart := func(a, b *Entry) int {
		if c := a.Time().Compare(b.Time()); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	}
	threads := make([]Thread, 0, len(roots))
	seen := make(map[*Entry]bool, len(entries))
	for _, root := range roots {
		var t Thread
		var walk func(e *Entry, depth int)
		walk = func(e *Entry, depth int) {
			if seen[e] {
				return // a cycle of parent ids in hand-edited files
			}
			seen[e] = true
			t = append(t, Run{Entry: e, Depth: depth})
			kids := children[e]
			slices.SortFunc(kids, byStart)
			for _, k := range kids {
				walk(k, depth+1)
			}
		}
		depth := 0
		if root.Continues() {
			depth = 1
		}
		walk(root, depth)
		threads = append(threads, t)
	}
	// Entries only reachable through a cycle have no root: each stands alone.
	for _, e := range entries {
		if !seen[e] {
			seen[e] = true
			threads = append(threads, Thread{{Entry: e}})
		}
	}
	slices.SortStableFunc(threads, func(a, b Thread) int {
		la, lb := a.Latest(), b.Latest()
		if c := lb.Time().Compare(la.Time()); c != 0 {
			return c
		}
		return strings.Compare(lb.Path, la.Path)
	})
	return threads
}

// parentID is the id of the run an entry continues, "" for none.
func parentID(e *Entry) string {
	if !e.Continues() {
		return ""
	}
	return e.Header.ParentID
}
