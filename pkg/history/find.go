package history

import (
	"fmt"
	"slices"
	"strings"
)

// Last is the reference to the newest run.
const Last = "last"

// Find returns the run a reference names: Last (or "") for the newest
// transcript, else the one whose id starts with ref. A prefix that two
// runs share is an error that names them.
func Find(entries []*Entry, ref string) (*Entry, error) {
	if ref == "" || ref == Last {
		var newest *Entry
		for _, e := range entries {
			if e.Header != nil && (newest == nil || e.Time().After(newest.Time())) {
				newest = e
			}
		}
		if newest == nil {
			return nil, &NotFoundError{Ref: Last}
		}
		return newest, nil
	}
	want := strings.ToLower(ref)
	var matches, exact []*Entry
	for _, e := range entries {
		id := strings.ToLower(e.ID())
		if id == want {
			exact = append(exact, e)
		}
		if id != "" && strings.HasPrefix(id, want) {
			matches = append(matches, e)
		}
	}
	// An exact id wins over the longer ids it starts; but a transcript
	// copied under another name has the same id as its original, and
	// picking one of them would be a guess.
	if len(exact) > 0 {
		matches = exact
	}
	switch len(matches) {
	case 0:
		return nil, &NotFoundError{Ref: ref}
	case 1:
		return matches[0], nil
	}
	slices.SortFunc(matches, func(a, b *Entry) int { return strings.Compare(a.Path, b.Path) })
	return nil, &AmbiguousError{Ref: ref, Matches: matches}
}

// AmbiguousError says that the start of an id is the start of several.
type AmbiguousError struct {
	Ref     string
	Matches []*Entry
}

func (e *AmbiguousError) Error() string {
	var ids, paths []string
	for i, m := range e.Matches {
		if i == 5 {
			more := fmt.Sprintf("and %d more", len(e.Matches)-i)
			ids, paths = append(ids, more), append(paths, more)
			break
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", m.ID(), m.Path))
		paths = append(paths, m.Path)
	}
	if e.sameID() {
		return fmt.Sprintf("id %q is ambiguous: %d transcripts have the id %s (copies of one run): %s; give the path", e.Ref, len(e.Matches), e.Matches[0].ID(), strings.Join(paths, ", "))
	}
	return fmt.Sprintf("id %q is ambiguous: it starts %s; give more of it, or the path", e.Ref, strings.Join(ids, ", "))
}

// sameID reports whether every match has one id: more of it would not
// tell them apart.
func (e *AmbiguousError) sameID() bool {
	for _, m := range e.Matches[1:] {
		if !strings.EqualFold(m.ID(), e.Matches[0].ID()) {
			return false
		}
	}
	return true
}

// NotFoundError says that no run has the id (or that there is no run at
// all, for Last).
type NotFoundError struct {
	Ref string
}

func (e *NotFoundError) Error() string {
	if e.Ref == Last {
		return "no runs yet"
	}
	return fmt.Sprintf("no run has an id starting %q", e.Ref)
}
