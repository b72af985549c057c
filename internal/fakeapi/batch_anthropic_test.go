package fakeapi

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// The Message Batches endpoints driven by the official SDK.

func antBatchClient(url, key string) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(url), option.WithAPIKey(key), option.WithMaxRetries(0))
}

func batchRequest(id, prompt string) anthropic.MessageBatchNewParamsRequest {
	return anthropic.MessageBatchNewParamsRequest{CustomID: id, Params: anthropic.MessageBatchNewParamsRequestParams{
		Model: "claude-x", MaxTokens: 100,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
	}}
}

func newAntBatch(t *testing.T, c anthropic.Client, reqs ...anthropic.MessageBatchNewParamsRequest) *anthropic.MessageBatch {
	t.Helper()
	b, err := c.Messages.Batches.New(context.Background(), anthropic.MessageBatchNewParams{Requests: reqs})
	if err != nil {
		t.Fatal(err)
	}
	if b.ProcessingStatus != anthropic.MessageBatchProcessingStatusInProgress || b.RequestCounts.Processing != int64(len(reqs)) ||
		!b.ExpiresAt.Equal(b.CreatedAt.Add(24*time.Hour)) || b.ResultsURL != "" || !strings.HasPrefix(b.ID, "msgbatch_") {
		t.Errorf("created batch: %s", b.RawJSON())
	}
	return b
}

// pollAnt reads a batch until it ends.
func pollAnt(t *testing.T, c anthropic.Client, id string) *anthropic.MessageBatch {
	t.Helper()
	for range 10 {
		b, err := c.Messages.Batches.Get(context.Background(), id, anthropic.MessageBatchGetParams{})
		if err != nil {
			t.Fatal(err)
		}
		if b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded {
			return b
		}
	}
	t.Fatalf("batch %s did not end", id)
	return nil
}

// results reads a batch's results, by custom_id.
func results(t *testing.T, c anthropic.Client, id string) map[string]anthropic.MessageBatchResultUnion {
	t.Helper()
	s := c.Messages.Batches.ResultsStreaming(context.Background(), id, anthropic.MessageBatchResultsParams{})
	defer s.Close()
	out := map[string]anthropic.MessageBatchResultUnion{}
	for s.Next() {
		out[s.Current().CustomID] = s.Current().Result
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func antAPIError(t *testing.T, err error, status int, typ, message string) {
	t.Helper()
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("want a %d API error, got %v", status, err)
	}
	if e.StatusCode != status || string(e.Type()) != typ || e.Message != message {
		t.Errorf("got %d %s %q, want %d %s %q", e.StatusCode, e.Type(), e.Message, status, typ, message)
	}
}

func TestAnthropicBatchRunsEachRequestOnceThroughTheScript(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	created := newAntBatch(t, c, batchRequest("a", "pa"), batchRequest("b", "pb"))

	s := c.Messages.Batches.ResultsStreaming(context.Background(), created.ID, anthropic.MessageBatchResultsParams{})
	s.Next()
	antAPIError(t, s.Err(), 404, "not_found_error", "Message Batch "+created.ID+" has no available results.")
	s.Close()

	b := pollAnt(t, c, created.ID)
	if n := b.RequestCounts; n.Succeeded != 2 || n.Processing+n.Errored+n.Canceled+n.Expired != 0 ||
		b.EndedAt.IsZero() || b.ResultsURL != srv.BaseURL()+"/v1/messages/batches/"+b.ID+"/results" {
		t.Errorf("ended batch: %s", b.RawJSON())
	}
	got := results(t, c, b.ID)
	for _, id := range []string{"a", "b"} {
		m := got[id].AsSucceeded().Message
		if got[id].Type != "succeeded" || len(m.Content) != 1 || m.Content[0].Text != "answer to p"+id || m.StopReason != "end_turn" {
			t.Errorf("%s: %s", id, got[id].RawJSON())
		}
	}
	pollAnt(t, c, b.ID) // read again: nothing runs again
	if counts := srv.BatchCounts(); counts != (BatchCounts{Batches: 1, Requests: 2, Billed: 2}) {
		t.Errorf("counts %+v", counts)
	}
	if v := srv.Violations(); len(v) != 1 || !strings.HasSuffix(v[0], "results of message batch "+b.ID+" asked for before it ended") || srv.Remaining() != 0 {
		t.Errorf("violations %q; %d steps left", v, srv.Remaining())
	}
}

func TestAnthropicBatchAnswersABrokenRequestWithAnErroredResult(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	bad := batchRequest("bad", "p")
	bad.Params.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewToolResultBlock("toolu_1", "r", false))}
	streamed := batchRequest("streamed", "p")
	streamed.Params.Stream = anthropic.Bool(true)
	b := pollAnt(t, c, newAntBatch(t, c, batchRequest("good", "p"), bad, streamed).ID)

	if b.RequestCounts.Succeeded != 1 || b.RequestCounts.Errored != 2 {
		t.Errorf("batch: %s", b.RawJSON())
	}
	got := results(t, c, b.ID)
	const msg = "messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
	for id, want := range map[string]string{"bad": msg, "streamed": `"stream=True" is not supported in the Message Batches API`} {
		e := got[id].AsErrored().Error
		if got[id].Type != "errored" || e.Error.Type != "invalid_request_error" || e.Error.Message != want || e.Type != "error" {
			t.Errorf("%s: %s", id, got[id].RawJSON())
		}
	}
	v := srv.Violations()
	if len(v) != 2 || !strings.HasPrefix(v[0], "message batch "+b.ID+", request bad (1): "+msg) {
		t.Errorf("violations: %q", v)
	}
	if counts := srv.BatchCounts(); counts.Requests != 2 || counts.Billed != 1 {
		t.Errorf("counts %+v", counts)
	}
}

func TestAnthropicBatchCreationRefusesWhatTheAPIRefuses(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	tests := []struct {
		reqs []anthropic.MessageBatchNewParamsRequest
		want string
	}{
		{[]anthropic.MessageBatchNewParamsRequest{}, "requests: List should have at least 1 item after validation, not 0"},
		{nil, "requests: Input should be a valid list"},
		{[]anthropic.MessageBatchNewParamsRequest{batchRequest("a", "p"), batchRequest("item:1", "p")},
			"requests.1.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"},
		{[]anthropic.MessageBatchNewParamsRequest{batchRequest(strings.Repeat("x", 65), "p")},
			"requests.0.custom_id: String should have at most 64 characters"},
		{[]anthropic.MessageBatchNewParamsRequest{batchRequest("dup", "p"), batchRequest("dup", "q")},
			"requests: custom_id's must be unique within a batch. Duplicate custom_id found: dup"},
	}
	for _, tt := range tests {
		_, err := c.Messages.Batches.New(context.Background(), anthropic.MessageBatchNewParams{Requests: tt.reqs},
			option.WithJSONSet("requests", tt.reqs)) // an empty list too, which the SDK would leave out
		antAPIError(t, err, 400, "invalid_request_error", tt.want)
	}
	wrong := antBatchClient(srv.BaseURL(), "wrong")
	_, err := wrong.Messages.Batches.New(context.Background(),
		anthropic.MessageBatchNewParams{Requests: []anthropic.MessageBatchNewParamsRequest{batchRequest("a", "p")}})
	antAPIError(t, err, 401, "authentication_error", "invalid x-api-key")
	if counts := srv.BatchCounts(); counts.Batches != 0 {
		t.Errorf("%d batches created", counts.Batches)
	}
}

func TestAnthropicBatchCancel(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	ctx := context.Background()
	created := newAntBatch(t, c, batchRequest("a", "1"), batchRequest("b", "2"))
	b, err := c.Messages.Batches.Cancel(ctx, created.ID, anthropic.MessageBatchCancelParams{})
	if err != nil || b.ProcessingStatus != anthropic.MessageBatchProcessingStatusCanceling || b.CancelInitiatedAt.IsZero() {
		t.Fatalf("cancel: %v %s", err, b.RawJSON())
	}
	b = pollAnt(t, c, created.ID)
	if b.RequestCounts.Canceled != 2 {
		t.Errorf("batch: %s", b.RawJSON())
	}
	for id, r := range results(t, c, b.ID) {
		if r.Type != "canceled" {
			t.Errorf("%s: %s", id, r.RawJSON())
		}
	}
	_, err = c.Messages.Batches.Cancel(ctx, created.ID, anthropic.MessageBatchCancelParams{})
	antAPIError(t, err, 400, "invalid_request_error", "Message Batch "+created.ID+" has already ended and cannot be canceled.")
	if counts := srv.BatchCounts(); counts.Requests != 0 || srv.Remaining() != 0 {
		t.Errorf("counts %+v", counts)
	}
}

func TestAnthropicBatchExpires(t *testing.T) {
	srv := NewAnthropicConversations(&Conversations{
		Steps:   []Step{{Text: text("answer to {{prompt}}")}},
		Prompts: map[string][]Step{"slow": {{BatchExpired: true}, {Text: text("late answer")}}},
	}, "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	b := pollAnt(t, c, newAntBatch(t, c, batchRequest("fast", "fast"), batchRequest("slow", "slow")).ID)
	got := results(t, c, b.ID)
	if b.RequestCounts.Succeeded != 1 || b.RequestCounts.Expired != 1 || got["slow"].Type != "expired" || got["fast"].Type != "succeeded" {
		t.Errorf("batch: %s", b.RawJSON())
	}
	// Submitted again, the request is answered by the next step.
	b = pollAnt(t, c, newAntBatch(t, c, batchRequest("slow", "slow")).ID)
	if r := results(t, c, b.ID)["slow"]; r.AsSucceeded().Message.Content[0].Text != "late answer" {
		t.Errorf("resubmitted: %s", r.RawJSON())
	}

	// A batch read again only after its window has closed: what had not run expired.
	clk := &clock{time.Unix(1_700_000_000, 0)}
	srv.SetBatchPace(BatchPace{Polls: -1, Now: clk.now})
	id := newAntBatch(t, c, batchRequest("late", "late")).ID
	clk.t = clk.t.Add(24 * time.Hour)
	b = pollAnt(t, c, id)
	if b.RequestCounts.Expired != 1 || !b.EndedAt.Equal(clk.t) || results(t, c, id)["late"].Type != "expired" {
		t.Errorf("batch: %s", b.RawJSON())
	}
	if counts := srv.BatchCounts(); counts.Requests != 2 || counts.Billed != 2 {
		t.Errorf("counts %+v", counts)
	}
	if err := srv.Check(); err != nil || srv.Remaining() != 0 {
		t.Errorf("%v; %d steps left", err, srv.Remaining())
	}
}

func TestAnthropicBatchDeleteListAndUnknownIDs(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		ids = append([]string{newAntBatch(t, c, batchRequest("a", string(rune('x'+i)))).ID}, ids...)
	}
	p, err := c.Messages.Batches.List(ctx, anthropic.MessageBatchListParams{Limit: anthropic.Int(2)})
	if err != nil || len(p.Data) != 2 || !p.HasMore || p.FirstID != ids[0] || p.LastID != ids[1] {
		t.Fatalf("first page: %v %s", err, p.RawJSON())
	}
	var all []string
	it := c.Messages.Batches.ListAutoPaging(ctx, anthropic.MessageBatchListParams{Limit: anthropic.Int(2)})
	for it.Next() {
		all = append(all, it.Current().ID)
	}
	if it.Err() != nil || !slices.Equal(all, ids) {
		t.Errorf("all pages: %v %v, want %v", it.Err(), all, ids)
	}

	_, err = c.Messages.Batches.Delete(ctx, ids[0], anthropic.MessageBatchDeleteParams{})
	antAPIError(t, err, 400, "invalid_request_error", "In progress batches cannot be deleted. Consider canceling the batch instead.")
	pollAnt(t, c, ids[0])
	d, err := c.Messages.Batches.Delete(ctx, ids[0], anthropic.MessageBatchDeleteParams{})
	if err != nil || d.ID != ids[0] || d.Type != "message_batch_deleted" {
		t.Fatalf("delete: %v", err)
	}
	_, err = c.Messages.Batches.Get(ctx, ids[0], anthropic.MessageBatchGetParams{})
	antAPIError(t, err, 404, "not_found_error", "Message Batch "+ids[0]+" not found.")
	_, err = c.Messages.Batches.Cancel(ctx, "msgbatch_nope", anthropic.MessageBatchCancelParams{})
	antAPIError(t, err, 404, "not_found_error", "Message Batch msgbatch_nope not found.")
	if len(srv.Violations()) != 3 {
		t.Errorf("violations: %q", srv.Violations())
	}
}

func TestAnthropicBatchWantsTheVersionHeader(t *testing.T) {
	srv := NewAnthropicConversations(answerEach(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	_, err := c.Messages.Batches.List(context.Background(), anthropic.MessageBatchListParams{}, option.WithHeaderDel("anthropic-version"))
	antAPIError(t, err, 400, "invalid_request_error", "anthropic-version: header is required")
}
