package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// progress renders the loop's events on stderr: a live status line on a
// terminal, a line per call with -v, nothing with -q or when piped.
type progress struct {
	w       io.Writer
	live    bool // rewrite one status line (stderr is a terminal)
	verbose bool
	width   int
	redact  *transcript.Redactor

	mu      sync.Mutex
	start   time.Time
	step    int
	running map[string]string // call id → tool name
	shown   bool              // a status line is on screen
	stop    chan struct{}
	done    chan struct{}
	// streaming is set while answer text is going to stdout; the status
	// line stays off the screen so the two never share a line.
	streaming bool
	// held counts the questions being asked on the terminal; while one is,
	// the status line stays off and -v lines wait in queued.
	held   int
	queued []string
}

func newProgress(ios *IOStreams, verbose, quiet bool) *progress {
	p := &progress{
		w: ios.ErrOut, verbose: verbose && !quiet, live: ios.IsStderrTTY() && !quiet && !verbose,
		width: ios.Width(), redact: secrets(ios), start: time.Now(), running: map[string]string{},
	}
	if p.live {
		p.stop, p.done = make(chan struct{}), make(chan struct{})
		go p.tick()
	}
	return p
}

// tick refreshes the elapsed time on the status line.
func (p *progress) tick() {
	defer close(p.done)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.drawLocked()
			p.mu.Unlock()
		}
	}
}

// Close clears the status line; call it before writing the answer.
func (p *progress) Close() {
	if p.live {
		close(p.stop)
		<-p.done
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
}

// PauseForText is called before answer text streams to stdout.
func (p *progress) PauseForText() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	p.streaming = true
}

func (p *progress) clearLocked() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// hold takes the status line off the screen and keeps stderr quiet until
// release is called, so that a question asked on the terminal is not
// overwritten or split by progress.
func (p *progress) hold() (release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	p.held++
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.held--
		if p.held == 0 {
			for _, line := range p.queued {
				fmt.Fprintln(p.w, line)
			}
			p.queued = nil
		}
	}
}

// printlnLocked writes a -v line, or queues it while a question is asked.
func (p *progress) printlnLocked(line string) {
	line = p.redact.RedactString(line)
	if p.held > 0 {
		p.queued = append(p.queued, line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) drawLocked() {
	if !p.live || p.streaming || p.step == 0 || p.held > 0 {
		return
	}
	status := fmt.Sprintf("step %d · thinking", p.step)
	if len(p.running) > 0 {
		names := make([]string, 0, len(p.running))
		for _, n := range p.running {
			names = append(names, safeText(n))
		}
		status = fmt.Sprintf("step %d · running %s", p.step, strings.Join(sortedUnique(names), ", "))
	}
	line := fmt.Sprintf("%s · %.1fs", status, time.Since(p.start).Seconds())
	fmt.Fprint(p.w, "\r\x1b[K"+truncate(line, p.width-1))
	p.shown = true
}

// Event is the loop's OnEvent.
func (p *progress) Event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case agent.EventRequest:
		p.step = e.Step
		p.streaming = false
	case agent.EventTurn:
		// The turn's streamed text, if any, has ended with its line.
		p.streaming = false
		if p.verbose {
			t := e.Turn
			line := fmt.Sprintf("step %d: %s, %d call(s), %d→%d tokens, %s", e.Step, t.FinishReason, len(t.Calls), t.Usage.InputTokens, t.Usage.OutputTokens, t.Latency.Round(time.Millisecond))
			p.printlnLocked(line)
			if t.Text != "" && len(t.Calls) > 0 {
				p.printlnLocked("  says: " + oneLineText(t.Text, 400))
			}
		}
	case agent.EventCallStart:
		p.running[e.Call.ID] = e.Call.Name
		if p.verbose {
			p.printlnLocked(fmt.Sprintf("  → %s %s %s", safeText(e.Call.ID), safeText(e.Call.Name), oneLineText(string(e.Call.Arguments), 300)))
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
			}
			p.printlnLocked(fmt.Sprintf("  ← %s %s: %s, %s, %d bytes: %s", safeText(e.Call.ID), safeText(e.Call.Name), state, r.Duration.Round(time.Millisecond), len(r.Content), oneLineText(r.Content, 200)))
		}
	}
	p.drawLocked()
}

// Printf writes a message line on stderr, below the status line.
func (p *progress) Printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	fmt.Fprintln(p.w, p.redact.RedactString(fmt.Sprintf(format, args...)))
}

// oneLineText folds text onto one line (each run of white space one
// space, none at the ends), makes it safe to print, and cuts it at max
// runes. A long text costs what its first max runes do.
func oneLineText(s string, max int) string {
	return truncate(safeText(foldSpace(s, max)), max)
}

// foldSpace is strings.Join(strings.Fields(s), " ") cut after limit+1
// runes when limit > 1: safeText only lengthens text, so truncate cuts
// that much of it where it would cut the whole. Text already folded is
// returned as it is.
func foldSpace(s string, limit int) string {
	if limit <= 1 {
		limit = len(s)
	}
	var b []byte
	folded := false // b holds the text so far; else it is s[:end]
	end, runes, space := 0, 0, false
	for i := 0; i < len(s) && runes <= limit; {
		r, size := rune(s[i]), 1
		var blank bool
		if r < utf8.RuneSelf {
			blank = r == ' ' || '\t' <= r && r <= '\r' // unicode.IsSpace's ASCII
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			blank = unicode.IsSpace(r)
		}
		i += size
		if blank {
			if !folded && (r != ' ' || space || runes == 0) {
				folded, b = true, append(b, s[:end]...)
			}
			space = runes > 0
			continue
		}
		if space {
			runes++
			space = false
			if folded {
				b = append(b, ' ')
			}
		}
		if folded {
			b = append(b, s[i-size:i]...)
		}
		runes++
		end = i
	}
	if !folded {
		return s[:end]
	}
	return string(b)
}

// safeText makes text written by a model or a tool safe for a terminal:
// control characters other than newline and tab (an escape sequence could
// move the cursor, retitle the window or hide what follows), bidirectional
// overrides and invalid UTF-8 are shown as escapes instead of sent as they
// are.
func safeText(s string) string {
	clean := true
	for _, r := range s {
		if ' ' <= r && r < 0x7f {
			continue // printable ASCII, most text
		}
		if r == utf8.RuneError || (!unicode.IsGraphic(r) && r != '\n' && r != '\t') || unicode.Is(unicode.Bidi_Control, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\n' || r == '\t' || (unicode.IsGraphic(r) && !unicode.Is(unicode.Bidi_Control, r)):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
		i += size
	}
	return b.String()
}

// truncate cuts s to max runes, the last one an ellipsis, when it is
// longer; invalid UTF-8 in what is kept becomes U+FFFD.
func truncate(s string, max int) string {
	if max <= 1 {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			if !utf8.ValidString(s[:i]) {
				return string([]rune(s[:i])) + "…"
			}
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func sortedUnique(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}
