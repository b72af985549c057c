// Package suggest finds the name a mistyped one was meant to be, for the
// "did you mean" of an error message.
package suggest

import (
	"fmt"
	"strings"
)

// Nearest returns the candidate closest to s by edit distance, or "" when
// none is close enough to be a likely typo.
func Nearest(s string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// A third of the word may be wrong: "descripton" → "description",
	// but "foo" is not offered "env".
	limit := max(1, len(s)/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// DidYouMean formats a suggestion for s, " (did you mean 'x'?)", or
// returns "".
func DidYouMean(s string, candidates []string) string {
	if n := Nearest(s, candidates); n != "" {
		return fmt.Sprintf(" (did you mean '%s'?)", n)
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbours ("ehco"
// for "echo") each count one. Counted in bytes: keys and names are ASCII.
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev2, prev, cur := rows[(i+2)%3], rows[i%3], rows[(i+1)%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
	}
	return rows[(len(a)+1)%3][len(b)]
}
