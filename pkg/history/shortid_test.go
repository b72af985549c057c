package history

import (
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// TestShortIDs: ids that start alike are shown as far as tells them apart,
// whatever their case; an id whose letters are shorter in lower case (the
// Kelvin sign is k) does not cut a string short of where it ends.
func TestShortIDs(t *testing.T) {
	entry := func(id string) *Entry { return &Entry{Header: &transcript.Header{ID: id}} }
	for _, tc := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"apart in 8", []string{"0123456789", "abcdefghij"}, []string{"01234567", "abcdefgh"}},
		{"alike in 8", []string{"0123456789", "0123456788"}, []string{"0123456789", "0123456788"}},
		{"alike but for case", []string{"ABCDEFGH12", "abcdefgh13"}, []string{"ABCDEFGH12", "abcdefgh13"}},
		{"copies of one run", []string{"0123456789", "0123456789"}, []string{"01234567", "01234567"}},
		{"lower case shorter", []string{"\u212a\u212a\u212a1", "\u212a\u212a\u212a2"}, []string{"\u212a\u212a\u212a1", "\u212a\u212a\u212a2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var es []*Entry
			for _, id := range tc.ids {
				es = append(es, entry(id))
			}
			got := ShortIDs(es)
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("ShortIDs(%q) = %q, want %q", tc.ids, got, tc.want)
				}
			}
		})
	}
}
