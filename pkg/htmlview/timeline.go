package htmlview

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// SpanKind is what a bar of the timeline stands for.
type SpanKind int

const (
	SpanModel SpanKind = iota // a request to the model
	SpanTool                  // a tool call
)

// Span is one model call or tool call on the time axis. Start and End are
// real times; Lane is the row it is drawn on: 0 for the model, the tool
// calls that overlap in time on rows of their own from 1.
type Span struct {
	Kind       SpanKind
	Step       int
	Name       string // the tool's name, "" for the model
	CallID     string
	Start, End time.Time
	Lane       int
	IsError    bool
	// Kind of a failed call (wire.Kind*), "" otherwise.
	ErrorKind string
	// Anchor is the id of the message to jump to.
	Anchor string
}

// Millis is a duration a record gives in milliseconds: none when it is
// negative, and at most the longest a time.Duration holds (292 years),
// never one the multiplication wrapped round.
func Millis(ms int64) time.Duration {
	switch {
	case ms <= 0:
		return 0
	case ms > math.MaxInt64/int64(time.Millisecond):
		return math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// add is a + b for durations that are not negative, at most the longest a
// time.Duration holds.
func add(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Duration is how long the span lasted.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// batchCall is one call of a turn as the transcript records how it ran.
type batchCall struct {
	name, callID string
	duration     time.Duration
	isError      bool
	errorKind    string
	anchor       string
	// done, when known, is when the call finished.
	done time.Time
}

// layoutBatch places the calls of one turn on the time axis. The loop
// starts them in call order, at most parallel at once, as soon as a slot
// is free; the message answering them is written when the last finishes
// (at end). So the calls are laid out as the loop ran them and the whole
// batch is moved to end there; it never starts before notBefore (the end
// of the model call that asked for them). A call whose finishing time is
// recorded is drawn where it really ran.
func layoutBatch(step int, calls []batchCall, parallel int, end, notBefore time.Time) []Span {
	if parallel < 1 {
		parallel = 1
	}
	free := make([]time.Duration, min(parallel, max(1, len(calls))))
	starts := make([]time.Duration, len(calls))
	var makespan time.Duration
	for i, c := range calls {
		slot := 0
		for j := range free {
			if free[j] < free[slot] {
				slot = j
			}
		}
		starts[i] = free[slot]
		free[slot] = add(free[slot], c.duration)
		makespan = max(makespan, free[slot])
	}
	base := end.Add(-makespan)
	if base.Before(notBefore) && !notBefore.IsZero() {
		base = notBefore
	}
	spans := make([]Span, len(calls))
	for i, c := range calls {
		s := Span{Kind: SpanTool, Step: step, Name: c.name, CallID: c.callID, IsError: c.isError, ErrorKind: c.errorKind, Anchor: c.anchor}
		if !c.done.IsZero() {
			s.End, s.Start = c.done, c.done.Add(-c.duration)
		} else {
			s.Start = base.Add(starts[i])
			s.End = s.Start.Add(c.duration)
		}
		spans[i] = s
	}
	return spans
}

// assignLanes puts model spans on lane 0 and each tool span on the first
// lane from 1 free when it starts, so that calls that ran at the same time
// are drawn one above the other. It returns the number of lanes.
func assignLanes(spans []Span) int {
	idx := make([]int, 0, len(spans))
	for i := range spans {
		if spans[i].Kind == SpanTool {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return spans[a].Start.Compare(spans[b].Start) })
	var laneEnd []time.Time
	for _, i := range idx {
		lane := -1
		for l, e := range laneEnd {
			if !e.After(spans[i].Start) {
				lane = l
				break
			}
		}
		if lane < 0 {
			lane = len(laneEnd)
			laneEnd = append(laneEnd, time.Time{})
		}
		laneEnd[lane] = spans[i].End
		spans[i].Lane = lane + 1
	}
	return len(laneEnd) + 1
}

// axis maps real time to a position from 0 to 1 along the timeline. Idle
// stretches longer than gapLimit (a person typing a follow-up, hours
// between a run and its continuation) are cut to a short fixed width, so
// that the work stays readable; each cut is a Gap.
//
// The axis counts in seconds as floating point, from the earliest start:
// a transcript's times are whatever its records say, years 0001 to 9999
// among them, which a time.Duration (292 years at most) cannot hold, nor
// sums of such. Every figure stays finite, and every loop over the axis
// is bounded by the number of spans, never by the times.
type axis struct {
	t0    time.Time
	segs  []segment
	total float64 // visual length, seconds
}

type segment struct {
	from, to float64 // real, seconds since t0
	at       float64 // visual start
}

// Gap is an idle stretch cut out of the axis.
type Gap struct {
	At      float64 // position, 0 to 1
	Skipped float64 // seconds
}

// gapLimit is the longest idle stretch drawn to scale, in seconds.
const gapLimit = 2.0

// since is the time from t0 to t in seconds, whatever the years between
// them (time.Time.Sub stops at 292 years).
func since(t0, t time.Time) float64 {
	return float64(t.Unix()-t0.Unix()) + float64(t.Nanosecond()-t0.Nanosecond())/1e9
}

func newAxis(spans []Span) (*axis, []Gap) {
	if len(spans) == 0 {
		return &axis{}, nil
	}
	a := &axis{t0: spans[0].Start}
	for _, s := range spans[1:] {
		if s.Start.Before(a.t0) {
			a.t0 = s.Start
		}
	}
	type iv struct{ from, to float64 }
	ivs := make([]iv, len(spans))
	for i, s := range spans {
		from := since(a.t0, s.Start)
		ivs[i] = iv{from, max(from, since(a.t0, s.End))}
	}
	slices.SortFunc(ivs, func(a, b iv) int { return cmp.Compare(a.from, b.from) })
	// Merge what overlaps or lies closer than gapLimit.
	merged := []iv{ivs[0]}
	for _, v := range ivs[1:] {
		last := &merged[len(merged)-1]
		if v.from-last.to <= gapLimit {
			last.to = max(last.to, v.to)
			continue
		}
		merged = append(merged, v)
	}
	var busy float64
	for _, m := range merged {
		busy += m.to - m.from
	}
	// A cut is drawn as 2% of the busy time, at least 200 ms wide.
	cut := max(busy/50, 0.2)
	var gaps []Gap
	var at float64
	for i, m := range merged {
		if i > 0 {
			gaps = append(gaps, Gap{Skipped: m.from - merged[i-1].to})
			at += cut
		}
		a.segs = append(a.segs, segment{from: m.from, to: m.to, at: at})
		at += m.to - m.from
	}
	a.total = at
	for i := range gaps {
		// The gap's middle: halfway through the cut before segment i+1.
		gaps[i].At = a.frac(a.segs[i+1].at - cut/2)
	}
	return a, gaps
}

func (a *axis) frac(d float64) float64 {
	if !(a.total > 0) {
		return 0
	}
	return math.Min(1, math.Max(0, d/a.total))
}

// pos is where a real time falls, 0 to 1.
func (a *axis) pos(t time.Time) float64 {
	if len(a.segs) == 0 {
		return 0
	}
	return a.posAt(since(a.t0, t))
}

// posAt is where a real time, in seconds since t0, falls.
func (a *axis) posAt(x float64) float64 {
	i, _ := slices.BinarySearchFunc(a.segs, x, func(s segment, x float64) int {
		switch {
		case s.to < x:
			return -1
		case s.from > x:
			return 1
		}
		return 0
	})
	if i >= len(a.segs) {
		return 1
	}
	s := a.segs[i]
	return a.frac(s.at + (max(x, s.from) - s.from))
}

// Tick is a mark on the time axis.
type Tick struct {
	At    float64
	Label string
}

// maxSegmentTicks bounds the ticks of one stretch of the axis. The step
// is an eighth of the axis or more, so a stretch has at most nine: the
// bound holds whatever rounding does to times centuries from the start.
const maxSegmentTicks = 10

// ticks marks the axis about every 1/8 of its length at a round step of
// real time since the start, within each segment.
func (a *axis) ticks() []Tick {
	if !(a.total > 0) || len(a.segs) == 0 {
		return nil
	}
	step := niceStep(a.total / 8)
	var out []Tick
	for i, s := range a.segs {
		// The first multiple of step in the segment: an index, so that
		// the ticks are multiples of step exactly as far as floating
		// point goes, and counted, so that their number is bounded.
		first := math.Ceil(s.from / step)
		if i == 0 {
			first = 0
		}
		n := math.Floor(s.to/step) - first + 1
		for k := 0.0; k < min(n, maxSegmentTicks); k++ {
			// Steps are whole milliseconds: 3600 s, not 3599.9999….
			x := math.Round((first+k)*step*1000) / 1000
			out = append(out, Tick{At: a.frac(s.at + (max(x, s.from) - s.from)), Label: tickLabel(x, step)})
		}
	}
	return out
}

// niceStep rounds d (seconds) up to 1, 2 or 5 times a power of ten of
// milliseconds, or to a round number of seconds, minutes, hours or days.
func niceStep(d float64) float64 {
	for _, s := range []float64{
		0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
		1, 2, 5, 10, 15, 30,
		60, 2 * 60, 5 * 60, 10 * 60, 15 * 60, 30 * 60,
		3600, 2 * 3600, 6 * 3600, 12 * 3600, 24 * 3600,
	} {
		if s >= d {
			return s
		}
	}
	return day * math.Ceil(d/day)
}

const day = 24 * 3600.0

// elapsed writes a time since the start, in seconds: 0s, 850ms, 12.5s,
// 3m05s, 2h10m, 4d02h.
func elapsed(s float64) string {
	switch {
	case s == 0:
		return "0s"
	case s < 1:
		return strconv.FormatFloat(math.Round(s*1000), 'f', 0, 64) + "ms"
	case s < 60:
		return trimZero(fmt.Sprintf("%.1f", s)) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int64(s/60), int64(s)%60)
	case s < 2*day:
		return fmt.Sprintf("%dh%02dm", int64(s/3600), int64(s/60)%60)
	}
	return fmt.Sprintf("%dd%02dh", int64(s/day), int64(s/3600)%24)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// tickLabel writes a time since the start, in seconds, as precisely as
// the ticks' step needs: 1h00m02s after a cut, not 1h00m three times.
func tickLabel(d, step float64) string {
	if d < 60 || step >= 60 {
		return elapsed(d)
	}
	m := math.Mod(d, 60)
	sec := trimZero(fmt.Sprintf("%04.1f", m))
	if step >= 1 {
		sec = fmt.Sprintf("%02d", int64(m))
	}
	if d < 3600 {
		return fmt.Sprintf("%dm%ss", int64(d/60), sec)
	}
	return fmt.Sprintf("%dh%02dm%ss", int64(d/3600), int64(d/60)%60, sec)
}
