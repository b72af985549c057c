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
	var matches []*Entry
	for _, e := range entries {
		id := strings.ToLower(e.ID())
		if id == want {
			return e, nil
		}
		if id != "" && strings.HasPrefix(id, want) {
			matches = append(matches, e)
		}
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
	var ids []string
	for i, m := range e.Matches {
		if i == 5 {
			ids = append(ids, fmt.Sprintf("and %d more", len(e.Matches)-i))
			break
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", m.ID(), m.Path))
	}
	return fmt.Sprintf("id %q is ambiguous: it starts %s; give more of it, or the path", e.Ref, strings.Join(ids, ", "))
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
