package batchapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/pkg/agent"
)

// Defaults of the polling.
const (
	DefaultPoll = 30 * time.Second
	// maxPollFactor is how far the interval between two reads of a batch
	// grows: a batch that has run for an hour is not read every 30s.
	maxPollFactor = 10
	// pollFailures is how many reads of a batch in a row may fail before
	// the run stops (it goes on from the batch when run again).
	pollFailures = 5
)

// ErrMaxRounds stops a run that would submit more rounds than it may.
var ErrMaxRounds = errors.New("the most rounds a run may submit (--max-rounds) were submitted")

// ErrCancelled stops a run whose batch was cancelled while it waited on it
// (agentloop batch cancel, or the provider's console).
var ErrCancelled = errors.New("a batch of the run was cancelled")

// Options configure an Engine.
type Options struct {
	// Dir is OUTDIR: the log and the batches' results go there.
	Dir string
	// Run names the run in the batches' metadata (OpenAI).
	Run string
	// Poll is the first interval between two reads of a batch; it grows
	// by half at each read, to ten times itself. DefaultPoll when 0.
	Poll time.Duration
	// MaxRounds caps the rounds this run submits; 0 is no cap. Reaching
	// it stops the run (Interrupt), which a rerun goes on from.
	MaxRounds int
	// Interrupt stops every item of the run with a cause: a batch was
	// cancelled, MaxRounds was reached, a batch could not be read.
	Interrupt func(error)
	// OnProgress, when set, is told where the run stands after each
	// round and each read of a batch; it is called one at a time.
	OnProgress func(Progress)
}

// Progress is where a run stands.
type Progress struct {
	// Round is the latest round submitted (or taken up again).
	Round int
	// Waiting is how many items wait on a batch's answer.
	Waiting int
	// Batches are those in flight, oldest first.
	Batches []Flight
}

// Flight is a batch being waited on.
type Flight struct {
	ID    string
	State string
	// Queued is how long it has been with the provider.
	Queued time.Duration
	Counts map[string]int64
}

// Lane is the provider an item's requests go to: its body building and
// answer reading, the batch endpoints at its address, and its retries.
type Lane struct {
	Codec   Codec
	Service Service
	// Endpoint is the path the requests stand for (/v1/chat/completions,
	// /v1/responses, /v1/messages).
	Endpoint string
	// Key groups requests into one batch: the same provider, address
	// and model.
	Key string
	// MaxRetries is how many times a request the provider refused with a
	// status a live call retries (408, 409, 429, 5xx), or did not run
	// (the batch expired), is submitted again in a later round.
	MaxRetries int
}

// call is one request of an item, waiting for its answer.
type call struct {
	lane     *Lane
	item     string
	customID string
	body     []byte
	hash     string
	attempts int
	// looked is set once the log's batches were searched for it.
	looked bool
	// answered is set once it has its answer, or its item stopped
	// waiting (guarded by the engine's mu).
	answered bool
	done     chan answer
}

type answer struct {
	turn *agent.Turn
	err  error
}

// Engine gathers the requests of a run's items into rounds of batches.
type Engine struct {
	opts Options
	log  *Log
	past []*Batch

	mu sync.Mutex
	// items counts the items not yet done; running those not waiting on
	// an answer.
	items, running int
	// holding counts the batches whose answers are being handed out: no
	// round is submitted until every item they answer runs again.
	holding     int
	waiting     []*call
	flights     map[string]*flight
	round, next int
	submitted   int
	// results of past batches read back, by number.
	pastResults map[int]map[string]Result
	kick        chan struct{}
	progressMu  sync.Mutex
	wg          sync.WaitGroup
}

// New opens the engine of the folder opts.Dir: its log, and the batches an
// earlier run left there.
func New(opts Options) (*Engine, error) {
	if opts.Poll <= 0 {
		opts.Poll = DefaultPoll
	}
	past, err := ReadLog(opts.Dir)
	if err != nil {
		return nil, err
	}
	log, err := OpenLog(opts.Dir)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, log: log, past: past, flights: map[string]*flight{}, pastResults: map[int]map[string]Result{}, kick: make(chan struct{}, 1)}
	for _, b := range past {
		e.round = max(e.round, b.Round)
		e.next = max(e.next, b.Number)
	}
	return e, nil
}

// Close closes the log.
func (e *Engine) Close() error { return e.log.Close() }

// Add counts n more items: a round is submitted only once every item
// counted waits on a request or is done.
func (e *Engine) Add(n int) {
	e.mu.Lock()
	e.items += n
	e.running += n
	e.mu.Unlock()
	e.signal()
}

// Done says an item counted by Add has ended.
func (e *Engine) Done() {
	e.mu.Lock()
	e.items--
	e.running--
	e.mu.Unlock()
	e.signal()
}

func (e *Engine) signal() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// Provider is the provider of an item's loop: its requests go into the
// engine's rounds. name is the item's name in OUTDIR (its custom_ids are
// made of it).
func (e *Engine) Provider(lane *Lane, name string) agent.Provider {
	return &itemProvider{Codec: lane.Codec, e: e, lane: lane, name: name}
}

type itemProvider struct {
	Codec
	e    *Engine
	lane *Lane
	name string
}

// Complete hands the request to the engine and waits for its answer.
func (p *itemProvider) Complete(ctx context.Context, req *agent.Request) (*agent.Turn, error) {
	body, err := p.Codec.BatchBody(req)
	if err != nil {
		return nil, err
	}
	step := len(agent.Turns(p.Codec, req.Messages)) + 1
	sum := sha256.Sum256(body)
	c := &call{lane: p.lane, item: p.name, customID: CustomID(p.name, step), body: body,
		hash: hex.EncodeToString(sum[:]), done: make(chan answer, 1)}
	// A batch's answer comes whole: its text is given at once.
	return p.e.do(ctx, c, req.OnText)
}

// customIDPattern is what both APIs take as a custom_id (Anthropic's rule,
// the stricter).
var customIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// CustomID is the custom_id of an item's request at a step: the item's
// name and the step when the name is one the APIs take, else a hash of
// the name; the same for the same item and step in every run.
func CustomID(name string, step int) string {
	suffix := "-s" + strconv.Itoa(step)
	if !customIDPattern.MatchString(name+suffix) || len(name) > 48 {
		sum := sha256.Sum256([]byte(name))
		name = "i" + hex.EncodeToString(sum[:10])
	}
	return name + suffix
}

// do waits for a call's answer.
func (e *Engine) do(ctx context.Context, c *call, onText func(string)) (*agent.Turn, error) {
	e.mu.Lock()
	e.running--
	e.waiting = append(e.waiting, c)
	e.mu.Unlock()
	e.signal()
	select {
	case a := <-c.done:
		if a.turn != nil && onText != nil && a.turn.Text != "" {
			onText(a.turn.Text)
		}
		return a.turn, a.err
	case <-ctx.Done():
		e.mu.Lock()
		for i, w := range e.waiting {
			if w == c {
				e.waiting = append(e.waiting[:i], e.waiting[i+1:]...)
				break
			}
		}
		if !c.answered {
			c.answered = true
			e.running++
		}
		e.mu.Unlock()
		return nil, context.Cause(ctx)
	}
}

// Run submits the rounds until every item counted is done or ctx ends,
// and returns once its reads of batches have stopped.
func (e *Engine) Run(ctx context.Context) {
	defer e.wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-e.kick:
		}
		e.mu.Lock()
		if e.items <= 0 {
			e.mu.Unlock()
			return
		}
		var calls []*call
		if e.running <= 0 && e.holding == 0 && len(e.waiting) > 0 {
			for _, c := range e.waiting {
				if !c.answered {
					calls = append(calls, c)
				}
			}
			e.waiting = nil
		}
		e.mu.Unlock()
		if len(calls) > 0 {
			e.submit(ctx, calls)
		}
	}
}

// deliver gives a call its answer: its item runs again.
func (e *Engine) deliver(c *call, t *agent.Turn, err error) {
	e.mu.Lock()
	if c.answered {
		e.mu.Unlock()
		return
	}
	c.answered = true
	e.running++
	e.mu.Unlock()
	c.done <- answer{turn: t, err: err}
}

// hold keeps rounds from being submitted while a batch's answers are
// handed out; release lets them be again.
func (e *Engine) hold() {
	e.mu.Lock()
	e.holding++
	e.mu.Unlock()
}

func (e *Engine) release() {
	e.mu.Lock()
	e.holding--
	e.mu.Unlock()
	e.signal()
}

// requeue puts a call back for the next round, unless its item has
// stopped waiting for it (its time limit, an interrupt): a request no one
// waits for is not paid for again.
func (e *Engine) requeue(c *call) {
	c.attempts++
	e.mu.Lock()
	if !c.answered {
		e.waiting = append(e.waiting, c)
	}
	e.mu.Unlock()
	e.signal()
}

// submit takes up what the log's batches hold of calls, and sends the
// rest as a new round: one batch for each lane.
func (e *Engine) submit(ctx context.Context, calls []*call) {
	var fresh []*call
	for _, c := range calls {
		if !c.looked {
			c.looked = true
			if e.takeUp(ctx, c) {
				continue
			}
		}
		fresh = append(fresh, c)
	}
	if len(fresh) == 0 {
		e.report()
		return
	}
	if e.opts.MaxRounds > 0 && e.submitted >= e.opts.MaxRounds {
		e.interrupt(ErrMaxRounds)
		return
	}
	e.submitted++
	e.round++
	lanes := map[string][]*call{}
	var keys []string
	for _, c := range fresh {
		if lanes[c.lane.Key] == nil {
			keys = append(keys, c.lane.Key)
		}
		lanes[c.lane.Key] = append(lanes[c.lane.Key], c)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e.create(ctx, lanes[k])
	}
	e.report()
}

// takeUp finds the latest batch of the log that holds c's request (the
// same custom_id and body) and reports whether it answers it: with the
// answer it gave, or by waiting on it while it runs. A request the batch
// did not answer with 200 is submitted again.
func (e *Engine) takeUp(ctx context.Context, c *call) bool {
	var b *Batch
	for i := len(e.past) - 1; i >= 0 && b == nil; i-- {
		for _, r := range e.past[i].Requests {
			if r.CustomID == c.customID && r.SHA256 == c.hash {
				b = e.past[i]
				break
			}
		}
	}
	if b == nil || b.Error != "" {
		return false
	}
	if b.Results != "" {
		rs, ok := e.pastResults[b.Number]
		if !ok {
			list, err := LoadResults(e.opts.Dir, b.Results)
			if err != nil {
				return false
			}
			rs = map[string]Result{}
			for _, r := range list {
				rs[r.CustomID] = r
			}
			e.pastResults[b.Number] = rs
		}
		r, ok := rs[c.customID]
		if !ok || r.Status != http.StatusOK {
			return false
		}
		e.apply(c, r, b.ID)
		return true
	}
	if b.ID == "" {
		// Killed after the submit record, before the batch's id was: it
		// may have been made all the same.
		// OpenAI's batch is made of its file: without the file's id on
		// record, none was made of it.
		if b.FileID == "" && c.lane.Endpoint != "/v1/messages" {
			b.Error = "not made"
			return false
		}
		st, err := c.lane.Service.Find(ctx, b.Started, b.FileID, len(b.Requests))
		if err != nil {
			// Not knowing is no reason to pay twice: the run stops,
			// and looks again when run again.
			e.interrupt(fmt.Errorf("look for batch %d of round %d, which may have been made: %w", b.Number, b.Round, err))
			return true
		}
		if st == nil {
			b.Error = "not made"
			return false
		}
		b.ID = st.ID
		created := st.CreatedAt
		_ = e.log.Write(Record{Event: EventBatch, Batch: b.Number, BatchID: st.ID, Status: st.State, Counts: st.Counts, CreatedAt: &created})
	}
	e.mu.Lock()
	f := e.flights[b.ID]
	if f == nil {
		f = &flight{number: b.Number, round: b.Round, id: b.ID, lane: c.lane, calls: map[string]*call{}, entries: b.Requests, created: b.CreatedAt, takenUp: true}
		e.flights[b.ID] = f
		e.round = max(e.round, b.Round)
		f.calls[c.customID] = c
		e.mu.Unlock()
		e.wg.Add(1)
		go e.poll(ctx, f)
		return true
	}
	f.calls[c.customID] = c
	e.mu.Unlock()
	return true
}

// create makes one batch of calls of a lane: its record first, then the
// batch, then its id.
func (e *Engine) create(ctx context.Context, calls []*call) {
	lane := calls[0].lane
	e.next++
	num := e.next
	entries := make([]Entry, len(calls))
	lines := make([]Line, len(calls))
	for i, c := range calls {
		entries[i] = Entry{Item: c.item, CustomID: c.customID, SHA256: c.hash}
		lines[i] = Line{CustomID: c.customID, Body: c.body}
	}
	fail := func(err error) {
		_ = e.log.Write(Record{Event: EventError, Batch: num, Error: err.Error()})
		for _, c := range calls {
			e.deliver(c, nil, err)
		}
	}
	if err := e.log.Write(Record{Event: EventSubmit, Batch: num, Round: e.round, Provider: lane.Codec.Name(), Endpoint: lane.Endpoint, Model: lane.Codec.Model(), Requests: entries}); err != nil {
		// Nothing was sent: not on record, it must not be.
		for _, c := range calls {
			e.deliver(c, nil, err)
		}
		return
	}
	sub := Submission{Name: fmt.Sprintf("round-%d-batch-%d", e.round, num), Lines: lines,
		Metadata: map[string]string{"agentloop_run": e.opts.Run, "round": strconv.Itoa(e.round), "batch": strconv.Itoa(num)}}
	st, err := lane.Service.Create(ctx, sub, func(fileID string) error {
		return e.log.Write(Record{Event: EventFile, Batch: num, FileID: fileID})
	})
	if err != nil {
		if ctx.Err() != nil {
			// Stopped: a rerun looks for the batch, which may exist.
			return
		}
		fail(err)
		return
	}
	created, expires := st.CreatedAt, st.ExpiresAt
	if err := e.log.Write(Record{Event: EventBatch, Batch: num, BatchID: st.ID, Status: st.State, Counts: st.Counts, CreatedAt: &created, ExpiresAt: &expires}); err != nil {
		e.interrupt(err)
		return
	}
	f := &flight{number: num, round: e.round, id: st.ID, lane: lane, calls: map[string]*call{}, entries: entries, created: st.CreatedAt, state: st.State}
	for _, c := range calls {
		f.calls[c.customID] = c
	}
	e.mu.Lock()
	e.flights[st.ID] = f
	e.mu.Unlock()
	e.wg.Add(1)
	go e.poll(ctx, f)
}

// flight is a batch being waited on.
type flight struct {
	number, round int
	id            string
	lane          *Lane
	calls         map[string]*call
	entries       []Entry
	created       time.Time
	state         string
	counts        map[string]int64
	// takenUp: a batch an earlier run submitted.
	takenUp bool
	reads   int
}

// poll reads a batch until it ends, then hands its calls their answers.
func (e *Engine) poll(ctx context.Context, f *flight) {
	defer e.wg.Done()
	interval, failures := e.opts.Poll, 0
	var st *Status
	wasCancelled := false
	for {
		var err error
		st, err = f.lane.Service.Get(ctx, f.id)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if failures++; failures >= pollFailures {
				e.interrupt(fmt.Errorf("read batch %s: %w", f.id, err))
				return
			}
		} else {
			failures = 0
			if f.reads == 0 {
				// A batch an earlier run left, cancelled since: its
				// requests go out again. One this run made, or took up
				// running, and cancelled now stops the run.
				wasCancelled = f.takenUp && st.Cancelled
			}
			f.reads++
			e.mu.Lock()
			changed := st.State != f.state
			f.state, f.counts = st.State, st.Counts
			if !st.CreatedAt.IsZero() {
				f.created = st.CreatedAt
			}
			e.mu.Unlock()
			if changed {
				_ = e.log.Write(Record{Event: EventStatus, Batch: f.number, BatchID: f.id, Status: st.State, Counts: st.Counts})
			}
			e.report()
			if st.Ended {
				break
			}
		}
		if httpretry.Sleep(ctx, interval) != nil {
			return
		}
		interval = min(interval*3/2, e.opts.Poll*maxPollFactor)
	}
	e.finish(ctx, f, st, wasCancelled)
}

// finish hands the calls of an ended batch their answers.
func (e *Engine) finish(ctx context.Context, f *flight, st *Status, wasCancelled bool) {
	e.mu.Lock()
	delete(e.flights, f.id)
	calls := f.calls
	e.mu.Unlock()
	defer e.report()
	e.hold()
	defer e.release()
	if len(st.Failed) > 0 && st.State == "failed" {
		_ = e.log.Write(Record{Event: EventError, Batch: f.number, BatchID: f.id, Error: "the batch failed validation"})
		whole := ""
		byLine := map[string]string{}
		for _, le := range st.Failed {
			if le.Line >= 1 && le.Line <= len(f.entries) {
				byLine[f.entries[le.Line-1].CustomID] = le.Message
			} else {
				whole = le.Message
			}
		}
		for id, c := range calls {
			msg := byLine[id]
			if msg == "" {
				msg = whole
			}
			if msg == "" {
				msg = "another request of the batch was refused"
			}
			e.deliver(c, nil, &agent.ProviderError{Provider: c.lane.Codec.Name(), Status: http.StatusBadRequest,
				Message: fmt.Sprintf("batch %s failed validation: %s", f.id, msg)})
		}
		return
	}
	var rs []Result
	var err error
	for try := 0; try < pollFailures; try++ {
		if rs, err = f.lane.Service.Results(ctx, st); err == nil || ctx.Err() != nil {
			break
		}
		if httpretry.Sleep(ctx, e.opts.Poll) != nil {
			return
		}
	}
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		e.interrupt(fmt.Errorf("read the results of batch %s: %w", f.id, err))
		return
	}
	// Saved before they are applied: a run killed while it applies them
	// reads them back, and the provider is not asked again.
	rel, err := e.log.SaveResults(f.number, f.id, rs)
	if err == nil {
		err = e.log.Write(Record{Event: EventResults, Batch: f.number, BatchID: f.id, Status: st.State, Counts: st.Counts, Results: rel})
	}
	if err != nil {
		e.interrupt(err)
		return
	}
	cancelledHere := st.Cancelled && !wasCancelled
	byID := make(map[string]Result, len(rs))
	for _, r := range rs {
		byID[r.CustomID] = r
	}
	for id, c := range calls {
		r, ok := byID[id]
		if !ok && st.Cancelled {
			// Cancelled before it was validated: no line at all.
			r, ok = Result{CustomID: id, NotRun: NotRunCancelled}, true
		}
		switch {
		case !ok:
			e.deliver(c, nil, &agent.ProviderError{Provider: c.lane.Codec.Name(), Message: fmt.Sprintf("the results of batch %s hold no answer to request %s", f.id, id)})
		case r.NotRun == NotRunCancelled && cancelledHere:
			// Cancelled while this run waited on it: the run stops,
			// and goes on when run again.
			e.interrupt(fmt.Errorf("%w: %s", ErrCancelled, f.id))
		default:
			e.apply(c, r, f.id)
		}
	}
}

// apply hands a call the answer a batch gave it, or puts it back for the
// next round when a live call would be retried.
func (e *Engine) apply(c *call, r Result, batchID string) {
	name := c.lane.Codec.Name()
	switch {
	case r.Status == http.StatusOK:
		turn, err := c.lane.Codec.BatchTurn(r.Body)
		if turn != nil {
			turn.RequestBytes, turn.BatchID, turn.CustomID = len(c.body), batchID, c.customID
		}
		e.deliver(c, turn, err)
	case r.Status != 0:
		pe := c.lane.Codec.BatchError(r.Status, r.Body)
		if retryable(r.Status) && c.attempts < c.lane.MaxRetries {
			e.requeue(c)
			return
		}
		pe.Message = fmt.Sprintf("%s (request %s of batch %s)", pe.Message, c.customID, batchID)
		e.deliver(c, nil, pe)
	case r.NotRun == NotRunCancelled:
		// Cancelled before this run took the batch up: sent again.
		e.requeue(c)
	default:
		if c.attempts < c.lane.MaxRetries {
			e.requeue(c)
			return
		}
		msg := r.Message
		if msg == "" {
			msg = "the request was not run"
		}
		times := "once"
		if n := c.attempts + 1; n > 1 {
			times = strconv.Itoa(n) + " times"
		}
		e.deliver(c, nil, &agent.ProviderError{Provider: name, Message: fmt.Sprintf("%s (request %s of batch %s, submitted %s)", msg, c.customID, batchID, times),
			Hint: "raise --max-retries to submit it more times"})
	}
}

// retryable reports whether a live call is retried after this status.
func retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict || status == http.StatusTooManyRequests || status >= 500
}

func (e *Engine) interrupt(err error) {
	if e.opts.Interrupt != nil {
		e.opts.Interrupt(err)
	}
}

// report tells OnProgress where the run stands.
func (e *Engine) report() {
	if e.opts.OnProgress == nil {
		return
	}
	e.mu.Lock()
	p := Progress{Round: e.round, Waiting: len(e.waiting)}
	now := time.Now()
	for _, f := range e.flights {
		p.Waiting += len(f.calls)
		fl := Flight{ID: f.id, State: f.state, Counts: f.counts}
		if !f.created.IsZero() {
			fl.Queued = now.Sub(f.created)
		}
		p.Batches = append(p.Batches, fl)
	}
	e.mu.Unlock()
	sort.Slice(p.Batches, func(i, j int) bool { return p.Batches[i].Queued > p.Batches[j].Queued })
	e.progressMu.Lock()
	defer e.progressMu.Unlock()
	e.opts.OnProgress(p)
}
