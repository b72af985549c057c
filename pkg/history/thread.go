package history

import (
	"slices"
	"strings"
)

// Run is one entry of a thread, with how deep in its conversation it sits:
// 0 for the run that started it, 1 for a run that continued it, and so on.
type Run struct {
	*Entry
	Depth int
	// root is the first run of the conversation the folder holds, listed or
	// not.
	root *Entry
}

// Thread is a conversation as its runs carried it on: each run after the
// first continued an earlier one (-c, replay --resume). A run sits where it
// sits in the whole conversation whether or not its parent is listed (left
// out by a limit or a filter, when List linked it to its parent); a run
// whose parent is not in the folder at all (pruned) starts a thread at
// depth 1, so that it still shows as a continuation.
type Thread []Run

// ID is the id of the conversation's first run in the folder, listed or
// not: it names the thread whichever of its runs are listed.
func (t Thread) ID() string {
	if len(t) == 0 {
		return ""
	}
	return t[0].root.ID()
}

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
// A run's parent is looked for among the entries, then where List found it.
func Threads(entries []*Entry) []Thread {
	byID := make(map[string]*Entry, len(entries))
	for _, e := range entries {
		if id := e.ID(); id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = e
			}
		}
	}
	parentOf := func(e *Entry) *Entry {
		p := byID[parentID(e)]
		if p == nil {
			p = e.parent
		}
		if p == e {
			return nil
		}
		return p
	}
	// Each entry's line of runs from its conversation's first down to it;
	// nil for a run in (or continuing) a cycle of parent ids in
	// hand-edited files, which stands alone.
	lines := make(map[*Entry][]*Entry, len(entries))
	visiting := map[*Entry]bool{}
	var lineOf func(e *Entry) []*Entry
	lineOf = func(e *Entry) []*Entry {
		if l, ok := lines[e]; ok {
			return l
		}
		if visiting[e] {
			return nil
		}
		visiting[e] = true
		var l []*Entry
		if p := parentOf(e); p == nil {
			l = []*Entry{e}
		} else if pl := lineOf(p); pl != nil {
			l = append(pl[:len(pl):len(pl)], e)
		}
		delete(visiting, e)
		lines[e] = l
		return l
	}
	groups := map[*Entry]Thread{}
	var roots []*Entry // in the order first met
	placed := make(map[*Entry][]*Entry, len(entries))
	for _, e := range entries {
		line, depth := lineOf(e), 0
		if line == nil {
			line = []*Entry{e}
		} else {
			depth = len(line) - 1
			if line[0].Continues() {
				depth++ // its parent is not in the folder
			}
		}
		placed[e] = line
		root := line[0]
		if _, ok := groups[root]; !ok {
			roots = append(roots, root)
		}
		groups[root] = append(groups[root], Run{Entry: e, Depth: depth, root: root})
	}
	byStart := func(a, b *Entry) int {
		if c := a.Time().Compare(b.Time()); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	}
	// The order of the conversation: the runs compared where their lines
	// part, a run before those that continue it.
	inConversation := func(a, b Run) int {
		la, lb := placed[a.Entry], placed[b.Entry]
		for i := 0; i < len(la) && i < len(lb); i++ {
			if la[i] != lb[i] {
				return byStart(la[i], lb[i])
			}
		}
		return len(la) - len(lb)
	}
	threads := make([]Thread, 0, len(roots))
	for _, root := range roots {
		t := groups[root]
		slices.SortStableFunc(t, inConversation)
		threads = append(threads, t)
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
