package htmlview

import (
	"fmt"
	"math"
	"slices"
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
	// Kind of a failed call (transcript.Kind*), "" otherwise.
	ErrorKind string
	// Anchor is the id of the message to jump to.
	Anchor string
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
		free[slot] += c.duration
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
type axis struct {
	segs  []segment
	total time.Duration // visual length
}

type segment struct {
	from, to time.Time     // real
	at       time.Duration // visual start
}

// Gap is an idle stretch cut out of the axis.
type Gap struct {
	At      float64 // position, 0 to 1
	Skipped time.Duration
}

const gapLimit = 2 * time.Second

func newAxis(spans []Span) (*axis, []Gap) {
	if len(spans) == 0 {
		return &axis{}, nil
	}
	type iv struct{ from, to time.Time }
	ivs := make([]iv, len(spans))
	for i, s := range spans {
		ivs[i] = iv{s.Start, s.End}
	}
	slices.SortFunc(ivs, func(a, b iv) int { return a.from.Compare(b.from) })
	// Merge what overlaps or lies closer than gapLimit.
	merged := []iv{ivs[0]}
	for _, v := range ivs[1:] {
		last := &merged[len(merged)-1]
		if v.from.Sub(last.to) <= gapLimit {
			if v.to.After(last.to) {
				last.to = v.to
			}
			continue
		}
		merged = append(merged, v)
	}
	var busy time.Duration
	for _, m := range merged {
		busy += m.to.Sub(m.from)
	}
	// A cut is drawn as 2% of the busy time, at least 200 ms wide.
	cut := max(busy/50, 200*time.Millisecond)
	a := &axis{}
	var gaps []Gap
	var at time.Duration
	for i, m := range merged {
		if i > 0 {
			gaps = append(gaps, Gap{Skipped: m.from.Sub(merged[i-1].to)})
			at += cut
		}
		a.segs = append(a.segs, segment{from: m.from, to: m.to, at: at})
		at += m.to.Sub(m.from)
	}
	a.total = at
	for i := range gaps {
		// The gap's middle: halfway through the cut before segment i+1.
		gaps[i].At = a.frac(a.segs[i+1].at - cut/2)
	}
	return a, gaps
}

func (a *axis) frac(d time.Duration) float64 {
	if a.total <= 0 {
		return 0
	}
	return math.Min(1, math.Max(0, float64(d)/float64(a.total)))
}

// pos is where a real time falls, 0 to 1.
func (a *axis) pos(t time.Time) float64 {
	if len(a.segs) == 0 {
		return 0
	}
	i, _ := slices.BinarySearchFunc(a.segs, t, func(s segment, t time.Time) int {
		switch {
		case s.to.Before(t):
			return -1
		case s.from.After(t):
			return 1
		}
		return 0
	})
	if i >= len(a.segs) {
		return 1
	}
	s := a.segs[i]
	if t.Before(s.from) {
		t = s.from
	}
	return a.frac(s.at + t.Sub(s.from))
}

// Tick is a mark on the time axis.
type Tick struct {
	At    float64
	Label string
}

// ticks marks the axis about every 1/8 of its length at a round step of
// real time since the start, within each segment.
func (a *axis) ticks() []Tick {
	if a.total <= 0 || len(a.segs) == 0 {
		return nil
	}
	step := niceStep(a.total / 8)
	start := a.segs[0].from
	var out []Tick
	for _, s := range a.segs {
		from := s.from.Sub(start)
		k := (from + step - 1) / step * step
		if len(out) == 0 {
			k = 0
		}
		for ; k <= s.to.Sub(start); k += step {
			out = append(out, Tick{At: a.pos(start.Add(k)), Label: tickLabel(k, step)})
		}
	}
	return out
}

// niceStep rounds d up to 1, 2 or 5 times a power of ten of milliseconds,
// or to a round number of seconds, minutes or hours.
func niceStep(d time.Duration) time.Duration {
	for _, s := range []time.Duration{
		time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond,
		50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	} {
		if s >= d {
			return s
		}
	}
	return 24 * time.Hour * time.Duration(math.Ceil(float64(d)/float64(24*time.Hour)))
}

// elapsed writes a time since the start: 0s, 850ms, 12.5s, 3m05s, 2h10m.
func elapsed(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return trimZero(fmt.Sprintf("%.1f", d.Seconds())) + "s"
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}

// tickLabel writes a time since the start as precisely as the ticks'
// step needs: 1h00m02s after a cut, not 1h00m three times.
func tickLabel(d, step time.Duration) string {
	if d < time.Minute || step >= time.Minute {
		return elapsed(d)
	}
	sec := trimZero(fmt.Sprintf("%04.1f", (d % time.Minute).Seconds()))
	if step >= time.Second {
		sec = fmt.Sprintf("%02d", int((d%time.Minute)/time.Second))
	}
	if d < time.Hour {
		return fmt.Sprintf("%dm%ss", int(d/time.Minute), sec)
	}
	return fmt.Sprintf("%dh%02dm%ss", int(d/time.Hour), int(d%time.Hour/time.Minute), sec)
}
