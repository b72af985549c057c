package approval

import (
	"context"
	"sync"

	"github.com/agentloop/agentloop/pkg/agent"
)

// Order keeps the questions about the calls of one turn in the order
// the model made the calls, while the calls themselves run concurrently:
// a call may ask only once every call before it has asked, or been found
// to need no question. It learns each call's place from the loop's
// EventCallStart, which comes before the call reaches the approver.
type Order struct {
	mu      sync.Mutex
	step    int
	place   map[string]int // call id → its position in the turn
	passed  map[int]bool   // positions past their question
	next    int            // the first position not past it
	changed chan struct{}  // closed when next moves
}

// NewOrder returns the order of a run whose turns have not begun.
func NewOrder() *Order {
	return &Order{place: map[string]int{}, passed: map[int]bool{}, changed: make(chan struct{})}
}

// Event is to be called with each of the loop's events. A call answered
// from its record (it finished before the run stopped) is not run, and
// asks nothing: it is past its question at once.
func (o *Order) Event(e agent.Event) {
	recorded := e.Kind == agent.EventCallDone && e.Recorded
	if e.Kind != agent.EventCallStart && !recorded {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if e.Step != o.step || o.passed[e.Index] {
		// The calls of another turn.
		o.step, o.place, o.passed, o.next = e.Step, map[string]int{}, map[int]bool{}, 0
	}
	o.place[e.Call.ID] = e.Index
	if recorded {
		o.passLocked(e.Call.ID)
	}
}

// wait returns when every call before callID is past its question, or
// the context ends (false). A call of unknown place waits for nothing.
func (o *Order) wait(ctx context.Context, callID string) bool {
	o.mu.Lock()
	for {
		i, known := o.place[callID]
		if !known || o.next >= i {
			o.mu.Unlock()
			return true
		}
		ch := o.changed
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
		o.mu.Lock()
	}
}

// pass marks callID past its question: asked, or needing none.
func (o *Order) pass(callID string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.passLocked(callID)
}

func (o *Order) passLocked(callID string) {
	i, known := o.place[callID]
	if !known {
		return
	}
	o.passed[i] = true
	moved := false
	for o.passed[o.next] {
		o.next++
		moved = true
	}
	if moved {
		close(o.changed)
		o.changed = make(chan struct{})
	}
}

// Observe passes the loop's events to next (if not nil), learning from
// them the order of each turn's calls.
func (o *Order) Observe(next func(agent.Event)) func(agent.Event) {
	return func(e agent.Event) {
		o.Event(e)
		if next != nil {
			next(e)
		}
	}
}
