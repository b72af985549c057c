package batch

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Merged is the results of several OUTDIRs put together.
type Merged struct {
	// Results has one result an id, in input order (by line, then id).
	Results []Result
	// Duplicates are the ids found in more than one folder; the result
	// that finished last is kept.
	Duplicates []Duplicate
	// Torn lists the folders whose results file ended in a torn line,
	// left out (the batch writing it was killed; rerunning it finishes the
	// file).
	Torn []string
	// Missing are the items of the input, when given, that no folder has a
	// result for.
	Missing []Item
	// Folders counts the folders read: one named twice is read once.
	Folders int
}

// Duplicate is an id more than one folder has a result for.
type Duplicate struct {
	ID   string
	Dirs []string
}

// Merge reads the results of each folder (a shard's OUTDIR) and puts them
// together. Each result's transcript is made relative to the current
// folder, as dir/NAME.jsonl. items, when not nil, is the input the shards
// came from: its order is the order of the results, and items without a
// result are reported.
func Merge(dirs []string, items []Item) (*Merged, error) {
	m := &Merged{}
	byID := map[string]Result{}
	from := map[string][]string{}
	var seen []os.FileInfo
	for _, dir := range dirs {
		// A folder named twice (out and ./out/, globs that overlap) is
		// read once: its ids are not duplicates of themselves.
		if fi, err := os.Stat(dir); err == nil {
			if slices.ContainsFunc(seen, func(o os.FileInfo) bool { return os.SameFile(o, fi) }) {
				continue
			}
			seen = append(seen, fi)
		}
		m.Folders++
		results, torn, err := ReadResults(filepath.Join(dir, ResultsName))
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir); serr != nil {
				return nil, fmt.Errorf("merge %s: %w", dir, bare(serr))
			}
			return nil, fmt.Errorf("%s holds no %s: not the OUTDIR of a batch", dir, ResultsName)
		}
		if err != nil {
			return nil, fmt.Errorf("merge %s: %w", dir, err)
		}
		if torn != nil {
			m.Torn = append(m.Torn, dir)
		}
		for _, r := range Latest(results) {
			if r.Transcript != "" {
				r.Transcript = filepath.Join(dir, r.Transcript)
			}
			from[r.ID] = append(from[r.ID], dir)
			if old, ok := byID[r.ID]; !ok || r.Time.After(old.Time) {
				byID[r.ID] = r
			}
		}
	}
	for id, ds := range from {
		if len(ds) > 1 {
			m.Duplicates = append(m.Duplicates, Duplicate{ID: id, Dirs: ds})
		}
	}
	slices.SortFunc(m.Duplicates, func(a, b Duplicate) int { return cmp.Compare(a.ID, b.ID) })

	for _, it := range items {
		r, ok := byID[it.ID]
		if !ok {
			m.Missing = append(m.Missing, it)
			continue
		}
		m.Results = append(m.Results, r)
		delete(byID, it.ID)
	}
	rest := make([]Result, 0, len(byID))
	for _, r := range byID {
		rest = append(rest, r)
	}
	slices.SortFunc(rest, func(a, b Result) int {
		if c := cmp.Compare(a.Line, b.Line); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	m.Results = append(m.Results, rest...)
	return m, nil
}

// CheckMergeOutput refuses, before anything is read, an -o (out) that would
// replace what it must not: a folder, the input, a results file merge
// reads (a batch may still be appending to it), or a file that is not a
// results file. An earlier merge's file, an empty file, a device and a
// file not there yet are fine.
func CheckMergeOutput(out, input string, dirs []string) error {
	if out == "" || out == "-" {
		return nil
	}
	fi, err := os.Stat(out)
	if err != nil {
		return nil
	}
	switch {
	case fi.IsDir():
		return fmt.Errorf("-o %s: is a folder; name a file for the results (-o %s)", out, filepath.Join(out, "merged.jsonl"))
	case !fi.Mode().IsRegular():
		return nil
	case input != "" && input != "-" && sameFile(out, input):
		return fmt.Errorf("-o %s: is the input merge reads; name another file for the results", out)
	}
	for _, d := range dirs {
		if sameFile(out, filepath.Join(d, ResultsName)) {
			return fmt.Errorf("-o %s: is the results file of %s, which merge reads; name another file for the results", out, d)
		}
	}
	if fi.Size() > 0 {
		if _, _, err := ReadResults(out); err != nil {
			return fmt.Errorf("-o %s: the file exists and is not a results file: it is left as it is (remove it, or name another file)", out)
		}
	}
	return nil
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
