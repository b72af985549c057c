package batch

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// maxName bounds a file name made of an id, below the 255 bytes file
// systems allow, with room for an attempt's suffix and ".jsonl".
const maxName = 200

// FileName is the name, without ".jsonl", of the transcript of the item
// id. Any id gives a plain file name in OUTDIR and no two ids give the
// same one:
//
//   - letters, digits, "_", "-" and "." stay as they are, but for a
//     leading "." (no hidden files, no "." or ".." and so no way out of
//     OUTDIR);
//   - every other byte ("/", "\", "%", spaces, control characters,
//     non-ASCII) is written %XX, so "/" never makes a path;
//   - a name longer than 200 bytes keeps its first 180 and ends with "~h"
//     and 16 hex digits of the id's SHA-256;
//   - "results" (of any case) has its first letter written %XX, so no
//     transcript is results.jsonl.
//
// "~" is never in a name but in that marker, and attempts add "~N" (see
// AttemptName), so no attempt's name is another id's.
func FileName(id string) string {
	if id == "" {
		return "%" // no id gives it: every other "%" is followed by two digits
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	name := b.String()
	if strings.EqualFold(name, "results") {
		name = fmt.Sprintf("%%%02X", name[0]) + name[1:]
	}
	if len(name) > maxName {
		sum := sha256.Sum256([]byte(id))
		cut := 180
		// Not inside a %XX.
		if i := strings.LastIndexByte(name[:cut], '%'); i > cut-3 {
			cut = i
		}
		name = name[:cut] + "~h" + hex.EncodeToString(sum[:8])
	}
	return name
}

// AttemptName is the file name, without ".jsonl", under which the
// transcript of an earlier attempt at an item is kept: its FileName and
// "~N".
func AttemptName(id string, n int) string {
	return FileName(id) + "~" + strconv.Itoa(n)
}

// Shard is one of N parts of a batch: the items whose id hashes to K.
// The zero Shard is the whole batch.
type Shard struct {
	K, N int
}

// ParseShard reads "K/N", 0 <= K < N: shards are numbered from 0, as a
// Kubernetes Indexed Job's $JOB_COMPLETION_INDEX.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(strings.TrimSpace(k))
	ni, err2 := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Shard{}, fmt.Errorf("%q: want K/N, such as 0/4 for the first of four shards", s)
	case ni < 1:
		return Shard{}, fmt.Errorf("%q: the number of shards must be 1 or more", s)
	case ki < 0 || ki >= ni:
		return Shard{}, fmt.Errorf("%q: shard numbers go from 0 to %d (numbered from 0, as $JOB_COMPLETION_INDEX)", s, ni-1)
	}
	return Shard{K: ki, N: ni}, nil
}

// Has reports whether the item id belongs to the shard. The hash is the
// first 8 bytes of the id's SHA-256, so every machine and every rerun
// splits a set the same way.
func (s Shard) Has(id string) bool {
	if s.N <= 1 {
		return true
	}
	return ShardOf(id, s.N) == s.K
}

// ShardOf is the shard, of n, the item id belongs to.
func ShardOf(id string, n int) int {
	sum := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
}

func (s Shard) String() string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// CaseClashes finds the ids whose file names differ only in case: on a
// file system that ignores case (macOS, Windows) their transcripts would
// be one file.
func CaseClashes(items []Item) []Problem {
	var probs []Problem
	seen := map[string]Item{}
	for _, it := range items {
		key := strings.ToLower(FileName(it.ID))
		if first, ok := seen[key]; ok {
			probs = append(probs, Problem{it.Line, fmt.Sprintf("ids %s and %s (line %d) differ only in case: OUTDIR's file system does not tell their transcripts apart",
				strconv.Quote(it.ID), strconv.Quote(first.ID), first.Line)})
			continue
		}
		seen[key] = it
	}
	return probs
}
