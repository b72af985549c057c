package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
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

// toolThenAnswer is a conversation of two turns: a call, then an answer
// that expects the call's result.
func toolThenAnswer() *Conversations {
	return &Conversations{Steps: []Step{
		{ToolCalls: []ToolCall{{ID: "call_1", Name: "f", Arguments: `{"q":"{{prompt}}"}`}}},
		{Text: text("done {{prompt}}"), Expect: &Expect{Results: map[string]string{"call_1": "42"}}},
	}}
}

// A tool-calling conversation goes through batches one turn a batch,
// played by the same script a live run plays, held to the same
// continuity: each request carries the turn before it as returned.
func TestAConversationGoesThroughBatchesTurnByTurn(t *testing.T) {
	srv := NewOpenAIConversations(toolThenAnswer(), "k")
	defer srv.Close()
	c := oaiBatchClient(srv.BaseURL())
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "f",
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}}}}}
	convs := map[string][]any{}
	for _, id := range []string{"x", "y"} {
		convs[id] = []any{map[string]any{"role": "user", "content": "prompt " + id}}
	}
	round := func() map[string]openai.ChatCompletion {
		var lines []string
		for _, id := range []string{"x", "y"} {
			b, _ := json.Marshal(map[string]any{"custom_id": id, "method": "POST", "url": "/v1/chat/completions",
				"body": map[string]any{"model": "m", "messages": convs[id], "tools": tools}})
			lines = append(lines, string(b))
		}
		b, _ := poll(t, c, createBatch(t, c, upload(t, c, lines...), openai.BatchNewParamsEndpointV1ChatCompletions).ID)
		got := map[string]openai.ChatCompletion{}
		for id, l := range fileLines(t, c, b.OutputFileID) {
			var cc openai.ChatCompletion
			if err := json.Unmarshal(l.Response.Body, &cc); err != nil {
				t.Fatal(err)
			}
			got[id] = cc
			convs[id] = append(convs[id], json.RawMessage(cc.Choices[0].Message.RawJSON()))
		}
		return got
	}
	for id, cc := range round() {
		call := cc.Choices[0].Message.ToolCalls
		if len(call) != 1 || call[0].Function.Arguments != `{"q":"prompt `+id+`"}` {
			t.Fatalf("%s: %s", id, cc.RawJSON())
		}
		convs[id] = append(convs[id], map[string]any{"role": "tool", "tool_call_id": call[0].ID, "content": "42"})
	}
	for id, cc := range round() {
		if cc.Choices[0].Message.Content != "done prompt "+id {
			t.Errorf("%s: %s", id, cc.RawJSON())
		}
	}
	if err := srv.Check(); err != nil || srv.Remaining() != 0 {
		t.Errorf("%v; %d steps left", err, srv.Remaining())
	}
	if got := srv.BatchCounts(); got != (BatchCounts{Files: 2, Batches: 2, Requests: 4, Billed: 4}) {
		t.Errorf("counts %+v", got)
	}
}

func TestAnAnthropicConversationGoesThroughBatchesTurnByTurn(t *testing.T) {
	srv := NewAnthropicConversations(toolThenAnswer(), "k")
	defer srv.Close()
	c := antBatchClient(srv.BaseURL(), "k")
	tool := anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: "f", InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"q": map[string]any{"type": "string"}}}}}
	convs := map[string][]anthropic.MessageParam{}
	for _, id := range []string{"x", "y"} {
		convs[id] = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("prompt " + id))}
	}
	round := func() map[string]anthropic.Message {
		var reqs []anthropic.MessageBatchNewParamsRequest
		for _, id := range []string{"x", "y"} {
			reqs = append(reqs, anthropic.MessageBatchNewParamsRequest{CustomID: id, Params: anthropic.MessageBatchNewParamsRequestParams{
				Model: "claude-x", MaxTokens: 100, Messages: convs[id], Tools: []anthropic.ToolUnionParam{tool}}})
		}
		b := pollAnt(t, c, newAntBatch(t, c, reqs...).ID)
		got := map[string]anthropic.Message{}
		for id, r := range results(t, c, b.ID) {
			m := r.AsSucceeded().Message
			got[id] = m
			convs[id] = append(convs[id], m.ToParam())
		}
		return got
	}
	for id, m := range round() {
		if len(m.Content) != 1 || m.Content[0].Type != "tool_use" || string(m.Content[0].Input) != `{"q":"prompt `+id+`"}` {
			t.Fatalf("%s: %s", id, m.RawJSON())
		}
		convs[id] = append(convs[id], anthropic.NewUserMessage(anthropic.NewToolResultBlock(m.Content[0].ID, "42", false)))
	}
	for id, m := range round() {
		if m.Content[0].Text != "done prompt "+id {
			t.Errorf("%s: %s", id, m.RawJSON())
		}
	}
	if err := srv.Check(); err != nil || srv.Remaining() != 0 {
		t.Errorf("%v; %d steps left", err, srv.Remaining())
	}
}
