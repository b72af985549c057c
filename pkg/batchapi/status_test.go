package batchapi_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/batchapi"
)

// leaveInFlight runs items until their first batch is made, and stops:
// OUTDIR's log then holds one batch in flight.
func leaveInFlight(t *testing.T, a api) (fakeServer, *batchapi.Lane, string) {
	t.Helper()
	srv, lane := a.start(t, threeRounds())
	srv.SetBatchPace(fakeapi.BatchPace{Polls: -1})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_ = runBatch(ctx, t, lane, dir, makeItems(2), batchapi.Options{OnProgress: func(p batchapi.Progress) {
		if len(p.Batches) > 0 && p.Batches[0].ID != "" {
			cancel()
		}
	}})
	return srv, lane, dir
}

// Status reads a batch in flight from its provider, making its Batch API
// once; cancel asks the provider to cancel it, after which status shows
// the provider's word for it.
func TestStatusAndCancelOfABatchInFlight(t *testing.T) {
	for _, a := range apis {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			srv, lane, dir := leaveInFlight(t, a)
			bs, err := batchapi.ReadRounds(dir)
			if err != nil || len(bs) != 1 || bs[0].ID == "" || !bs[0].InFlight() {
				t.Fatalf("%+v, %v", bs, err)
			}
			made := 0
			svcs := &batchapi.Services{New: func(provider, model string) (batchapi.Service, error) {
				made++
				if provider != bs[0].Provider || model != bs[0].Model {
					t.Errorf("Batch API of %s %s, want %s %s", provider, model, bs[0].Provider, bs[0].Model)
				}
				return lane.Service, nil
			}}
			noWarn := func(b *batchapi.Batch, err error) { t.Errorf("batch %s: %v", b.ID, err) }
			rows, err := batchapi.Statuses(context.Background(), bs, svcs, noWarn)
			if err != nil || len(rows) != 1 {
				t.Fatalf("%+v, %v", rows, err)
			}
			r := rows[0]
			if r.ID != bs[0].ID || r.Round != 1 || r.Batch != 1 || r.Requests != 2 || r.CreatedAt == nil {
				t.Errorf("row %+v", r)
			}
			if r.Status != "in_progress" && r.Status != "validating" {
				t.Errorf("status %q, want the provider's status of a batch running", r.Status)
			}
			var cancelled []string
			err = batchapi.CancelInFlight(context.Background(), bs, svcs, func(b *batchapi.Batch, st *batchapi.Status, err error) {
				if err != nil {
					t.Errorf("cancel %s: %v", b.ID, err)
					return
				}
				cancelled = append(cancelled, b.ID+" "+st.State)
			})
			if err != nil || len(cancelled) != 1 || !strings.HasPrefix(cancelled[0], bs[0].ID+" cancel") {
				t.Fatalf("cancelled %q, %v", cancelled, err)
			}
			rows, err = batchapi.Statuses(context.Background(), bs, svcs, noWarn)
			if err != nil || !strings.HasPrefix(rows[0].Status, "cancel") {
				t.Fatalf("after cancel: %+v, %v", rows, err)
			}
			if made != 1 {
				t.Errorf("Batch API made %d times, want once", made)
			}
			checkClean(t, srv)
		})
	}
}

// failing is a Batch API whose every request fails.
type failing struct{ batchapi.Service }

func (failing) Get(context.Context, string) (*batchapi.Status, error) {
	return nil, errors.New("connection refused")
}

func (failing) Cancel(context.Context, string) (*batchapi.Status, error) {
	return nil, errors.New("connection refused")
}

// A batch whose provider cannot be read keeps the status last recorded,
// with a warning; one that never got an id is "not made", and ended ones
// are not asked about; an error making the Batch API stops both.
func TestStatusOffline(t *testing.T) {
	bs := []*batchapi.Batch{
		{Number: 1, Round: 1, ID: "b1", Status: "in_progress", Counts: map[string]int64{"total": 2}},
		{Number: 2, Round: 1, ID: "b2", Status: "completed", Results: "batches/2.jsonl"},
		{Number: 3, Round: 2},
	}
	svcs := &batchapi.Services{New: func(string, string) (batchapi.Service, error) { return failing{}, nil }}
	var warned []string
	rows, err := batchapi.Statuses(context.Background(), bs, svcs, func(b *batchapi.Batch, err error) { warned = append(warned, b.ID) })
	if err != nil || len(rows) != 3 {
		t.Fatalf("%+v, %v", rows, err)
	}
	if len(warned) != 1 || warned[0] != "b1" || rows[0].Status != "in_progress" || rows[0].Counts["total"] != 2 {
		t.Errorf("warned %q, row %+v", warned, rows[0])
	}
	if rows[1].Status != "completed" || rows[2].Status != batchapi.StatusNotMade {
		t.Errorf("rows %+v", rows[1:])
	}
	var failed []string
	err = batchapi.CancelInFlight(context.Background(), bs, svcs, func(b *batchapi.Batch, _ *batchapi.Status, err error) {
		if err != nil {
			failed = append(failed, b.ID)
		}
	})
	if err != nil || len(failed) != 1 || failed[0] != "b1" {
		t.Errorf("failed %q, %v", failed, err)
	}
	noKey := &batchapi.Services{New: func(string, string) (batchapi.Service, error) { return nil, errors.New("no API key") }}
	if _, err := batchapi.Statuses(context.Background(), bs, noKey, nil); err == nil {
		t.Error("status without a Batch API: no error")
	}
	if err := batchapi.CancelInFlight(context.Background(), bs, noKey, nil); err == nil {
		t.Error("cancel without a Batch API: no error")
	}
}

func TestReadRoundsWithoutLog(t *testing.T) {
	dir := t.TempDir()
	if _, err := batchapi.ReadRounds(dir); err == nil || !strings.Contains(err.Error(), batchapi.LogName) {
		t.Errorf("%v, want an error naming %s", err, batchapi.LogName)
	}
}

func TestCountsText(t *testing.T) {
	if got := batchapi.CountsText(nil); got != "-" {
		t.Errorf("%q", got)
	}
	if got := batchapi.CountsText(map[string]int64{"total": 3, "completed": 1, "failed": 0}); got != "completed 1, failed 0, total 3" {
		t.Errorf("%q", got)
	}
}
