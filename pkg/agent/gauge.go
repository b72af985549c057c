package agent

import (
	"fmt"
	"math"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Budget caps what one run spends; a zero field is no cap. A resumed run
// counts from nothing, as --max-steps does.
type Budget struct {
	// MaxTotalTokens caps the input and output tokens of the run's
	// requests.
	MaxTotalTokens int64
	// MaxCost caps what the run costs in US dollars; it needs Loop.Price.
	MaxCost float64
}

// The budgets that can run out, as Outcome.Exhausted names them.
const (
	ExhaustedSteps   = "steps"
	ExhaustedTokens  = "tokens"
	ExhaustedCost    = "cost"
	ExhaustedContext = "context"
)

// defaultTokensPerByte estimates a request's tokens before any usage is
// known: JSON-wrapped text runs at three to four bytes a token, and the
// estimate errs high.
const defaultTokensPerByte = 1.0 / 3

// RequestStats is what one request carried and cost: the growth of a run,
// step by step.
type RequestStats struct {
	Step int
	// InputTokens is every input token of the request, CachedTokens those
	// read from the prompt cache (see transcript.RequestTokens).
	InputTokens, CachedTokens, OutputTokens int64
	// Bytes is the size of the request body.
	Bytes int
	// Cleared counts the results this request was the first to carry
	// cleared, ClearedBytes their size; Placeholders counts every result
	// it carried cleared.
	Cleared, ClearedBytes, Placeholders int
	// Final is set on the last request a budget allowed, sent with tool
	// choice "none".
	Final bool
	// Cost is in US dollars; CostKnown is false without a price.
	Cost      float64
	CostKnown bool
}

// gauge keeps what is sent apart from the conversation (the results
// cleared in it), and what the run has spent, to decide before each request
// whether it may be sent, and as what.
type gauge struct {
	l *Loop
	d Dialect
	// sent is the conversation as the next request carries it: the
	// conversation's own messages but for those whose results are cleared.
	sent  []Message
	bytes int // the size of sent's messages
	// refs are the conversation's tool results in order; names maps the
	// call ids seen to their tools.
	refs  []ResultRef
	names map[string]string
	// cleared are the clearings not yet recorded: those of the request
	// about to be sent.
	cleared []transcript.Cleared
	// facts are what sync read of each message of the conversation; prev
	// the last run's, reused where the messages are the same.
	facts, prev []msgFacts

	// Calibration: the body's size beyond its messages, and tokens per
	// byte, both from the last request; added is what the conversation
	// grew by since then, and addedRefs the results it gained.
	overhead  int
	perByte   float64
	added     int
	addedRefs []ResultRef

	// What the run has spent.
	tokens    int64
	cost      float64
	cached    int64 // the last request's cached input tokens
	maxOutput int64
}

func newGauge(l *Loop, st *State) *gauge {
	g := &gauge{l: l, d: l.Provider, names: map[string]string{}, perByte: st.TokensPerByte}
	l.readMu.Lock()
	g.prev = l.read
	l.readMu.Unlock()
	if g.perByte <= 0 {
		g.perByte = defaultTokensPerByte
	}
	g.overhead = len(l.system()) + l.answerFormatBytes() + 256
	for _, t := range l.ToolDefs {
		g.overhead += len(t) + 1
	}
	return g
}

// sync takes in the messages the conversation gained since the last call.
func (g *gauge) sync(msgs []Message) {
	for i := len(g.sent); i < len(msgs); i++ {
		m := msgs[i]
		f := g.read(i, m)
		g.sent = append(g.sent, m)
		g.bytes += len(m) + 1
		g.added += len(m) + 1
		if f.assistant {
			// A reply: the request before it carried every result so far.
			for k := len(g.refs) - 1; k >= 0 && g.refs[k].Unread; k-- {
				g.refs[k].Unread = false
			}
			for _, c := range f.calls {
				g.names[c.ID] = c.Name
			}
			continue
		}
		for _, rc := range f.results {
			r := ResultRef{Msg: i, CallID: rc.CallID, Name: g.names[rc.CallID], Bytes: rc.End - rc.Start, Unread: true}
			g.refs = append(g.refs, r)
			g.addedRefs = append(g.addedRefs, r)
		}
	}
	g.l.readMu.Lock()
	g.l.read = g.facts
	g.l.readMu.Unlock()
}

// msgFacts is what the gauge reads of one message. The Loop keeps them
// from one run to the next: a caller that runs a conversation one turn at
// a time (replay) would otherwise have every message parsed again each
// turn, a time that grows with the square of the conversation's length.
type msgFacts struct {
	msg       Message
	assistant bool
	calls     []Call // ID and Name only
	results   []ResultContent
}

// read is what message i, m, holds: the last run's reading of it when that
// was of the same message (the same bytes in memory), else a new one.
func (g *gauge) read(i int, m Message) msgFacts {
	if i < len(g.prev) {
		p := g.prev[i]
		if len(p.msg) == len(m) && (len(m) == 0 || &p.msg[0] == &m[0]) {
			g.facts = append(g.facts, p)
			return p
		}
		g.prev = nil // the conversation is another one from here on
	}
	f := msgFacts{msg: m}
	if g.d.Role(m) == "assistant" {
		f.assistant = true
		if t, err := g.d.ParseAssistant(m); err == nil {
			for _, c := range t.Calls {
				f.calls = append(f.calls, Call{ID: c.ID, Name: c.Name})
			}
		}
	} else {
		f.results = g.d.ResultContents(m)
	}
	g.facts = append(g.facts, f)
	return f
}

// restore clears again what an earlier run of the conversation cleared, so
// that a resumed run sends what the recorded one would have; and the
// results of now, which the next request is then the first to carry
// cleared.
func (g *gauge) restore(before, now []transcript.Cleared) error {
	if err := g.clearRecorded(before); err != nil {
		return err
	}
	g.cleared = nil
	return g.clearRecorded(now)
}

func (g *gauge) clearRecorded(cleared []transcript.Cleared) error {
	for _, c := range cleared {
		i := c.Seq - 1
		k := g.ref(i, c.CallID)
		if k < 0 {
			return fmt.Errorf("%w: the result of %s that was cleared is not in message %d", ErrResume, c.CallID, c.Seq)
		}
		if g.refs[k].Cleared {
			continue
		}
		if g.refs[k].Name == "" {
			g.refs[k].Name = c.Name
		}
		if err := g.clear(k, c.Placeholder); err != nil {
			return fmt.Errorf("%w: message %d: %v", ErrResume, c.Seq, err)
		}
	}
	return nil
}

// ref finds the result of call id held by message i.
func (g *gauge) ref(i int, id string) int {
	for k := range g.refs {
		if g.refs[k].Msg == i && g.refs[k].CallID == id {
			return k
		}
	}
	return -1
}

// clear replaces result k's content in what is sent.
func (g *gauge) clear(k int, placeholder string) error {
	r := &g.refs[k]
	m := g.sent[r.Msg]
	var at ResultContent
	found := false
	for _, rc := range g.d.ResultContents(m) {
		if rc.CallID == r.CallID {
			at, found = rc, true
			break
		}
	}
	if !found || at.End <= at.Start {
		return fmt.Errorf("no content to clear for %s", r.CallID)
	}
	nm, err := spliceValues(m, []span{{at.Start, at.End}}, [][]byte{quoteJSON(placeholder)})
	if err != nil {
		return err
	}
	g.bytes += len(nm) - len(m)
	g.sent[r.Msg] = nm
	r.Cleared = true
	g.cleared = append(g.cleared, transcript.Cleared{
		CallID: r.CallID, Name: r.Name, Seq: r.Msg + 1, Bytes: r.Bytes, Placeholder: placeholder,
	})
	return nil
}

// estimate is a request's input tokens from its size in bytes.
func (g *gauge) estimate(bytes int) int64 {
	return int64(math.Ceil(float64(bytes) * g.perByte))
}

// decision is what may be sent next.
type decision struct {
	// stop names the budget that leaves no room for another request;
	// final the one whose last request this is.
	stop, final string
	// why says what was estimated, for the error that ends the run.
	why string
}

// decide clears what the policy says before the next request and says
// whether it may be sent, and whether it is the last one (lastStep: the
// step budget allows no more).
func (g *gauge) decide(lastStep bool) (decision, error) {
	var d decision
	tokens := g.estimate(g.bytes + g.overhead)
	growth := g.estimate(g.added)
	if p := g.l.Context; p.On() {
		plan := p.Plan(g.refs, tokens, g.perByte)
		for _, k := range plan.Clear {
			if err := g.clear(k, Placeholder(g.refs[k].Name, g.refs[k].Bytes)); err != nil {
				return d, err
			}
		}
		tokens = plan.Tokens
		if !plan.Fits {
			d.stop = ExhaustedContext
			d.why = fmt.Sprintf("the next request would carry about %d tokens with every result it may clear cleared", tokens)
			return d, nil
		}
		// The next request, if this one added as much as the last step
		// did, with the results that would then leave the kept ones: by
		// then the model has read those of this one.
		next := make([]ResultRef, 0, len(g.refs)+len(g.addedRefs))
		for _, r := range g.refs {
			r.Unread = false
			next = append(next, r)
		}
		for _, r := range g.addedRefs {
			r.Unread = true
			next = append(next, r)
		}
		if !p.Plan(next, tokens+growth, g.perByte).Fits {
			d.final = ExhaustedContext
		}
	}
	out := g.l.MaxOutputTokens
	if out <= 0 {
		out = g.maxOutput
	}
	if b := g.l.Budget; b != nil && b.MaxTotalTokens > 0 {
		this, next := tokens+out, tokens+growth+out
		switch {
		case g.tokens+this > b.MaxTotalTokens:
			d.stop = ExhaustedTokens
			d.why = fmt.Sprintf("the next request would take about %d tokens more", this)
			return d, nil
		case g.tokens+this+next > b.MaxTotalTokens && d.final == "":
			d.final = ExhaustedTokens
		}
	}
	if b, p := g.l.Budget, g.l.Price; b != nil && b.MaxCost > 0 && p != nil {
		cached := min(g.cached, tokens)
		this := p.Cost(wire.Chat, transcript.Usage{InputTokens: tokens, CacheReadInputTokens: cached, OutputTokens: out})
		next := p.Cost(wire.Chat, transcript.Usage{InputTokens: tokens + growth, CacheReadInputTokens: cached, OutputTokens: out})
		switch {
		case g.cost+this > b.MaxCost:
			d.stop = ExhaustedCost
			d.why = fmt.Sprintf("the next request would cost about $%.4f more", this)
			return d, nil
		case g.cost+this+next > b.MaxCost && d.final == "":
			d.final = ExhaustedCost
		}
	}
	if lastStep && d.final == "" {
		d.final = ExhaustedSteps
	}
	return d, nil
}

// sentRequest notes that the request went out: the clearings it was the
// first to carry are returned, to be recorded with its turn.
func (g *gauge) sentRequest() []transcript.Cleared {
	c := g.cleared
	g.cleared = nil
	g.added, g.addedRefs = 0, nil
	return c
}

// observe learns from a turn what its request cost and carried.
func (g *gauge) observe(t *Turn, step int, final bool, cleared []transcript.Cleared) RequestStats {
	provider := g.l.Provider.Name()
	in, cached := transcript.RequestTokens(provider, t.Usage)
	st := RequestStats{
		Step: step, InputTokens: in, CachedTokens: cached, OutputTokens: t.Usage.OutputTokens,
		Bytes: t.RequestBytes, Cleared: len(cleared), Final: final,
	}
	for _, c := range cleared {
		st.ClearedBytes += c.Bytes
	}
	for _, r := range g.refs {
		if r.Cleared {
			st.Placeholders++
		}
	}
	if size := t.RequestBytes; size > 0 {
		if size >= g.bytes {
			g.overhead = size - g.bytes
		} else {
			// The server holds part of the conversation (Responses with
			// store): the tokens count it all.
			size = g.bytes + g.overhead
		}
		if in > 0 {
			g.perByte = float64(in) / float64(size)
		}
	}
	g.tokens += in + t.Usage.OutputTokens
	g.cached = cached
	g.maxOutput = max(g.maxOutput, t.Usage.OutputTokens)
	if p := g.l.Price; p != nil {
		st.Cost, st.CostKnown = p.Cost(wire.Shape(provider), t.Usage), true
		g.cost += st.Cost
	}
	return st
}
