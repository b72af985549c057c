package runview

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentloop/agentloop/internal/termtext"
	"github.com/agentloop/agentloop/pkg/agent"
)

// Progress renders the loop's events on stderr: a live status line on a
// terminal, a line per call with -v, nothing with -q or when piped.
type Progress struct {
	statusLine
	live    bool // rewrite one status line (stderr is a terminal)
	tty     bool // stderr is a terminal
	verbose bool
	quiet   bool
	width   int

	start   time.Time
	step    int
	running map[string]string // call id → tool name
	stop    chan struct{}
	done    chan struct{}
	// streaming is set while answer text is going to stdout; the status
	// line stays off the screen so the two never share a line.
	streaming bool
	// final is set while the last request a budget allows is out.
	final bool
	// answered is set from the turn that ends the run: nothing is
	// thinking or running any more, and the line stays off the screen.
	answered bool
	// The -v lines of a turn's calls, held until the lines of the calls
	// before them are out: calls run at once, but are told in call order.
	callStep          int
	starts, dones     map[int]string
	nextStart, nextDn int
}

// NewProgress starts the display of one run.
func NewProgress(o Options) *Progress {
	p := &Progress{
		statusLine: statusLine{w: o.W, redact: o.Redact},
		verbose:    o.Verbose && !o.Quiet, quiet: o.Quiet, tty: o.TTY, live: o.CanRedraw && !o.Quiet && !o.Verbose,
		width: o.Width, start: time.Now(), running: map[string]string{},
		starts: map[int]string{}, dones: map[int]string{},
	}
	if p.live {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.redrawEvery(tickEvery, p.stop, p.done, p.drawLocked)
	}
	return p
}

// Close clears the status line; call it before writing the answer.
func (p *Progress) Close() {
	if p.live {
		close(p.stop)
		<-p.done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// PauseForText is called before answer text streams to stdout.
func (p *Progress) PauseForText() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	p.streaming = true
}

func (p *Progress) drawLocked() {
	if !p.live || p.streaming || p.answered || p.step == 0 || p.held > 0 {
		return
	}
	status := fmt.Sprintf("step %d · thinking", p.step)
	if p.final {
		status = fmt.Sprintf("step %d · answering (no more tool calls)", p.step)
	}
	if len(p.running) > 0 {
		names := make([]string, 0, len(p.running))
		for _, n := range p.running {
			names = append(names, termtext.Safe(n))
		}
		status = fmt.Sprintf("step %d · running %s", p.step, strings.Join(sortedUnique(names), ", "))
	}
	line := fmt.Sprintf("%s · %.1fs", status, time.Since(p.start).Seconds())
	p.showLocked(termtext.TruncateWidth(line, p.width-1))
}

// Event is the loop's OnEvent.
func (p *Progress) Event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventRequest:
		p.step = e.Step
		p.streaming, p.answered = false, false
		p.final = e.Final
	case agent.EventTurn:
		// The turn's streamed text, if any, has ended with its line.
		p.streaming = false
		// A turn the loop runs no calls of ends the run (as answerStream
		// tells its answer).
		t := e.Turn
		if len(t.Calls) == 0 || t.Stop == agent.StopMaxTokens || t.Stop == agent.StopRefusal || (e.Request != nil && e.Request.Final) {
			p.answered = true
			p.clearLocked()
		}
		if p.verbose {
			line := fmt.Sprintf("step %d: %s, %d call(s), %s, %s", e.Step, termtext.Display(t.FinishReason, 100), len(t.Calls), StepUsage(e), t.Latency.Round(time.Millisecond))
			p.printlnLocked(line)
			if t.Text != "" && len(t.Calls) > 0 {
				p.printlnLocked("  says: " + termtext.OneLine(t.Text, 400))
			}
		}
	case agent.EventCallStart:
		p.running[e.Call.ID] = e.Call.Name
		if p.verbose {
			p.newCallsLocked(e)
			p.starts[e.Index] = fmt.Sprintf("  → %s %s %s", termtext.Safe(e.Call.ID), termtext.Safe(e.Call.Name), termtext.OneLine(string(e.Call.Arguments), 300))
			p.flushCallsLocked()
		}
	case agent.EventCallDone:
		delete(p.running, e.Call.ID)
		if p.verbose {
			r := e.Result
			state := "ok"
			if r.IsError {
				state = "error"
				if r.Kind != "" {
					state = "error (" + r.Kind + ")"
				}
			}
			if e.Recorded {
				state += ", finished before the run stopped: not run again"
				// Not started in this run: nothing to say of its start.
				p.newCallsLocked(e)
				p.starts[e.Index] = ""
			}
			size := fmt.Sprintf("%d bytes", len(r.Content))
			if n := len(r.Images); n > 0 {
				size += fmt.Sprintf(" and %d image%s", n, plural(n, "", "s"))
			}
			p.dones[e.Index] = fmt.Sprintf("  ← %s %s: %s, %s, %s: %s", termtext.Safe(e.Call.ID), termtext.Safe(e.Call.Name), state, r.Duration.Round(time.Millisecond), size, termtext.OneLine(r.Content, 200))
			p.flushCallsLocked()
		}
	}
	p.drawLocked()
}

// newCallsLocked starts the held lines afresh when e is of another turn's
// calls.
func (p *Progress) newCallsLocked(e agent.Event) {
	if e.Step != p.callStep || p.nextStart > e.Index {
		p.callStep, p.starts, p.dones, p.nextStart, p.nextDn = e.Step, map[int]string{}, map[int]string{}, 0, 0
	}
}

// flushCallsLocked prints the held -v lines whose turn has come: the
// start of a call once the calls before it have started, its end once
// theirs have ended. (A call's end follows its start.)
func (p *Progress) flushCallsLocked() {
	for line, ok := p.starts[p.nextStart]; ok; line, ok = p.starts[p.nextStart] {
		if line != "" {
			p.printlnLocked(line)
		}
		delete(p.starts, p.nextStart)
		p.nextStart++
	}
	for line, ok := p.dones[p.nextDn]; ok && p.nextDn < p.nextStart; line, ok = p.dones[p.nextDn] {
		p.printlnLocked(line)
		delete(p.dones, p.nextDn)
		p.nextDn++
	}
}

// Note writes a line on stderr below the status line, unless -q.
func (p *Progress) Note(line string) {
	if p.quiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	p.printlnLocked(line)
}

// TranscriptPath says where the transcript goes: with -v, and on a
// terminal unless -q.
func (p *Progress) TranscriptPath(line string) {
	if p.verbose || (p.tty && !p.quiet) {
		p.Printf("%s", line)
	}
}

// Printf writes a message line on stderr, below the status line.
func (p *Progress) Printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.w, p.redact(fmt.Sprintf(format, args...)))
}

func sortedUnique(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

// Summary writes the closing line of a run, on a terminal or with -v.
func (p *Progress) Summary(out *agent.Outcome) {
	if out == nil || (!p.live && !p.verbose) {
		return
	}
	if line := SummaryLine(out); line != "" {
		p.Printf("%s", line)
	}
}
