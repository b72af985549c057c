package history

import (
	"strings"
	"unicode/utf8"
)

// ShortIDs are the ids of the entries as a listing shows them: the first 8
// characters, or as many more as tell apart two runs whose ids start
// alike, as git does its short hashes, so that the id a line shows names
// its run. Copies of one run keep one id; an entry with no header has "".
func ShortIDs(entries []*Entry) []string {
	ids := make([]string, len(entries))
	byShort := map[string][]int{}
	for i, e := range entries {
		if e.Header != nil {
			ids[i] = e.ShortID()
			byShort[strings.ToLower(ids[i])] = append(byShort[strings.ToLower(ids[i])], i)
		}
	}
	for _, same := range byShort {
		if len(same) < 2 {
			continue
		}
		for _, i := range same {
			id := entries[i].ID()
			n := len(ids[i])
			for n < len(id) && (sharedPrefix(entries, same, i, n) || !utf8.RuneStart(id[n])) {
				n++
			}
			ids[i] = id[:n]
		}
	}
	return ids
}

// sharedPrefix reports whether the first n bytes of entry i's id start the
// id of another of the entries same, one with another id.
func sharedPrefix(entries []*Entry, same []int, i, n int) bool {
	// Compared without regard to case on the ids as they are: a lowered
	// id may be shorter than n bytes (the Kelvin sign lowers to k).
	id := entries[i].ID()
	for _, j := range same {
		other := entries[j].ID()
		if !strings.EqualFold(other, id) && len(other) >= n && strings.EqualFold(other[:n], id[:n]) {
			return true
		}
	}
	return false
}
