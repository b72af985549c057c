package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// The OpenAI batch endpoints driven by the official SDK, so that every
// shape on the wire is one openai-go reads and writes.

func oaiBatchClient(url string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("k"), option.WithMaxRetries(0))
}

func text(s string) *string { return &s }

// answerEach is a Conversations script that answers every conversation
// once with its prompt.
func answerEach() *Conversations {
	return &Conversations{Steps: []Step{{Text: text("answer to {{prompt}}")}}}
}

// chatLine is an input file line asking prompt of model.
func chatLine(id, model, prompt string) string {
	b, _ := json.Marshal(map[string]any{"custom_id": id, "method": "POST", "url": "/v1/chat/completions",
		"body": map[string]any{"model": model, "messages": []any{map[string]any{"role": "user", "content": prompt}}}})
	return string(b)
}

func upload(t *testing.T, c openai.Client, lines ...string) string {
	t.Helper()
	f, err := c.Files.New(context.Background(), openai.FileNewParams{
		File:    openai.File(strings.NewReader(strings.Join(lines, "\n")+"\n"), "input.jsonl", "application/jsonl"),
		Purpose: openai.FilePurposeBatch,
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.Purpose != openai.FileObjectPurposeBatch || f.Filename != "input.jsonl" || f.ExpiresAt != f.CreatedAt+30*24*3600 {
		t.Errorf("uploaded file: %s", f.RawJSON())
	}
	return f.ID
}

func createBatch(t *testing.T, c openai.Client, fileID string, endpoint openai.BatchNewParamsEndpoint) *openai.Batch {
	t.Helper()
	b, err := c.Batches.New(context.Background(), openai.BatchNewParams{
		InputFileID: fileID, Endpoint: endpoint, CompletionWindow: openai.BatchNewParamsCompletionWindow24h,
		Metadata: shared.Metadata{"round": "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != openai.BatchStatusValidating || b.ExpiresAt != b.CreatedAt+24*3600 || b.Metadata["round"] != "1" {
		t.Errorf("created batch: %s", b.RawJSON())
	}
	return b
}

// poll reads a batch until it ends and returns it and each status read.
func poll(t *testing.T, c openai.Client, id string) (*openai.Batch, []openai.BatchStatus) {
	t.Helper()
	var seen []openai.BatchStatus
	for range 20 {
		b, err := c.Batches.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, b.Status)
		switch b.Status {
		case openai.BatchStatusCompleted, openai.BatchStatusFailed, openai.BatchStatusExpired, openai.BatchStatusCancelled:
			return b, seen
		}
	}
	t.Fatalf("batch %s did not end: %v", id, seen)
	return nil, nil
}

// outputLine is a line of an output or error file.
type outputLine struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// fileLines reads an output or error file, by custom_id.
func fileLines(t *testing.T, c openai.Client, id string) map[string]outputLine {
	t.Helper()
	if id == "" {
		return nil
	}
	res, err := c.Files.Content(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	lines := map[string]outputLine{}
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var o outputLine
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if !strings.HasPrefix(o.ID, "batch_req_") {
			t.Errorf("line id %q", o.ID)
		}
		lines[o.CustomID] = o
	}
	return lines
}

func apiError(t *testing.T, err error, status int, message string) {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a %d API error, got %v", status, err)
	}
	if e.StatusCode != status || e.Message != message {
		t.Errorf("got %d %q, want %d %q", e.StatusCode, e.Message, status, message)
	}
}

func TestOpenAIBatchRunsEachRequestOnceThroughTheScript(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	file := upload(t, c, chatLine("a", "gpt-x", "pa"), chatLine("b", "gpt-x", "pb"), chatLine("c", "gpt-x", "pc"))
	created := createBatch(t, c, file, openai.BatchNewParamsEndpointV1ChatCompletions)
	if created.RequestCounts.Total != 0 || created.InputFileID != file {
		t.Errorf("a validating batch: %s", created.RawJSON())
	}

	b, seen := poll(t, c, created.ID)
	want := []openai.BatchStatus{"in_progress", "finalizing", "completed"}
	if !slices.Equal(seen, want) {
		t.Errorf("statuses %v, want %v", seen, want)
	}
	if b.RequestCounts.Total != 3 || b.RequestCounts.Completed != 3 || b.RequestCounts.Failed != 0 ||
		b.ErrorFileID != "" || b.Model != "gpt-x" || b.Usage.InputTokens == 0 || b.Usage.OutputTokens == 0 ||
		b.InProgressAt == 0 || b.FinalizingAt == 0 || b.CompletedAt == 0 {
		t.Errorf("completed batch: %s", b.RawJSON())
	}
	out := fileLines(t, c, b.OutputFileID)
	for _, id := range []string{"a", "b", "c"} {
		var cc openai.ChatCompletion
		l := out[id]
		if l.Response == nil || l.Response.StatusCode != 200 || !strings.HasPrefix(l.Response.RequestID, "req_") || l.Error != nil {
			t.Fatalf("%s: %+v", id, l)
		}
		if err := json.Unmarshal(l.Response.Body, &cc); err != nil || cc.Choices[0].Message.Content != "answer to p"+id {
			t.Errorf("%s: %s (%v)", id, l.Response.Body, err)
		}
	}

	// Reading the ended batch again runs nothing again.
	if _, err := c.Batches.Get(context.Background(), b.ID); err != nil {
		t.Fatal(err)
	}
	if got := srv.BatchCounts(); got != (BatchCounts{Files: 1, Batches: 1, Requests: 3, Billed: 3}) {
		t.Errorf("counts %+v", got)
	}
	if err := srv.Check(); err != nil || srv.Remaining() != 0 {
		t.Errorf("%v; %d steps left", err, srv.Remaining())
	}
}

func TestOpenAIBatchAnswersABrokenRequestInItsErrorFile(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	broken := `{"custom_id":"bad","method":"POST","url":"/v1/chat/completions","body":{"model":"gpt-x","messages":[` +
		`{"role":"user","content":"q"},{"role":"tool","tool_call_id":"call_1","content":"r"}]}}`
	b, _ := poll(t, c, createBatch(t, c, upload(t, c, chatLine("good", "gpt-x", "p"), broken), openai.BatchNewParamsEndpointV1ChatCompletions).ID)

	if b.Status != openai.BatchStatusCompleted || b.RequestCounts.Completed != 1 || b.RequestCounts.Failed != 1 {
		t.Errorf("batch: %s", b.RawJSON())
	}
	if out := fileLines(t, c, b.OutputFileID); len(out) != 1 || out["good"].Response == nil {
		t.Errorf("output file: %+v", out)
	}
	l := fileLines(t, c, b.ErrorFileID)["bad"]
	if l.Response == nil || l.Response.StatusCode != 400 || l.Error != nil {
		t.Fatalf("error line: %+v", l)
	}
	var body struct {
		Error struct{ Message, Type, Param string }
	}
	_ = json.Unmarshal(l.Response.Body, &body)
	const msg = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
	if body.Error.Message != msg || body.Error.Type != "invalid_request_error" || body.Error.Param != "messages.[1].role" {
		t.Errorf("error body: %s", l.Response.Body)
	}
	v := srv.Violations()
	if len(v) != 1 || !strings.HasPrefix(v[0], "batch "+b.ID+", request bad (line 2): "+msg) {
		t.Errorf("violations: %q", v)
	}
	if got := srv.BatchCounts(); got.Requests != 2 || got.Billed != 1 {
		t.Errorf("counts %+v", got)
	}
}

func TestOpenAIBatchValidationFailsTheWholeBatch(t *testing.T) {
	good := chatLine("a", "gpt-x", "p")
	tests := []struct {
		name  string
		lines []string
		want  string // code line param: message
	}{
		{"not JSON", []string{good, "{nope"}, "invalid_json_line 2 <nil>: This line is not parseable as valid JSON."},
		{"no custom_id", []string{`{"method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[]}}`},
			"missing_required_parameter 1 custom_id: Missing required parameter: 'custom_id'."},
		{"another endpoint", []string{strings.Replace(good, "/v1/chat/completions", "/v1/embeddings", 1)},
			"invalid_url 1 url: The URL provided for this request does not match the batch endpoint."},
		{"streamed", []string{strings.Replace(good, `"model"`, `"stream":true,"model"`, 1)},
			"streaming_unsupported 1 body.stream: Chat Completions: Streaming is not supported in the Batch API."},
		{"no model", []string{strings.Replace(good, `"model"`, `"modell"`, 1)}, "invalid_request 1 body.model: Model parameter is required."},
		{"no messages", []string{strings.Replace(good, `"messages"`, `"message"`, 1)}, "invalid_request 1 body.messages: Messages parameter is required."},
		{"two models", []string{good, chatLine("b", "gpt-y", "p")},
			"mismatched_model 2 body.model: The model 'gpt-y' of this request differs from the model 'gpt-x' of the requests before it: a batch's requests all use one model."},
		{"same custom_id", []string{good, good},
			"duplicate_custom_id 2 custom_id: The custom_id 'a' of this request is the custom_id of the request on line 1: the custom_id of each request in a batch must be unique."},
	}
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := poll(t, c, createBatch(t, c, upload(t, c, tt.lines...), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
			if b.Status != openai.BatchStatusFailed || b.FailedAt == 0 || len(b.Errors.Data) != 1 || b.OutputFileID != "" {
				t.Fatalf("batch: %s", b.RawJSON())
			}
			e := b.Errors.Data[0]
			param := "<nil>"
			if e.JSON.Param.Valid() {
				param = e.Param
			}
			if got := fmt.Sprintf("%s %d %s: %s", e.Code, e.Line, param, e.Message); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if got := srv.BatchCounts(); got.Requests != 0 || srv.Remaining() != 0 {
		t.Errorf("a failed batch ran %d requests", got.Requests)
	}
	if len(srv.Violations()) != len(tests) {
		t.Errorf("violations: %q", srv.Violations())
	}
}

func TestOpenAIBatchTakesAtMostMaxRequests(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	srv.SetBatchPace(BatchPace{MaxRequests: 2})
	c := oaiBatchClient(srv.BaseURL())
	b, _ := poll(t, c, createBatch(t, c, upload(t, c, chatLine("a", "m", "1"), chatLine("b", "m", "2"), chatLine("c", "m", "3")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if b.Status != openai.BatchStatusFailed || b.Errors.Data[0].Code != "too_many_requests" || b.Errors.Data[0].Line != 3 {
		t.Errorf("batch: %s", b.RawJSON())
	}
}

func TestOpenAIBatchCreationRefusesWhatTheAPIRefuses(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	file := upload(t, c, chatLine("a", "m", "p"))
	ctx := context.Background()
	_, err := c.Batches.New(ctx, openai.BatchNewParams{InputFileID: file, Endpoint: "/v1/invalid/endpoint", CompletionWindow: "24h"})
	apiError(t, err, 400, "Invalid value: '/v1/invalid/endpoint'. Supported values are: '/v1/chat/completions', '/v1/completions', "+
		"'/v1/embeddings', '/v1/images/edits', '/v1/images/generations', '/v1/moderations', '/v1/responses', and '/v1/videos'.")
	_, err = c.Batches.New(ctx, openai.BatchNewParams{InputFileID: file, Endpoint: "/v1/chat/completions", CompletionWindow: "48h"})
	apiError(t, err, 400, "Invalid value: '48h'. Supported values are: '24h'.")
	_, err = c.Batches.New(ctx, openai.BatchNewParams{InputFileID: file, Endpoint: "/v1/chat/completions", CompletionWindow: "24h"},
		option.WithJSONSet("metadata", map[string]any{"tags": []string{"a"}}))
	apiError(t, err, 400, "Invalid type for 'metadata.tags': expected a string, but got an array instead.")
	if got := srv.BatchCounts(); got.Batches != 0 {
		t.Errorf("%d batches created", got.Batches)
	}
}

func TestOpenAIBatchCancel(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	ctx := context.Background()
	created := createBatch(t, c, upload(t, c, chatLine("a", "m", "1"), chatLine("b", "m", "2")), openai.BatchNewParamsEndpointV1ChatCompletions)
	b, err := c.Batches.Cancel(ctx, created.ID)
	if err != nil || b.Status != openai.BatchStatusCancelling || b.CancellingAt == 0 {
		t.Fatalf("cancel: %v %s", err, b.RawJSON())
	}
	b, _ = poll(t, c, created.ID)
	if b.Status != openai.BatchStatusCancelled || b.CancelledAt == 0 || b.OutputFileID != "" {
		t.Errorf("batch: %s", b.RawJSON())
	}
	for id, l := range fileLines(t, c, b.ErrorFileID) {
		if l.Response != nil || l.Error == nil || l.Error.Code != "batch_cancelled" {
			t.Errorf("%s: %+v", id, l)
		}
	}
	if b, err = c.Batches.Cancel(ctx, created.ID); err != nil || b.Status != openai.BatchStatusCancelled {
		t.Errorf("cancel a cancelled batch: %v", err)
	}

	done, _ := poll(t, c, createBatch(t, c, upload(t, c, chatLine("c", "m", "3")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	_, err = c.Batches.Cancel(ctx, done.ID)
	apiError(t, err, 409, "Cannot cancel a batch with status 'completed'.")
	if got := srv.BatchCounts(); got.Requests != 1 || got.Billed != 1 {
		t.Errorf("counts %+v", got)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}

func TestOpenAIBatchExpiresWithAScriptedRequestUnrun(t *testing.T) {
	srv := NewOpenAIConversations(&Conversations{
		Steps:   []Step{{Text: text("answer to {{prompt}}")}},
		Prompts: map[string][]Step{"slow": {{BatchExpired: true}, {Text: text("late answer")}}},
	}, "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	b, seen := poll(t, c, createBatch(t, c, upload(t, c, chatLine("fast", "m", "fast"), chatLine("slow", "m", "slow")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if !slices.Equal(seen, []openai.BatchStatus{"in_progress", "expired"}) || b.ExpiredAt == 0 ||
		b.RequestCounts.Completed != 1 || b.RequestCounts.Failed != 1 {
		t.Errorf("%v: %s", seen, b.RawJSON())
	}
	if out := fileLines(t, c, b.OutputFileID); out["fast"].Response == nil {
		t.Errorf("output: %+v", out)
	}
	l := fileLines(t, c, b.ErrorFileID)["slow"]
	if l.Response != nil || l.Error == nil || l.Error.Code != "batch_expired" ||
		l.Error.Message != "This request could not be executed before the completion window expired." {
		t.Errorf("expired line: %+v", l)
	}

	// Submitted again, the request is answered by the next step.
	b, _ = poll(t, c, createBatch(t, c, upload(t, c, chatLine("slow", "m", "slow")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	var cc openai.ChatCompletion
	_ = json.Unmarshal(fileLines(t, c, b.OutputFileID)["slow"].Response.Body, &cc)
	if b.Status != openai.BatchStatusCompleted || cc.Choices[0].Message.Content != "late answer" {
		t.Errorf("resubmitted: %s", b.RawJSON())
	}
	if got := srv.BatchCounts(); got.Requests != 2 || got.Billed != 2 {
		t.Errorf("counts %+v", got)
	}
	if err := srv.Check(); err != nil || srv.Remaining() != 0 {
		t.Errorf("%v; %d steps left", err, srv.Remaining())
	}
}

// clock is a time a test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestOpenAIBatchExpiresWhenTheClockPassesItsWindow(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	clk := &clock{time.Unix(1_700_000_000, 0)}
	srv.SetBatchPace(BatchPace{Polls: -1, Now: clk.now})
	c := oaiBatchClient(srv.BaseURL())
	created := createBatch(t, c, upload(t, c, chatLine("a", "m", "1"), chatLine("b", "m", "2")), openai.BatchNewParamsEndpointV1ChatCompletions)
	if created.CreatedAt != clk.t.Unix() {
		t.Errorf("created_at %d", created.CreatedAt)
	}
	clk.t = clk.t.Add(23 * time.Hour)
	if b, _ := c.Batches.Get(context.Background(), created.ID); b.Status != openai.BatchStatusValidating {
		t.Errorf("a batch that reads do not move: %s", b.Status)
	}
	clk.t = clk.t.Add(time.Hour)
	b, _ := c.Batches.Get(context.Background(), created.ID)
	if b.Status != openai.BatchStatusExpired || b.ExpiredAt != created.ExpiresAt || b.RequestCounts.Failed != 2 {
		t.Errorf("batch: %s", b.RawJSON())
	}
	if errs := fileLines(t, c, b.ErrorFileID); len(errs) != 2 || errs["a"].Error.Code != "batch_expired" {
		t.Errorf("error file: %+v", errs)
	}
	if got := srv.BatchCounts(); got.Requests != 0 {
		t.Errorf("counts %+v", got)
	}
}

func TestOpenAIBatchMovesAtThePaceSet(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())

	srv.SetBatchPace(BatchPace{Polls: 2})
	_, seen := poll(t, c, createBatch(t, c, upload(t, c, chatLine("a", "m", "1")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if want := []openai.BatchStatus{"validating", "in_progress", "in_progress", "finalizing", "finalizing", "completed"}; !slices.Equal(seen, want) {
		t.Errorf("every 2 reads: %v, want %v", seen, want)
	}

	clk := &clock{time.Unix(1_700_000_000, 0)}
	srv.SetBatchPace(BatchPace{Polls: -1, Every: Duration(time.Minute), Now: clk.now})
	id := createBatch(t, c, upload(t, c, chatLine("b", "m", "2")), openai.BatchNewParamsEndpointV1ChatCompletions).ID
	for _, step := range []struct {
		after time.Duration
		want  openai.BatchStatus
	}{{30 * time.Second, "validating"}, {30 * time.Second, "in_progress"}, {2 * time.Minute, "completed"}} {
		clk.t = clk.t.Add(step.after)
		if b, _ := c.Batches.Get(context.Background(), id); b.Status != step.want {
			t.Errorf("after %v more: %s, want %s", step.after, b.Status, step.want)
		}
	}
}

func TestOpenAIBatchList(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	file := upload(t, c, chatLine("a", "m", "p"))
	var ids []string
	for range 3 {
		ids = append([]string{createBatch(t, c, file, openai.BatchNewParamsEndpointV1ChatCompletions).ID}, ids...)
	}
	p, err := c.Batches.List(context.Background(), openai.BatchListParams{Limit: openai.Int(2)})
	if err != nil || len(p.Data) != 2 || !p.HasMore || p.Data[0].ID != ids[0] {
		t.Fatalf("first page: %v %s", err, p.RawJSON())
	}
	var all []string
	it := c.Batches.ListAutoPaging(context.Background(), openai.BatchListParams{Limit: openai.Int(2)})
	for it.Next() {
		all = append(all, it.Current().ID)
	}
	if it.Err() != nil || !slices.Equal(all, ids) {
		t.Errorf("all pages: %v %v, want %v", it.Err(), all, ids)
	}
}

func TestOpenAIBatchUnknownIDs(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	ctx := context.Background()
	_, err := c.Batches.Get(ctx, "batch_nope")
	apiError(t, err, 404, "No batch found with id 'batch_nope'.")
	_, err = c.Batches.Cancel(ctx, "batch_nope")
	apiError(t, err, 404, "No batch found with id 'batch_nope'.")
	_, err = c.Files.Content(ctx, "file-nope")
	apiError(t, err, 404, "No such File object: file-nope")

	// A batch of a file that is not there is created, and fails.
	b, _ := poll(t, c, createBatch(t, c, "file-nope", openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if b.Status != openai.BatchStatusFailed || len(b.Errors.Data) != 1 || b.Errors.Data[0].Code != "invalid_request" ||
		b.Errors.Data[0].Param != "file_id" || b.Errors.Data[0].JSON.Line.Valid() ||
		!strings.HasPrefix(b.Errors.Data[0].Message, "Cannot find file file-nope, or organization") {
		t.Errorf("batch: %s", b.RawJSON())
	}
	if len(srv.Violations()) != 4 {
		t.Errorf("violations: %q", srv.Violations())
	}
}

func TestOpenAIFiles(t *testing.T) {
	srv := NewOpenAIConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	ctx := context.Background()

	_, err := c.Files.New(ctx, openai.FileNewParams{File: strings.NewReader(chatLine("a", "m", "p")), Purpose: openai.FilePurposeBatch})
	apiError(t, err, 400, "Invalid file format for Batch API. Must be .jsonl")
	_, err = c.Files.New(ctx, openai.FileNewParams{File: openai.File(strings.NewReader(""), "empty.jsonl", "application/jsonl"), Purpose: openai.FilePurposeBatch})
	apiError(t, err, 400, "Invalid file format for Batch API. Must be .jsonl")
	wrong := oaiBatchClientKey(srv.BaseURL(), "wrong")
	_, err = wrong.Files.New(ctx, openai.FileNewParams{File: openai.File(strings.NewReader("{}"), "x.jsonl", "application/jsonl"), Purpose: openai.FilePurposeBatch})
	apiError(t, err, 401, "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.")

	private, err := c.Files.New(ctx, openai.FileNewParams{File: openai.File(strings.NewReader("notes"), "notes.txt", "text/plain"), Purpose: openai.FilePurposeUserData})
	if err != nil || private.ExpiresAt != 0 {
		t.Fatalf("%v %s", err, private.RawJSON())
	}
	_, err = c.Files.Content(ctx, private.ID)
	apiError(t, err, 400, "Not allowed to download files of purpose: user_data")

	input := upload(t, c, chatLine("a", "m", "p"))
	res, err := c.Files.Content(ctx, input)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(got) != chatLine("a", "m", "p")+"\n" {
		t.Errorf("content %q", got)
	}
	if f, err := c.Files.Get(ctx, input); err != nil || f.Bytes != int64(len(got)) {
		t.Errorf("get: %v %s", err, f.RawJSON())
	}
	p, err := c.Files.List(ctx, openai.FileListParams{Purpose: openai.String("batch")})
	if err != nil || len(p.Data) != 1 || p.Data[0].ID != input {
		t.Errorf("list: %v %s", err, p.RawJSON())
	}
	if d, err := c.Files.Delete(ctx, input); err != nil || !d.Deleted || d.ID != input {
		t.Errorf("delete: %v", err)
	}
	_, err = c.Files.Get(ctx, input)
	apiError(t, err, 404, "No such File object: "+input)
	if got := srv.BatchCounts(); got.Files != 2 {
		t.Errorf("counts %+v", got)
	}
}

func oaiBatchClientKey(url, key string) openai.Client {
	return openai.NewClient(option.WithBaseURL(url), option.WithAPIKey(key), option.WithMaxRetries(0))
}

func TestResponsesBatch(t *testing.T) {
	srv := NewResponsesConversations(answerEach(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	line := func(id, prompt string) string {
		b, _ := json.Marshal(map[string]any{"custom_id": id, "method": "POST", "url": "/v1/responses",
			"body": map[string]any{"model": "gpt-x", "store": false, "input": []any{map[string]any{"role": "user", "content": prompt}}}})
		return string(b)
	}
	b, _ := poll(t, c, createBatch(t, c, upload(t, c, line("a", "pa"), line("b", "pb")), openai.BatchNewParamsEndpointV1Responses).ID)
	if b.Status != openai.BatchStatusCompleted || b.RequestCounts.Completed != 2 {
		t.Fatalf("batch: %s", b.RawJSON())
	}
	for id, l := range fileLines(t, c, b.OutputFileID) {
		var r responses.Response
		if err := json.Unmarshal(l.Response.Body, &r); err != nil || r.OutputText() != "answer to p"+id {
			t.Errorf("%s: %v %s", id, err, l.Response.Body)
		}
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
}
