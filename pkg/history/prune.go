package history

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Older returns the transcripts that started before cutoff, oldest first.
// A foreign file, or one whose header cannot be read, is never among them:
// nothing says it is a run's, or how old the run is. Nor is a run without
// an end record that was written to since the cutoff: it may still be
// going, and its transcript would be lost under it.
func Older(entries []*Entry, cutoff time.Time) []*Entry {
	var old []*Entry
	for _, e := range entries {
		if e.Header != nil && e.Time().Before(cutoff) && (e.End != nil || e.ModTime.Before(cutoff)) {
			old = append(old, e)
		}
	}
	slices.SortStableFunc(old, func(a, b *Entry) int { return a.Time().Compare(b.Time()) })
	return old
}

// Remove deletes the entries' files. It goes on after a failure and
// returns every one, joined.
func Remove(entries []*Entry) (removed int, freed int64, err error) {
	var errs []error
	for _, e := range entries {
		if rerr := os.Remove(e.Path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove %s: %s", e.Path, bareError(rerr)))
			continue
		}
		removed++
		freed += e.Size
	}
	return removed, freed, errors.Join(errs...)
}

// AmbiguousAgeError is an age in "m" alone (6m): minutes to Go, months
// to many people. Read as minutes it would prune nearly every run of
// someone who meant months; read as months it would list nearly nothing
// for someone who meant minutes. Neither is guessed.
type AmbiguousAgeError struct{ Age string }

func (e *AmbiguousAgeError) Error() string {
	n := strings.TrimSuffix(e.Age, "m")
	return fmt.Sprintf("%q is ambiguous: \"m\" could be minutes or months; write %smin for minutes or %smo for months", e.Age, n, n)
}

// ageUnits are the units of an age besides a Go duration's.
var ageUnits = []struct {
	suffix string
	unit   time.Duration
}{{"d", 24 * time.Hour}, {"w", 7 * 24 * time.Hour}, {"mo", 30 * 24 * time.Hour}}

// ParseAge reads an age: a whole number of days, weeks or months (30d,
// 2w, 3mo: a month is 30 days), or a duration (12h, 90min, 1h30m, 45s).
// A number of "m" alone (6m) is refused: see AmbiguousAgeError. Both
// `log --since` and `log prune --older-than` read an age with it, so that
// one means what the other does.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not an age: write a whole number of days (30d), weeks (2w) or months (3mo), or a duration (12h, 90min)", s)
	for _, u := range ageUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 0 || v > 100000 {
				return 0, bad
			}
			return time.Duration(v) * u.unit, nil
		}
	}
	if n, ok := strings.CutSuffix(s, "m"); ok && n != "" && strings.Trim(n, "0123456789.") == "" {
		return 0, &AmbiguousAgeError{Age: s}
	}
	if n, ok := strings.CutSuffix(s, "min"); ok {
		s = n + "m"
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// ParseSince reads a point in time: an age before now (7d, 12h), a date
// (2026-01-31, local midnight) or an RFC 3339 time.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := ParseAge(s)
	var amb *AmbiguousAgeError
	if errors.As(err, &amb) {
		return time.Time{}, err
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an age (7d, 12h, 90min), a date (2026-01-31) nor an RFC 3339 time", s)
	}
	return now.Add(-d), nil
}
