package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// What the Batch APIs of both providers share in the fakes: the store of
// files and batches, how a batch moves through its statuses, the counters
// a test reads, and running a batch's requests through the live handler,
// so that each request inside a batch meets the same checks and the same
// script as a live call. BATCH.md has the rules and their sources.

// batchWindow is the completion window both APIs give a batch: 24h.
const batchWindow = 24 * time.Hour

// BatchPace is how a fake's batches move through their statuses. The zero
// value moves a batch one status on at every read of it.
type BatchPace struct {
	// Polls is how many reads of a batch it takes to move it one status
	// on: 0 or 1 moves it at every read; a negative number never by reads.
	Polls int `json:"polls,omitempty"`
	// Every moves a batch one status on each time this much of the clock
	// has passed since it last moved, seen at its next read.
	Every Duration `json:"every,omitempty"`
	// MaxRequests is the most requests a batch takes: 0 is the API's own
	// limit (OpenAI 50,000 a file, Anthropic 100,000 a batch).
	MaxRequests int `json:"max_requests,omitempty"`
	// Now is the clock of created_at, expires_at and the other times, of
	// Every, and of expiry: a batch not done 24h after it was created
	// expires at its next read. Nil is time.Now.
	Now func() time.Time `json:"-"`
}

// BatchCounts is what a fake's batch endpoints did.
type BatchCounts struct {
	// Files is the number of files uploaded (output and error files the
	// fake writes are not counted).
	Files int
	// Batches is the number of batches created.
	Batches int
	// Requests is the number of requests batches ran, whatever their
	// answer; each runs once per batch that holds it.
	Requests int
	// Billed is the number of those answered by the model (200,
	// succeeded): what the provider charges for.
	Billed int
}

// batchStore is a server's files and batches.
type batchStore struct {
	mu     sync.Mutex
	pace   BatchPace
	counts BatchCounts

	files     map[string]*oaiFile
	fileOrder []string
	oai       map[string]*oaiBatch
	oaiOrder  []string
	ant       map[string]*antBatch
	antOrder  []string
}

// batchState is the server's store, made at first use with the pace of a
// Conversations script's batch key.
func (s *server) batchState() *batchStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.batches == nil {
		s.batches = &batchStore{files: map[string]*oaiFile{}, oai: map[string]*oaiBatch{}, ant: map[string]*antBatch{}}
		if s.batch != nil && s.batch.Batch != nil {
			s.batches.pace = *s.batch.Batch
		}
	}
	return s.batches
}

// SetBatchPace sets how the server's batches move on.
func (s *server) SetBatchPace(p BatchPace) {
	b := s.batchState()
	b.mu.Lock()
	b.pace = p
	b.mu.Unlock()
}

// BatchCounts returns what the server's batch endpoints did so far.
func (s *server) BatchCounts() BatchCounts {
	b := s.batchState()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}

func (b *batchStore) now() time.Time {
	if b.pace.Now != nil {
		return b.pace.Now()
	}
	return time.Now()
}

// progress is where a batch stands on its way to the next status.
type progress struct {
	reads int
	moved time.Time
}

// moves is how many statuses a batch moves on at this read.
func (b *batchStore) moves(p *progress, now time.Time) int {
	n := 0
	polls := b.pace.Polls
	if polls == 0 {
		polls = 1
	}
	if polls > 0 {
		p.reads++
		if p.reads >= polls {
			n, p.reads = 1, 0
		}
	}
	if every := time.Duration(b.pace.Every); every > 0 {
		k := int(now.Sub(p.moved) / every)
		n += k
		p.moved = p.moved.Add(time.Duration(k) * every)
	}
	return n
}

// maxRequests is the most requests a batch takes, the pace's or the API's.
func (b *batchStore) maxRequests(api int) int {
	if b.pace.MaxRequests > 0 {
		return b.pace.MaxRequests
	}
	return api
}

var batchSeq atomic.Uint64

// newBatchID makes an id of n hex digits after prefix, unique in the
// process (a client that resumes against a new server must not meet an
// id of an earlier one).
func newBatchID(prefix string, n int) string {
	s := fmt.Sprintf("%016x%016x", uint64(time.Now().UnixNano()), batchSeq.Add(1)*0x9e3779b97f4a7c15)
	return prefix + s[len(s)-n:]
}

// batchCallKey marks the context of a request a batch runs.
type batchCallKey struct{}

// batchCall is what became of one request a batch ran.
type batchCall struct {
	// expired: the step it met never answers (batch_expired, hang, cut,
	// stall), so the request is left unrun when the window closes.
	expired bool
	// played: the step's answer is being written (see playInBatch).
	played bool
}

// playInBatch plays the parts of a step that mean something else inside
// a batch, and reports whether the request has been dealt with and, if
// so, answered. The provider's fleet runs a batch's requests on its own
// time, so a step's delay does not hold it back, and a step that never
// answers leaves its request unrun. A live request that meets a step
// written for a batch gets a 500 saying so.
func playInBatch(w http.ResponseWriter, r *http.Request, st *Step) (done, answered bool) {
	call, inBatch := r.Context().Value(batchCallKey{}).(*batchCall)
	if !inBatch {
		if st.BatchExpired {
			http.Error(w, "fake API script: a batch_expired step met a live request, not one inside a batch", http.StatusInternalServerError)
			return true, false
		}
		return false, false
	}
	if call.played {
		return false, false
	}
	if st.BatchExpired || st.Hang || st.Cut || st.Stall {
		call.expired = true
		return true, false
	}
	call.played = true
	now := *st
	now.Delay = 0
	return true, play(w, r, &now)
}

// batchReply is what the live handler answered a request of a batch.
type batchReply struct {
	status  int
	body    []byte
	expired bool
}

// runInBatch sends one request of a batch through the live handler, as
// the request that created the batch would have sent it (its headers:
// the key, the API version, the betas), and returns the answer. A
// violation it causes is labelled with where the request was.
func (s *server) runInBatch(live func(http.ResponseWriter, *http.Request, []byte), path string, header http.Header, body []byte, where string) batchReply {
	call := &batchCall{}
	ctx := context.WithValue(context.Background(), batchCallKey{}, call)
	r := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
	r.Header = header.Clone()
	r.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()

	s.mu.Lock()
	before := len(s.violations)
	s.mu.Unlock()
	live(rec, r, body)
	s.mu.Lock()
	for i := before; i < len(s.violations); i++ {
		v := s.violations[i]
		if _, msg, ok := strings.Cut(v, ": "); ok && strings.HasPrefix(v, "request ") {
			v = msg
		}
		s.violations[i] = where + ": " + v
	}
	s.mu.Unlock()

	if call.expired {
		return batchReply{expired: true}
	}
	return batchReply{status: rec.Code, body: bytes.TrimSpace(rec.Body.Bytes())}
}

// jsonLines writes values as JSON Lines, as the APIs write them: "<" and
// "&" as they are, and a body taken from a live answer byte for byte
// (keys in its order), so that what a client sends back of it can be held
// to what was returned.
func jsonLines(values []any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, v := range values {
		_ = enc.Encode(v)
	}
	return b.Bytes()
}

// resultOrder is the order a batch's results are written in: not the
// order of its requests, as neither API keeps it, so that a client that
// matches results by position rather than custom_id is caught.
func resultOrder(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = n - 1 - i
	}
	return order
}

// page cuts a list newest first at a cursor: the items after the one with
// id after (or before the one with id before), at most limit of them.
func page[T any](items []T, id func(T) string, after, before string, limit int) (out []T, more bool) {
	start, end := 0, len(items)
	for i, it := range items {
		if after != "" && id(it) == after {
			start = i + 1
		}
		if before != "" && id(it) == before {
			end = i
		}
	}
	if start > end {
		return nil, false
	}
	items = items[start:end]
	if before != "" && len(items) > limit {
		return items[len(items)-limit:], true
	}
	if len(items) > limit {
		return items[:limit], true
	}
	return items, false
}
