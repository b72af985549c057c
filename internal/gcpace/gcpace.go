// Package gcpace keeps the collector's headroom from growing with a long
// conversation.
//
// By default the collector lets the heap grow by GOGC percent (100) of what
// was live after the last collection before it collects again. Most of
// what a long run holds is its conversation, which is never garbage: the
// garbage a step makes (a response decoded, a tool's output read, a record
// written) does not grow with it. Headroom in proportion to the
// conversation buys nothing but memory: a run whose conversation is 40 MB
// lets 40 MB of garbage pile up before it collects. Once more than
// Headroom is live, the percent is lowered so that the heap grows by about
// Headroom, and never below MinPercent of what is live, so that a heap of
// one large conversation is not collected at every step.
//
// A user who sets GOGC or GOMEMLIMIT keeps them as set: nothing is changed.
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

const (
	// Headroom is the garbage the heap may gather between collections
	// once this much is live.
	Headroom = 4 << 20
	// MinPercent is the least headroom, in percent of what is live.
	MinPercent = 25
	// defaultPercent is the runtime's GOGC default.
	defaultPercent = 100
)

// Percent is the GOGC percent for a heap with live bytes live after a
// collection.
func Percent(live uint64) int {
	if live <= Headroom {
		return defaultPercent
	}
	return max(int(Headroom*100/live), MinPercent)
}

var once sync.Once

// Start sets the percent after every collection from then on, unless
// GOGC or GOMEMLIMIT is set. It is safe to call more than once.
func Start() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	once.Do(func() {
		p := &pacer{percent: defaultPercent, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
		p.arm()
	})
}

// pacer runs once after every collection: a cleanup of an object that
// nothing holds runs after the collection that finds it unreachable, and
// each run arms the next.
type pacer struct {
	percent int
	sample  []metrics.Sample
}

// sentinel is large enough not to be packed with other small objects,
// which would keep it alive as long as they are.
type sentinel struct{ _ [32]byte }

func (p *pacer) arm() {
	runtime.AddCleanup(new(sentinel), func(p *pacer) {
		p.adjust()
		p.arm()
	}, p)
}

// adjust sets the percent for what the last collection left live.
func (p *pacer) adjust() {
	metrics.Read(p.sample)
	if p.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if n := Percent(p.sample[0].Value.Uint64()); n != p.percent {
		p.percent = n
		debug.SetGCPercent(n)
	}
}
