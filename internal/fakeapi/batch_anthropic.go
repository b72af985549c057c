package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The Anthropic Message Batches endpoints, on the Messages fake. A batch's
// requests run through the server's live handler when it ends, each once;
// its params are checked then, as the API checks them (an errored result,
// never a failed batch), while the batch itself is checked when it is
// created (a 400). The rules and their sources are in BATCH.md.

// antMaxRequests is the most requests a batch holds (batch-processing
// guide: 100,000 requests or 256 MB).
const antMaxRequests = 100_000

// customIDPattern is what a custom_id must match (the API's 400 quotes it).
var customIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// antBatchRequest is one request of a batch.
type antBatchRequest struct {
	customID string
	params   json.RawMessage
}

// antBatch is a message batch and where it stands.
type antBatch struct {
	id       string
	status   string // in_progress, canceling, ended
	created  time.Time
	expires  time.Time
	ended    time.Time
	canceled time.Time // when cancellation was asked for
	header   http.Header
	requests []antBatchRequest
	// results are the requests' results, by request, once it has ended:
	// {"type": "succeeded", "message": …} and the other types.
	results []map[string]any
	progress
}

func rfc3339(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// object is the Message Batch object; base is the server's address, for
// results_url.
func (b *antBatch) object(base string) map[string]any {
	counts := map[string]int{"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	if b.results == nil {
		// "Requests start as processing and move to one of the other
		// statuses only once processing of the entire batch ends."
		counts["processing"] = len(b.requests)
	}
	for _, r := range b.results {
		counts[r["type"].(string)]++
	}
	o := map[string]any{
		"id": b.id, "type": "message_batch", "processing_status": b.status, "request_counts": counts,
		"ended_at": rfc3339(b.ended), "created_at": rfc3339(b.created), "expires_at": rfc3339(b.expires),
		"archived_at": nil, "cancel_initiated_at": rfc3339(b.canceled), "results_url": nil,
	}
	if b.status == "ended" {
		o["results_url"] = base + "/v1/messages/batches/" + b.id + "/results"
	}
	return o
}

// antBatchAPI answers one request to the Message Batches endpoints.
type antBatchAPI struct {
	s    *server
	st   *batchStore
	live func(http.ResponseWriter, *http.Request, []byte)
	body []byte
}

func (s *Anthropic) serveBatches(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if !strings.HasPrefix(r.URL.Path, "/v1/messages/batches") {
		return false
	}
	a := &antBatchAPI{s: &s.server, st: s.batchState(), live: s.handle, body: body}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages/batches", a.create)
	mux.HandleFunc("GET /v1/messages/batches", a.list)
	mux.HandleFunc("GET /v1/messages/batches/{id}", a.get)
	mux.HandleFunc("DELETE /v1/messages/batches/{id}", a.delete)
	mux.HandleFunc("POST /v1/messages/batches/{id}/cancel", a.cancel)
	mux.HandleFunc("GET /v1/messages/batches/{id}/results", a.results)
	if _, pattern := mux.Handler(r); pattern == "" {
		return false
	}
	if !s.authorized(r) {
		antError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
		return true
	}
	if r.Header.Get("Anthropic-Version") == "" {
		s.violatef("no anthropic-version header")
		antError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return true
	}
	mux.ServeHTTP(w, r)
	return true
}

// base is the server's address as the client reached it.
func base(r *http.Request) string { return "http://" + r.Host }

func (a *antBatchAPI) badRequest(w http.ResponseWriter, msg string) {
	a.s.violatef("%s", msg)
	antError(w, http.StatusBadRequest, "invalid_request_error", msg)
}

func (a *antBatchAPI) create(w http.ResponseWriter, r *http.Request) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(a.body, &req); err != nil {
		a.badRequest(w, "The request body is not valid JSON: "+err.Error())
		return
	}
	items, msg := checkBatchRequests(req["requests"], a.st.maxRequests(antMaxRequests))
	if msg != "" {
		a.badRequest(w, msg)
		return
	}
	now := a.st.now()
	b := &antBatch{id: newBatchID("msgbatch_01", 24), status: "in_progress", created: now, expires: now.Add(batchWindow),
		header: r.Header.Clone(), progress: progress{moved: now}}
	for _, item := range items {
		var id string
		_ = json.Unmarshal(item["custom_id"], &id)
		b.requests = append(b.requests, antBatchRequest{customID: id, params: item["params"]})
	}
	a.st.mu.Lock()
	a.st.ant[b.id] = b
	a.st.antOrder = append(a.st.antOrder, b.id)
	a.st.counts.Batches++
	obj := b.object(base(r))
	a.st.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

// checkBatchRequests holds a batch's requests to the rules the API checks
// when the batch is created, and returns them, or its error for the first
// rule broken.
func checkBatchRequests(raw json.RawMessage, max int) ([]map[string]json.RawMessage, string) {
	if len(raw) == 0 {
		return nil, "requests: Field required"
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || list == nil {
		return nil, "requests: Input should be a valid list"
	}
	if len(list) == 0 {
		return nil, "requests: List should have at least 1 item after validation, not 0"
	}
	if len(list) > max {
		return nil, fmt.Sprintf("requests: List should have at most %d items after validation, not %d", max, len(list))
	}
	reqs := make([]map[string]json.RawMessage, len(list))
	seen := map[string]bool{}
	for i, itemRaw := range list {
		var item map[string]json.RawMessage
		if json.Unmarshal(itemRaw, &item) != nil || item == nil {
			return nil, fmt.Sprintf("requests.%d: Input should be a valid dictionary or object to extract fields from", i)
		}
		reqs[i] = item
		idRaw, ok := item["custom_id"]
		if !ok {
			return nil, fmt.Sprintf("requests.%d.custom_id: Field required", i)
		}
		var id string
		if json.Unmarshal(idRaw, &id) != nil {
			return nil, fmt.Sprintf("requests.%d.custom_id: Input should be a valid string", i)
		}
		switch {
		case len(id) == 0:
			return nil, fmt.Sprintf("requests.%d.custom_id: String should have at least 1 character", i)
		case utf8.RuneCountInString(id) > 64:
			return nil, fmt.Sprintf("requests.%d.custom_id: String should have at most 64 characters", i)
		case !customIDPattern.MatchString(id):
			return nil, fmt.Sprintf("requests.%d.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'", i)
		}
		params, ok := item["params"]
		if !ok {
			return nil, fmt.Sprintf("requests.%d.params: Field required", i)
		}
		if len(params) == 0 || params[0] != '{' {
			return nil, fmt.Sprintf("requests.%d.params: Input should be a valid dictionary or object to extract fields from", i)
		}
		if seen[id] {
			return nil, "requests: custom_id's must be unique within a batch. Duplicate custom_id found: " + id
		}
		seen[id] = true
	}
	return reqs, ""
}

// batch finds a batch or answers the API's 404.
func (a *antBatchAPI) batch(w http.ResponseWriter, id string) *antBatch {
	b := a.st.ant[id]
	if b == nil {
		a.s.violatef("no message batch %s", id)
		antError(w, http.StatusNotFound, "not_found_error", "Message Batch "+id+" not found.")
	}
	return b
}

func (a *antBatchAPI) get(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	now := a.st.now()
	if b.status != "ended" && a.st.moves(&b.progress, now) > 0 {
		a.end(b, now)
	}
	if b.status != "ended" && !now.Before(b.expires) {
		a.end(b, now)
	}
	writeJSON(w, http.StatusOK, b.object(base(r)))
}

func (a *antBatchAPI) cancel(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	switch b.status {
	case "ended":
		// Not a mistake of the client's: a batch may end between its
		// last read and the cancel.
		antError(w, http.StatusBadRequest, "invalid_request_error", "Message Batch "+b.id+" has already ended and cannot be canceled.")
		return
	case "in_progress":
		b.status, b.canceled, b.progress = "canceling", a.st.now(), progress{moved: a.st.now()}
	}
	writeJSON(w, http.StatusOK, b.object(base(r)))
}

func (a *antBatchAPI) delete(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	if b.status != "ended" {
		a.badRequest(w, "In progress batches cannot be deleted. Consider canceling the batch instead.")
		return
	}
	delete(a.st.ant, b.id)
	a.st.antOrder = slices.DeleteFunc(a.st.antOrder, func(id string) bool { return id == b.id })
	writeJSON(w, http.StatusOK, map[string]any{"id": b.id, "type": "message_batch_deleted"})
}

func (a *antBatchAPI) results(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	if b.status != "ended" {
		a.s.violatef("results of message batch %s asked for before it ended", b.id)
		antError(w, http.StatusNotFound, "not_found_error", "Message Batch "+b.id+" has no available results.")
		return
	}
	var lines []any
	for _, i := range resultOrder(len(b.requests)) {
		lines = append(lines, map[string]any{"custom_id": b.requests[i].customID, "result": b.results[i]})
	}
	w.Header().Set("Content-Type", "application/x-jsonl")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(jsonLines(lines))
}

func (a *antBatchAPI) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	ids := slices.Clone(a.st.antOrder)
	slices.Reverse(ids)
	got, more := page(ids, func(id string) string { return id }, q.Get("after_id"), q.Get("before_id"), min(limitOf(q.Get("limit"), 20), 1000))
	data := []any{}
	for _, id := range got {
		data = append(data, a.st.ant[id].object(base(r)))
	}
	o := listObject(data, more)
	delete(o, "object")
	writeJSON(w, http.StatusOK, o)
}

// end ends a batch: an in_progress one runs its requests (but for those
// past its window: expired); a canceling one runs none (canceled).
func (a *antBatchAPI) end(b *antBatch, now time.Time) {
	b.results = make([]map[string]any, len(b.requests))
	for i, req := range b.requests {
		switch {
		case b.status == "canceling":
			b.results[i] = map[string]any{"type": "canceled"}
		case !now.Before(b.expires):
			b.results[i] = map[string]any{"type": "expired"}
		default:
			b.results[i] = a.run(b, i, req)
		}
	}
	b.status, b.ended = "ended", now
}

// run sends one request of a batch through the live handler and returns
// its result.
func (a *antBatchAPI) run(b *antBatch, i int, req antBatchRequest) map[string]any {
	where := fmt.Sprintf("message batch %s, request %s (%d)", b.id, req.customID, i)
	var p struct {
		Stream bool `json:"stream"`
	}
	if _ = json.Unmarshal(req.params, &p); p.Stream {
		msg := `"stream=True" is not supported in the Message Batches API`
		a.s.violatef("%s: %s", where, msg)
		return errored(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}, "request_id": nil})
	}
	reply := a.s.runInBatch(a.live, "/v1/messages", b.header, req.params, where)
	if reply.expired {
		return map[string]any{"type": "expired"}
	}
	a.st.counts.Requests++
	if reply.status != http.StatusOK {
		return errored(json.RawMessage(reply.body))
	}
	a.st.counts.Billed++
	return map[string]any{"type": "succeeded", "message": json.RawMessage(reply.body)}
}

func errored(e any) map[string]any { return map[string]any{"type": "errored", "error": e} }
