package batchapi

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// ReadRounds reads the log of OUTDIR dir for batch status and batch
// cancel: a folder without one is an error that says it is not the
// OUTDIR of a run with the Batch API.
func ReadRounds(dir string) ([]*Batch, error) {
	if _, err := os.Stat(filepath.Join(dir, LogName)); errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s has no %s: it is not the OUTDIR of a batch run with --batch-api", dir, LogName)
	}
	return ReadLog(dir)
}

// Services gives the Batch API of each provider and model a log names,
// made once each by New.
type Services struct {
	New func(provider, model string) (Service, error)
	by  map[string]Service
}

// Of is the Batch API of b's provider and model.
func (s *Services) Of(b *Batch) (Service, error) {
	key := b.Provider + " " + b.Model
	if svc, ok := s.by[key]; ok {
		return svc, nil
	}
	svc, err := s.New(b.Provider, b.Model)
	if err != nil {
		return nil, err
	}
	if s.by == nil {
		s.by = map[string]Service{}
	}
	s.by[key] = svc
	return svc, nil
}

// Row is a batch as batch status shows it.
type Row struct {
	Round     int              `json:"round"`
	Batch     int              `json:"batch"`
	ID        string           `json:"id"`
	Provider  string           `json:"provider"`
	Model     string           `json:"model"`
	Requests  int              `json:"requests"`
	Status    string           `json:"status"`
	Counts    map[string]int64 `json:"counts"`
	CreatedAt *time.Time       `json:"created_at,omitempty"`
	Results   string           `json:"results,omitempty"`
	Error     string           `json:"error,omitempty"`
}

// StatusNotMade is the status of a batch the log has no id of and no
// error for: it was about to be made when the run stopped.
const StatusNotMade = "not made"

// Statuses are the rows of the log's batches. A batch in flight is read
// from its provider, so its status is the provider's now; when that read
// fails, warn is told and the row keeps the status last recorded. An
// error is one of making a provider's Batch API.
func Statuses(ctx context.Context, bs []*Batch, svcs *Services, warn func(b *Batch, err error)) ([]Row, error) {
	rows := make([]Row, 0, len(bs))
	for _, b := range bs {
		r := Row{Round: b.Round, Batch: b.Number, ID: b.ID, Provider: b.Provider, Model: b.Model, Requests: len(b.Requests),
			Status: b.Status, Counts: b.Counts, Results: b.Results, Error: b.Error}
		if !b.CreatedAt.IsZero() {
			t := b.CreatedAt
			r.CreatedAt = &t
		}
		if b.ID != "" && b.InFlight() {
			svc, err := svcs.Of(b)
			if err != nil {
				return nil, err
			}
			st, err := svc.Get(ctx, b.ID)
			if err != nil {
				warn(b, err)
			} else {
				r.Status, r.Counts = st.State, st.Counts
			}
		}
		if b.ID == "" && r.Error == "" {
			r.Status = StatusNotMade
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// CountsText writes a batch's counts as the provider names them, sorted;
// "-" when there are none.
func CountsText(c map[string]int64) string {
	if len(c) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}

// CancelInFlight asks the provider to cancel each batch of the log in
// flight, in order, and tells each what the provider said: its status,
// or the error of the request. An error returned is one of making a
// provider's Batch API, which stops it.
func CancelInFlight(ctx context.Context, bs []*Batch, svcs *Services, each func(b *Batch, st *Status, err error)) error {
	for _, b := range bs {
		if b.ID == "" || !b.InFlight() {
			continue
		}
		svc, err := svcs.Of(b)
		if err != nil {
			return err
		}
		st, err := svc.Cancel(ctx, b.ID)
		each(b, st, err)
	}
	return nil
}
