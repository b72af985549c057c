package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The OpenAI Files and Batches endpoints, on the Chat Completions and the
// Responses fakes. A batch's requests run through the server's live
// handler when the batch leaves in_progress, each once. The rules and
// their sources are in BATCH.md; "[unconfirmed]" there marks a text no
// recording of the live API gave.

// oaiMaxRequests is the most requests an input file holds (batch guide,
// "Rate limits": 50,000 requests, 200 MB).
const oaiMaxRequests = 50_000

// oaiBatchEndpoints are the endpoints a batch may name (openai-go
// BatchNewParamsEndpoint), in the order the API's error lists them.
var oaiBatchEndpoints = []string{"/v1/chat/completions", "/v1/completions", "/v1/embeddings",
	"/v1/images/edits", "/v1/images/generations", "/v1/moderations", "/v1/responses", "/v1/videos"}

// filePurposes are the purposes an upload may give (openai-go FilePurpose).
var filePurposes = []string{"assistants", "batch", "evals", "fine-tune", "user_data", "vision"}

// unreadablePurposes are those whose content the API will not give back
// ("Not allowed to download files of purpose: user_data", recorded).
var unreadablePurposes = []string{"assistants", "user_data"}

// oaiFile is an uploaded file, or an output or error file of a batch.
type oaiFile struct {
	id, filename, purpose string
	data                  []byte
	created, expires      int64
}

func (f *oaiFile) object() map[string]any {
	return map[string]any{"object": "file", "id": f.id, "purpose": f.purpose, "filename": f.filename,
		"bytes": len(f.data), "created_at": f.created, "expires_at": orNull(f.expires),
		"status": "processed", "status_details": nil}
}

// oaiLine is a request of an input file that passed validation.
type oaiLine struct {
	customID string
	body     json.RawMessage
}

// oaiBatchError is an entry of a failed batch's errors.data.
type oaiBatchError struct {
	Code    string  `json:"code"`
	Line    *int    `json:"line"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

// oaiBatch is a batch and where it stands.
type oaiBatch struct {
	id, endpoint, inputFileID, window string
	metadata                          json.RawMessage
	status                            string
	created, expires                  int64
	// at holds the times of the statuses reached: in_progress_at, …
	at                        map[string]int64
	errors                    []oaiBatchError
	outputFileID, errorFileID string
	model                     string
	header                    http.Header
	lines                     []oaiLine
	// replies are the answers of the lines run, by line; nil: not run.
	replies []*batchReply
	usage   [4]int64 // input, cached, output, reasoning tokens
	progress
}

func (b *oaiBatch) terminal() bool {
	switch b.status {
	case "completed", "failed", "expired", "cancelled":
		return true
	}
	return false
}

func (b *oaiBatch) object() map[string]any {
	completed, failed := 0, 0
	for _, r := range b.replies {
		switch {
		case r == nil && b.terminal():
			failed++ // expired or cancelled before it ran
		case r == nil:
		case r.status == http.StatusOK:
			completed++
		default:
			failed++
		}
	}
	o := map[string]any{
		"id": b.id, "object": "batch", "endpoint": b.endpoint, "errors": nil, "input_file_id": b.inputFileID,
		"completion_window": b.window, "status": b.status, "output_file_id": orNullString(b.outputFileID),
		"error_file_id": orNullString(b.errorFileID), "created_at": b.created, "expires_at": b.expires,
		"metadata": nil, "model": orNullString(b.model),
		"request_counts": map[string]int{"total": len(b.lines), "completed": completed, "failed": failed},
	}
	o["usage"] = map[string]any{
		"input_tokens": b.usage[0], "input_tokens_details": map[string]int64{"cached_tokens": b.usage[1]},
		"output_tokens": b.usage[2], "output_tokens_details": map[string]int64{"reasoning_tokens": b.usage[3]},
		"total_tokens": b.usage[0] + b.usage[2]}
	for _, k := range []string{"in_progress_at", "finalizing_at", "completed_at", "failed_at", "expired_at", "cancelling_at", "cancelled_at"} {
		o[k] = orNull(b.at[k])
	}
	if len(b.metadata) > 0 {
		o["metadata"] = b.metadata
	}
	if len(b.errors) > 0 {
		o["errors"] = map[string]any{"object": "list", "data": b.errors}
	}
	return o
}

func orNull(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func orNullString(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// oaiBatchAPI answers one request to the Files or Batches endpoints.
type oaiBatchAPI struct {
	s    *server
	st   *batchStore
	live func(http.ResponseWriter, *http.Request, []byte)
	body []byte
}

func (s *OpenAI) serveBatches(w http.ResponseWriter, r *http.Request, body []byte) bool {
	return s.serveOpenAIBatches(w, r, body, s.handle)
}

func (s *Responses) serveBatches(w http.ResponseWriter, r *http.Request, body []byte) bool {
	return s.serveOpenAIBatches(w, r, body, s.handle)
}

// serveOpenAIBatches answers the Files and Batches endpoints, and reports
// false for any other request (the live handler answers it: a 404 for a
// method or path the API does not have).
func (s *server) serveOpenAIBatches(w http.ResponseWriter, r *http.Request, body []byte, live func(http.ResponseWriter, *http.Request, []byte)) bool {
	if !strings.HasPrefix(r.URL.Path, "/v1/files") && !strings.HasPrefix(r.URL.Path, "/v1/batches") {
		return false
	}
	a := &oaiBatchAPI{s: s, st: s.batchState(), live: live, body: body}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/files", a.upload)
	mux.HandleFunc("GET /v1/files", a.listFiles)
	mux.HandleFunc("GET /v1/files/{id}", a.getFile)
	mux.HandleFunc("DELETE /v1/files/{id}", a.deleteFile)
	mux.HandleFunc("GET /v1/files/{id}/content", a.content)
	mux.HandleFunc("POST /v1/batches", a.create)
	mux.HandleFunc("GET /v1/batches", a.list)
	mux.HandleFunc("GET /v1/batches/{id}", a.get)
	mux.HandleFunc("POST /v1/batches/{id}/cancel", a.cancel)
	if _, pattern := mux.Handler(r); pattern == "" {
		return false
	}
	if !s.authorized(r) {
		respError(w, http.StatusUnauthorized, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "", "invalid_api_key")
		return true
	}
	mux.ServeHTTP(w, r)
	return true
}

// badRequest answers 400 with the API's error and notes it as a mistake
// of the client's.
func (a *oaiBatchAPI) badRequest(w http.ResponseWriter, msg, param, code string) {
	a.s.violatef("%s (param %s)", msg, param)
	respError(w, http.StatusBadRequest, msg, "invalid_request_error", param, code)
}

func (a *oaiBatchAPI) upload(w http.ResponseWriter, r *http.Request) {
	var purpose, filename string
	var data []byte
	var hasFile, hasPurpose bool
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		a.badRequest(w, "Invalid Content-Type header ("+r.Header.Get("Content-Type")+"), expected multipart/form-data. (HINT: If you're using curl, you can pass -H 'Content-Type: multipart/form-data')", "", "")
		return
	}
	mr := multipart.NewReader(bytes.NewReader(a.body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			a.badRequest(w, "We could not parse the multipart body of your request.", "", "")
			return
		}
		b, _ := io.ReadAll(part)
		switch part.FormName() {
		case "file":
			hasFile, filename, data = true, part.FileName(), b
		case "purpose":
			hasPurpose, purpose = true, string(b)
		}
	}
	switch {
	case !hasFile:
		a.badRequest(w, "Missing required parameter: 'file'.", "file", "missing_required_parameter")
		return
	case !hasPurpose:
		a.badRequest(w, "Missing required parameter: 'purpose'.", "purpose", "missing_required_parameter")
		return
	case !slices.Contains(filePurposes, purpose):
		a.badRequest(w, fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", purpose, quotedList(filePurposes)), "purpose", "invalid_value")
		return
	case purpose == "batch" && (!strings.HasSuffix(filename, ".jsonl") || !firstLineIsJSON(data)):
		a.badRequest(w, "Invalid file format for Batch API. Must be .jsonl", "", "")
		return
	}
	now := a.st.now().Unix()
	f := &oaiFile{id: newBatchID("file-", 24), filename: filename, purpose: purpose, data: data, created: now}
	if purpose == "batch" {
		// files-create: "files with purpose=batch expire after 30 days".
		f.expires = now + 30*24*3600
	}
	a.st.mu.Lock()
	a.st.files[f.id] = f
	a.st.fileOrder = append(a.st.fileOrder, f.id)
	a.st.counts.Files++
	obj := f.object()
	a.st.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

// firstLineIsJSON reports whether a file's first line is a JSON value:
// the Files API refuses a batch file that is empty or starts with
// anything else, and leaves the other lines to the batch's validation.
func firstLineIsJSON(data []byte) bool {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return json.Valid(bytes.TrimSpace(first))
}

// quotedList writes 'a', 'b', and 'c' as the API lists supported values.
func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + v + "'"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}

// file finds a file or answers the API's 404.
func (a *oaiBatchAPI) file(w http.ResponseWriter, id string) *oaiFile {
	f := a.st.files[id]
	if f == nil {
		a.s.violatef("no file %s", id)
		respError(w, http.StatusNotFound, "No such File object: "+id, "invalid_request_error", "id", "")
	}
	return f
}

func (a *oaiBatchAPI) getFile(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	if f := a.file(w, r.PathValue("id")); f != nil {
		writeJSON(w, http.StatusOK, f.object())
	}
}

func (a *oaiBatchAPI) deleteFile(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	f := a.file(w, r.PathValue("id"))
	if f == nil {
		return
	}
	delete(a.st.files, f.id)
	a.st.fileOrder = slices.DeleteFunc(a.st.fileOrder, func(id string) bool { return id == f.id })
	writeJSON(w, http.StatusOK, map[string]any{"id": f.id, "object": "file", "deleted": true})
}

func (a *oaiBatchAPI) content(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	f := a.file(w, r.PathValue("id"))
	if f == nil {
		return
	}
	if slices.Contains(unreadablePurposes, f.purpose) {
		a.badRequest(w, "Not allowed to download files of purpose: "+f.purpose, "", "")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(f.data)
}

func (a *oaiBatchAPI) listFiles(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	var files []*oaiFile
	for _, id := range a.st.fileOrder {
		if f := a.st.files[id]; q.Get("purpose") == "" || f.purpose == q.Get("purpose") {
			files = append(files, f)
		}
	}
	if q.Get("order") != "asc" {
		slices.Reverse(files)
	}
	got, more := page(files, func(f *oaiFile) string { return f.id }, q.Get("after"), "", limitOf(q.Get("limit"), 10_000))
	data := []any{}
	for _, f := range got {
		data = append(data, f.object())
	}
	writeJSON(w, http.StatusOK, listObject(data, more))
}

func limitOf(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return n
	}
	return def
}

// listObject is a page of a list, as both list endpoints answer it.
func listObject(data []any, more bool) map[string]any {
	o := map[string]any{"object": "list", "data": data, "has_more": more, "first_id": nil, "last_id": nil}
	if len(data) > 0 {
		o["first_id"] = data[0].(map[string]any)["id"]
		o["last_id"] = data[len(data)-1].(map[string]any)["id"]
	}
	return o
}

func (a *oaiBatchAPI) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		InputFileID      *string         `json:"input_file_id"`
		Endpoint         *string         `json:"endpoint"`
		CompletionWindow *string         `json:"completion_window"`
		Metadata         json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(a.body, &req); err != nil {
		a.badRequest(w, "We could not parse the JSON body of your request.", "", "")
		return
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"input_file_id", req.InputFileID}, {"endpoint", req.Endpoint}, {"completion_window", req.CompletionWindow}} {
		if f.v == nil {
			a.badRequest(w, fmt.Sprintf("Missing required parameter: '%s'.", f.name), f.name, "missing_required_parameter")
			return
		}
	}
	if !slices.Contains(oaiBatchEndpoints, *req.Endpoint) {
		a.badRequest(w, fmt.Sprintf("Invalid value: '%s'. Supported values are: %s.", *req.Endpoint, quotedList(oaiBatchEndpoints)), "endpoint", "invalid_value")
		return
	}
	if *req.CompletionWindow != "24h" {
		a.badRequest(w, fmt.Sprintf("Invalid value: '%s'. Supported values are: '24h'.", *req.CompletionWindow), "completion_window", "invalid_value")
		return
	}
	if msg, param, code := checkMetadata(req.Metadata); msg != "" {
		a.badRequest(w, msg, param, code)
		return
	}
	now := a.st.now()
	b := &oaiBatch{id: newBatchID("batch_", 32), endpoint: *req.Endpoint, inputFileID: *req.InputFileID,
		window: *req.CompletionWindow, metadata: req.Metadata, status: "validating",
		created: now.Unix(), expires: now.Add(batchWindow).Unix(), at: map[string]int64{},
		header: r.Header.Clone(), progress: progress{moved: now}}
	if string(b.metadata) == "null" {
		b.metadata = nil
	}
	a.st.mu.Lock()
	a.st.oai[b.id] = b
	a.st.oaiOrder = append(a.st.oaiOrder, b.id)
	a.st.counts.Batches++
	obj := b.object()
	a.st.mu.Unlock()
	writeJSON(w, http.StatusOK, obj)
}

// checkMetadata holds metadata to its rules: at most 16 keys, each value
// a string ("Invalid type for 'metadata.tags': expected a string, but got
// an array instead.", recorded).
func checkMetadata(raw json.RawMessage) (msg, param, code string) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", "", ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return fmt.Sprintf("Invalid type for 'metadata': expected an object, but got %s instead.", jsonKind(raw)), "metadata", "invalid_type"
	}
	if len(m) > 16 {
		return fmt.Sprintf("Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with %d properties instead.", len(m)), "metadata", "object_above_max_properties"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v := m[k]; len(v) == 0 || v[0] != '"' {
			return fmt.Sprintf("Invalid type for 'metadata.%s': expected a string, but got %s instead.", k, jsonKind(v)), "metadata." + k, "invalid_type"
		}
	}
	return "", "", ""
}

// batch finds a batch or answers the API's 404.
func (a *oaiBatchAPI) batch(w http.ResponseWriter, id string) *oaiBatch {
	b := a.st.oai[id]
	if b == nil {
		a.s.violatef("no batch %s", id)
		respError(w, http.StatusNotFound, fmt.Sprintf("No batch found with id '%s'.", id), "invalid_request_error", "", "")
	}
	return b
}

func (a *oaiBatchAPI) get(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	now := a.st.now()
	for n := a.st.moves(&b.progress, now); n > 0 && !b.terminal(); n-- {
		a.move(b, now)
	}
	if !b.terminal() && now.Unix() >= b.expires {
		a.expire(b, now)
	}
	writeJSON(w, http.StatusOK, b.object())
}

func (a *oaiBatchAPI) cancel(w http.ResponseWriter, r *http.Request) {
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	b := a.batch(w, r.PathValue("id"))
	if b == nil {
		return
	}
	switch b.status {
	case "completed", "failed", "expired":
		// Not a mistake of the client's: a batch may end between its
		// last read and the cancel.
		respError(w, http.StatusConflict, fmt.Sprintf("Cannot cancel a batch with status '%s'.", b.status), "invalid_request_error", "", "")
		return
	case "validating", "in_progress", "finalizing":
		b.status, b.progress = "cancelling", progress{moved: a.st.now()}
		b.at["cancelling_at"] = a.st.now().Unix()
	}
	writeJSON(w, http.StatusOK, b.object())
}

func (a *oaiBatchAPI) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.st.mu.Lock()
	defer a.st.mu.Unlock()
	ids := slices.Clone(a.st.oaiOrder)
	slices.Reverse(ids)
	got, more := page(ids, func(id string) string { return id }, q.Get("after"), "", min(limitOf(q.Get("limit"), 20), 100))
	data := []any{}
	for _, id := range got {
		data = append(data, a.st.oai[id].object())
	}
	writeJSON(w, http.StatusOK, listObject(data, more))
}

// move takes a batch to its next status.
func (a *oaiBatchAPI) move(b *oaiBatch, now time.Time) {
	switch b.status {
	case "validating":
		a.validate(b, now)
	case "in_progress":
		a.run(b)
		for _, r := range b.replies {
			if r.expired {
				// A request the window closed on: the batch cannot
				// complete, and expires with what did run.
				a.finish(b, "expired", now)
				return
			}
		}
		b.status = "finalizing"
		b.at["finalizing_at"] = now.Unix()
	case "finalizing":
		a.finish(b, "completed", now)
	case "cancelling":
		a.finish(b, "cancelled", now)
	}
}

// expire ends a batch whose window has closed: what ran is in its output
// file, what did not is batch_expired in its error file.
func (a *oaiBatchAPI) expire(b *oaiBatch, now time.Time) {
	switch b.status {
	case "validating":
		if a.validate(b, now); b.status == "failed" {
			return
		}
	case "finalizing":
		a.finish(b, "completed", now)
		return
	case "cancelling":
		a.finish(b, "cancelled", now)
		return
	}
	a.finish(b, "expired", now)
}

// validate reads the batch's input file and fails the batch on the first
// problems of its lines, as the API does before anything runs.
func (a *oaiBatchAPI) validate(b *oaiBatch, now time.Time) {
	fail := func(errs []oaiBatchError) {
		b.status, b.errors = "failed", errs
		b.at["failed_at"] = now.Unix()
		for _, e := range errs {
			where := "the input file"
			if e.Line != nil {
				where = fmt.Sprintf("line %d", *e.Line)
			}
			a.s.violatef("batch %s: %s: %s", b.id, where, e.Message)
		}
	}
	fileParam := "file_id"
	f := a.st.files[b.inputFileID]
	if f == nil {
		fail([]oaiBatchError{{Code: "invalid_request", Param: &fileParam,
			Message: fmt.Sprintf("Cannot find file %s, or organization org-fakeapi does not have access to it.", b.inputFileID)}})
		return
	}
	if f.purpose != "batch" {
		fail([]oaiBatchError{{Code: "invalid_request", Param: &fileParam,
			Message: fmt.Sprintf("File %s was not uploaded with purpose 'batch'.", b.inputFileID)}})
		return
	}
	lines, model, errs := validateOpenAIInput(f.data, b.endpoint, a.st.maxRequests(oaiMaxRequests))
	if len(errs) > 0 {
		fail(errs)
		return
	}
	b.lines, b.model, b.replies = lines, model, make([]*batchReply, len(lines))
	b.status = "in_progress"
	b.at["in_progress_at"] = now.Unix()
}

// validateOpenAIInput checks an input file's lines as the batch's
// validation does, and returns its requests and their model, or every
// problem found.
func validateOpenAIInput(data []byte, endpoint string, max int) ([]oaiLine, string, []oaiBatchError) {
	text := strings.TrimSuffix(string(data), "\n")
	var errs []oaiBatchError
	add := func(line int, code, param, msg string) {
		e := oaiBatchError{Code: code, Line: &line, Message: msg}
		if param != "" {
			e.Param = &param
		}
		errs = append(errs, e)
	}
	if text == "" {
		return nil, "", []oaiBatchError{{Code: "empty_file", Message: "The batch input file is empty. Please ensure that the batch contains at least one request."}}
	}
	api := "Chat Completions"
	if endpoint == "/v1/responses" {
		api = "Responses"
	}
	var lines []oaiLine
	var model string
	seen := map[string]int{}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		if n > max {
			add(n, "too_many_requests", "", fmt.Sprintf("The batch input file holds more than %d requests, the most a batch takes.", max))
			break
		}
		var line map[string]json.RawMessage
		if json.Unmarshal([]byte(strings.TrimSuffix(raw, "\r")), &line) != nil || line == nil {
			add(n, "invalid_json_line", "", "This line is not parseable as valid JSON.")
			continue
		}
		ok := true
		fields := map[string]string{}
		for _, k := range []string{"custom_id", "method", "url", "body"} {
			v, present := line[k]
			switch {
			case !present:
				add(n, "missing_required_parameter", k, fmt.Sprintf("Missing required parameter: '%s'.", k))
				ok = false
			case k == "body" && (len(v) == 0 || v[0] != '{'):
				add(n, "invalid_type", k, fmt.Sprintf("Invalid type for 'body': expected an object, but got %s instead.", jsonKind(v)))
				ok = false
			case k != "body" && json.Unmarshal(v, new(string)) != nil:
				add(n, "invalid_type", k, fmt.Sprintf("Invalid type for '%s': expected a string, but got %s instead.", k, jsonKind(v)))
				ok = false
			case k != "body":
				var s string
				_ = json.Unmarshal(v, &s)
				fields[k] = s
			}
		}
		if !ok {
			continue
		}
		if m := fields["method"]; m != http.MethodPost {
			add(n, "invalid_value", "method", fmt.Sprintf("Invalid value: '%s'. Supported values are: 'POST'.", m))
			continue
		}
		if fields["url"] != endpoint {
			add(n, "invalid_url", "url", "The URL provided for this request does not match the batch endpoint.")
			continue
		}
		var body struct {
			Model    *string         `json:"model"`
			Messages json.RawMessage `json:"messages"`
			Stream   bool            `json:"stream"`
		}
		_ = json.Unmarshal(line["body"], &body)
		switch {
		case body.Stream:
			add(n, "streaming_unsupported", "body.stream", api+": Streaming is not supported in the Batch API.")
			continue
		case body.Model == nil:
			add(n, "invalid_request", "body.model", "Model parameter is required.")
			continue
		case endpoint == "/v1/chat/completions" && len(body.Messages) == 0:
			add(n, "invalid_request", "body.messages", "Messages parameter is required.")
			continue
		case model != "" && *body.Model != model:
			add(n, "mismatched_model", "body.model", fmt.Sprintf("The model '%s' of this request differs from the model '%s' of the requests before it: a batch's requests all use one model.", *body.Model, model))
			continue
		}
		model = *body.Model
		id := fields["custom_id"]
		if first, dup := seen[id]; dup {
			add(n, "duplicate_custom_id", "custom_id", fmt.Sprintf("The custom_id '%s' of this request is the custom_id of the request on line %d: the custom_id of each request in a batch must be unique.", id, first))
			continue
		}
		seen[id] = n
		lines = append(lines, oaiLine{customID: id, body: line["body"]})
	}
	return lines, model, errs
}

// run sends each request of the batch not yet run through the live
// handler, once, and adds up the usage of its answers.
func (a *oaiBatchAPI) run(b *oaiBatch) {
	for i, l := range b.lines {
		if b.replies[i] != nil {
			continue
		}
		where := fmt.Sprintf("batch %s, request %s (line %d)", b.id, l.customID, i+1)
		reply := a.s.runInBatch(a.live, b.endpoint, b.header, l.body, where)
		b.replies[i] = &reply
		if reply.expired {
			continue
		}
		a.st.counts.Requests++
		if reply.status == http.StatusOK {
			a.st.counts.Billed++
			b.addUsage(reply.body)
		}
	}
}

// addUsage adds an answer's tokens to the batch's: Chat Completions and
// Responses usage both.
func (b *oaiBatch) addUsage(body []byte) {
	var r struct {
		Usage struct {
			PromptTokens        int64 `json:"prompt_tokens"`
			CompletionTokens    int64 `json:"completion_tokens"`
			InputTokens         int64 `json:"input_tokens"`
			OutputTokens        int64 `json:"output_tokens"`
			PromptTokensDetails struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			InputTokensDetails struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			CompletionTokensDetails struct {
				ReasoningTokens int64 `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
			OutputTokensDetails struct {
				ReasoningTokens int64 `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
	}
	_ = json.Unmarshal(body, &r)
	u := r.Usage
	b.usage[0] += u.PromptTokens + u.InputTokens
	b.usage[1] += u.PromptTokensDetails.CachedTokens + u.InputTokensDetails.CachedTokens
	b.usage[2] += u.CompletionTokens + u.OutputTokens
	b.usage[3] += u.CompletionTokensDetails.ReasoningTokens + u.OutputTokensDetails.ReasoningTokens
}

// finish ends a batch with status and writes its output file (the 200
// answers) and error file (the other answers, and the requests that never
// ran: batch_expired or batch_cancelled); a file with no line is not
// written.
func (a *oaiBatchAPI) finish(b *oaiBatch, status string, now time.Time) {
	code, msg := "batch_expired", "This request could not be executed before the completion window expired."
	if status == "cancelled" {
		code, msg = "batch_cancelled", "This request was not executed because the batch was cancelled."
	}
	var out, errs []any
	for _, i := range resultOrder(len(b.lines)) {
		line := map[string]any{"id": newBatchID("batch_req_", 32), "custom_id": b.lines[i].customID, "response": nil, "error": nil}
		r := b.replies[i]
		switch {
		case r == nil || r.expired:
			line["error"] = map[string]string{"code": code, "message": msg}
			errs = append(errs, line)
			continue
		default:
			line["response"] = map[string]any{"status_code": r.status, "request_id": newBatchID("req_", 32), "body": json.RawMessage(r.body)}
		}
		if r.status == http.StatusOK {
			out = append(out, line)
		} else {
			errs = append(errs, line)
		}
	}
	b.outputFileID = a.write(b, "output", out, now)
	b.errorFileID = a.write(b, "error", errs, now)
	b.status = status
	b.at[status+"_at"] = now.Unix()
}

// write stores a batch's output or error file; "" when it has no line.
func (a *oaiBatchAPI) write(b *oaiBatch, kind string, lines []any, now time.Time) string {
	if len(lines) == 0 {
		return ""
	}
	// The guide: "The output file will automatically be deleted 30 days
	// after the batch is complete."
	f := &oaiFile{id: newBatchID("file-", 24), filename: b.id + "_" + kind + ".jsonl", purpose: "batch_output",
		data: jsonLines(lines), created: now.Unix(), expires: now.Unix() + 30*24*3600}
	a.st.files[f.id] = f
	a.st.fileOrder = append(a.st.fileOrder, f.id)
	return f.id
}
