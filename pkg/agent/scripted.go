package agent

import (
	"context"
	"fmt"
	"sync"
)

// Scripted is a Provider that hands out recorded turns in order instead of
// asking a model: replay drives the loop with it, and tests use it.
type Scripted struct {
	Dialect
	model string

	mu    sync.Mutex
	turns []*Turn
	next  int
}

var _ Provider = (*Scripted)(nil)

// NewScripted plays turns in the grammar of d.
func NewScripted(d Dialect, model string, turns []*Turn) *Scripted {
	return &Scripted{Dialect: d, model: model, turns: turns}
}

// Model is the recorded model's name.
func (s *Scripted) Model() string { return s.model }

// Complete returns the next recorded turn.
func (s *Scripted) Complete(ctx context.Context, req *Request) (*Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.turns) {
		return nil, &ProviderError{Provider: "replay", Message: fmt.Sprintf("the recording has no assistant turn %d", s.next+1)}
	}
	t := *s.turns[s.next]
	s.next++
	return &t, nil
}

// Played is the number of turns handed out.
func (s *Scripted) Played() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}
