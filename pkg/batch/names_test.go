package batch

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileName(t *testing.T) {
	tests := []struct{ id, want string }{
		{"a", "a"},
		{"case-17_x.y", "case-17_x.y"},
		{"../etc/passwd", "%2E.%2Fetc%2Fpasswd"},
		{"..", "%2E."},
		{".hidden", "%2Ehidden"},
		{`a\b`, "a%5Cb"},
		{"a b", "a%20b"},
		{"100%", "100%25"},
		{"x~1", "x%7E1"},
		{"tab\there", "tab%09here"},
		{"\x1b[31mred", "%1B%5B31mred"},
		{"é", "%C3%A9"},
		{"results", "%72esults"},
		{"RESULTS", "%52ESULTS"},
		{"results2", "results2"},
	}
	for _, tt := range tests {
		if got := FileName(tt.id); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

// TestFileNameSafeAndDistinct: every name stays in OUTDIR, is short
// enough for any file system, and no two ids, nor an id and another's
// earlier attempt, share one.
func TestFileNameSafeAndDistinct(t *testing.T) {
	ids := []string{"", "/", "//", ".", "..", "a/../../b", "results", "Results", "x~1", "x~h00", "%41", "A",
		strings.Repeat("a", 200), strings.Repeat("a", 201), strings.Repeat("a", 500), strings.Repeat("a", 500) + "b",
		strings.Repeat("/", 300), strings.Repeat("%", 100), strings.Repeat("é", 100) + "x", strings.Repeat("é", 100) + "y"}
	for i := range 300 {
		ids = append(ids, fmt.Sprint(i), fmt.Sprintf("item/%d", i), fmt.Sprintf("%d ", i))
	}
	seen := map[string]string{}
	for _, id := range ids {
		for _, name := range []string{FileName(id), AttemptName(id, 1), AttemptName(id, 12)} {
			if other, dup := seen[name]; dup {
				t.Errorf("%q and %q both give %q", id, other, name)
			}
			seen[name] = id
			if len(name+"~99.jsonl") > 255 {
				t.Errorf("%q: name %d bytes long", id, len(name))
			}
			if strings.ContainsAny(name, "/\\\x00") || strings.HasPrefix(name, ".") || name == "" {
				t.Errorf("%q: unsafe name %q", id, name)
			}
			if filepath.Base(filepath.Join("/out", name+".jsonl")) != name+".jsonl" || filepath.Dir(filepath.Join("/out", name+".jsonl")) != "/out" {
				t.Errorf("%q: %q leaves the folder", id, name)
			}
			if strings.EqualFold(name, "results") {
				t.Errorf("%q is the results file", id)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	good := map[string]Shard{"0/1": {0, 1}, "0/4": {0, 4}, "3/4": {3, 4}, " 2 / 8 ": {2, 8}}
	for in, want := range good {
		if got, err := ParseShard(in); err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	bad := map[string]string{
		"4/4": "shard numbers go from 0 to 3", "-1/4": "shard numbers go from 0 to 3", "1/0": "must be 1 or more",
		"1": "want K/N", "a/b": "want K/N", "1/2/3": "want K/N",
	}
	for in, want := range bad {
		if _, err := ParseShard(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseShard(%q): %v, want %q", in, err, want)
		}
	}
}

// TestShardStable pins the hash: a change would split a set differently
// on machines running different versions.
func TestShardStable(t *testing.T) {
	// The values below are sha256's: first 8 bytes, big-endian, mod 1000.
	if got := ShardOf("a", 1000); got != 250 {
		t.Errorf(`ShardOf("a", 1000) = %d`, got)
	}
	if got := ShardOf("", 7); got != 1 {
		t.Errorf(`ShardOf("", 7) = %d`, got)
	}
}

// TestShardsPartition: every id is in exactly one shard, and the shards
// are about even.
func TestShardsPartition(t *testing.T) {
	const n, items = 4, 4000
	counts := make([]int, n)
	for i := range items {
		id := fmt.Sprintf("case-%d", i)
		in := 0
		for k := range n {
			if (Shard{K: k, N: n}).Has(id) {
				in++
				counts[k]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards", id, in)
		}
	}
	for k, c := range counts {
		if c < items/n*8/10 || c > items/n*12/10 {
			t.Errorf("shard %d has %d of %d items", k, c, items)
		}
	}
	if !(Shard{}).Has("anything") {
		t.Error("the zero shard is not the whole batch")
	}
}

func TestCaseClashes(t *testing.T) {
	items := []Item{{ID: "Case-1", Line: 1}, {ID: "case-1", Line: 2}, {ID: "other", Line: 3}, {ID: "CASE-1", Line: 4}, {ID: "a/b", Line: 5}, {ID: "A/B", Line: 6}}
	probs := CaseClashes(items)
	if len(probs) != 3 || probs[0].Line != 2 || probs[1].Line != 4 || probs[2].Line != 6 {
		t.Fatalf("%+v", probs)
	}
	if want := `ids "case-1" and "Case-1" (line 1) differ only in case`; !strings.Contains(probs[0].Msg, want) {
		t.Errorf("%q", probs[0].Msg)
	}
	if CaseClashes(items[2:3]) != nil {
		t.Error("a clash in one item")
	}
}
