package runview

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/batchapi"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// Batch shows a batch going on stderr: a bar on a terminal
// (items done and failed, tokens, cost, rate, time left, a pause for a
// rate limit), a line per finished item with -v, nothing when piped or
// with -q. Item ids and error texts are shown escaped: they come from the
// input and from servers.
type Batch struct {
	statusLine
	live    bool
	verbose bool
	quiet   bool
	width   int
	limiter *httpretry.Limiter

	start   time.Time
	total   int
	done    int
	failed  int
	budget  int
	running int
	usage   transcript.Usage
	cost    float64
	// noted counts the notes of the approver (calls denied, declined):
	// the first is shown, the others with -v, and how many at the end.
	noted   int
	stop    chan struct{}
	stopped chan struct{}
	// rounds is where the rounds stand (--batch-api); seen the status of
	// each batch last printed (-v).
	rounds *batchapi.Progress
	seen   map[string]string
}

// NewBatch starts the display of a batch of total items.
func NewBatch(o Options, total int) *Batch {
	p := &Batch{
		statusLine: statusLine{w: o.W, redact: o.Redact},
		verbose:    o.Verbose && !o.Quiet, quiet: o.Quiet, live: o.CanRedraw && !o.Quiet && !o.Verbose,
		width: o.Width, start: time.Now(), total: total,
	}
	if p.live {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.redrawEvery(tickEvery, p.stop, p.stopped, p.drawLocked)
	}
	return p
}

// Start is batch.Options.OnStart.
func (p *Batch) Start(batch.Task) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running++
	p.drawLocked()
}

// Events is the OnEvent of an item's loop: the tokens of each turn count
// as they come.
func (p *Batch) Events(string) func(agent.Event) {
	return func(e agent.Event) {
		if e.Kind != agent.EventTurn {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.usage.Add(e.Turn.Usage)
	}
}

// Done is batch.Options.OnDone.
func (p *Batch) Done(r batch.Result, recorded bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	if !recorded {
		return // interrupted: the next run goes on with it
	}
	p.done++
	switch r.Class() {
	case batch.Failed:
		p.failed++
	case batch.Budget:
		p.budget++
	}
	if r.Cost != nil {
		p.cost += *r.Cost
	}
	if p.verbose {
		line := fmt.Sprintf("[%d/%d] %s: %s, %d step%s, %d→%d tokens, %s", p.done, p.total, termtext.OneLine(r.ID, 80), r.Reason,
			r.Steps, plural(r.Steps, "", "s"), r.Usage.InputTokens, r.Usage.OutputTokens, time.Duration(r.DurationMS)*time.Millisecond)
		if r.Error != "" {
			line += ": " + termtext.OneLine(r.Error, 300)
		}
		p.printlnLocked(line)
	}
	p.drawLocked()
}

// Note says that an item's call was denied or declined: the first such
// line, and every one with -v; a batch of many items would otherwise say
// the same thing once an item. Each is in its item's transcript.
func (p *Batch) Note(line string) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noted++
	if p.noted > 1 && !p.verbose {
		return
	}
	p.clearLocked()
	p.printlnLocked(line)
	p.drawLocked()
}

// SetLimiter makes the bar say when limiter pauses every request.
func (p *Batch) SetLimiter(limiter *httpretry.Limiter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limiter = limiter
}

// Close takes the bar off the screen.
func (p *Batch) Close() {
	if p.live {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	if n := p.noted - 1; n > 0 && !p.verbose {
		fmt.Fprintf(p.w, "agentloop: %d more tool call%s denied or declined (-v shows each; the transcripts hold them)\n", n, plural(n, " was", "s were"))
	}
}

func (p *Batch) drawLocked() {
	if !p.live || p.held > 0 {
		return
	}
	p.showLocked(termtext.TruncateWidth(p.statusLocked(time.Now()), p.width-1))
}

// statusLocked is the bar's line.
func (p *Batch) statusLocked(now time.Time) string {
	const cells = 20
	filled := 0
	if p.total > 0 {
		filled = p.done * cells / p.total
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", cells-filled), p.done, p.total)
	if p.failed > 0 {
		fmt.Fprintf(&b, " · %d failed", p.failed)
	}
	if p.budget > 0 {
		fmt.Fprintf(&b, " · %d out of budget", p.budget)
	}
	fmt.Fprintf(&b, " · %d running · %s tokens", p.running, count(p.usage.InputTokens+p.usage.OutputTokens))
	if p.cost > 0 {
		fmt.Fprintf(&b, " · $%.2f", p.cost)
	}
	elapsed := now.Sub(p.start)
	if p.done > 0 && elapsed > 0 {
		rate := float64(p.done) / elapsed.Minutes()
		fmt.Fprintf(&b, " · %.1f/min", rate)
		if left := p.total - p.done; left > 0 {
			fmt.Fprintf(&b, " · %s left", (time.Duration(float64(left) / rate * float64(time.Minute))).Round(time.Second))
		}
	}
	p.roundsText(&b)
	if p.limiter != nil {
		if until := p.limiter.Status().PausedUntil; until.After(now) {
			fmt.Fprintf(&b, " · rate limited: paused %s", until.Sub(now).Round(100*time.Millisecond))
		}
	}
	return b.String()
}

// count writes a number of tokens short: 950, 12.3k, 4.56M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// Rounds is the engine's OnProgress: the bar shows the round, the items
// waiting and how long the oldest batch has been queued; -v prints a line
// when a batch changes status.
func (p *Batch) Rounds(rp batchapi.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.verbose {
		for _, f := range rp.Batches {
			if p.seen == nil {
				p.seen = map[string]string{}
			}
			if p.seen[f.ID] != f.State {
				p.seen[f.ID] = f.State
				p.clearLocked()
				p.printlnLocked(fmt.Sprintf("round %d: batch %s %s · %d item%s waiting", rp.Round, termtext.Safe(f.ID), termtext.Safe(f.State), rp.Waiting, plural(rp.Waiting, "", "s")))
			}
		}
	}
	p.rounds = &rp
	p.drawLocked()
}

// roundsText ends the bar's line with where the rounds stand.
func (p *Batch) roundsText(b *strings.Builder) {
	rp := p.rounds
	if rp == nil || rp.Round == 0 {
		return
	}
	fmt.Fprintf(b, " · round %d · %d waiting", rp.Round, rp.Waiting)
	if len(rp.Batches) > 0 {
		f := rp.Batches[0]
		fmt.Fprintf(b, " · %s %s", termtext.Safe(f.State), f.Queued.Round(time.Second))
	}
}
