package fakeapi

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// A batch runs its requests on the provider's time: a script's latency
// does not hold them back, and a step that never answers leaves its
// request unrun (a broken fake hangs here until the test's timeout).
func TestBatchRequestsAreNotHeldBackAndAHangingStepExpires(t *testing.T) {
	srv := NewOpenAIConversations(&Conversations{
		Latency: Duration(time.Hour),
		Steps:   []Step{{Text: text("answer to {{prompt}}")}},
		Prompts: map[string][]Step{"hang": {{Hang: true}}},
	}, "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	b, _ := poll(t, c, createBatch(t, c, upload(t, c, chatLine("a", "m", "a"), chatLine("hang", "m", "hang")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if b.Status != openai.BatchStatusExpired || b.RequestCounts.Completed != 1 {
		t.Errorf("batch: %s", b.RawJSON())
	}
	if l := fileLines(t, c, b.ErrorFileID)["hang"]; l.Error == nil || l.Error.Code != "batch_expired" {
		t.Errorf("hanging request: %+v", l)
	}
}

// A step written for a batch that a live request meets is the script's
// mistake, said as such.
func TestABatchExpiredStepRefusesALiveRequest(t *testing.T) {
	srv := NewOpenAI([]Step{{BatchExpired: true}}, "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "m", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("q")}})
	var e *openai.Error
	if !errors.As(err, &e) || e.StatusCode != 500 {
		t.Fatalf("got %v", err)
	}
	if body := e.DumpResponse(true); !strings.Contains(string(body), "a batch_expired step met a live request") {
		t.Errorf("response: %s", body)
	}
}

// A Conversations script sets the pace of its server's batches.
func TestConversationsScriptSetsTheBatchPace(t *testing.T) {
	conv, err := LoadConversations([]byte(`{"steps": [{"text": "hi"}], "batch": {"polls": 2, "max_requests": 5}}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewOpenAIConversations(conv, "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	_, seen := poll(t, c, createBatch(t, c, upload(t, c, chatLine("a", "m", "a")), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
	if want := []openai.BatchStatus{"validating", "in_progress", "in_progress", "finalizing", "finalizing", "completed"}; !slices.Equal(seen, want) {
		t.Errorf("statuses %v, want %v", seen, want)
	}
}
