package engine

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// WithoutUnanswered drops a last question the model never answered, and
// nothing else: not tool results, not the pictures of tool results that
// Chat Completions gets in a user message after them (a run stopped before
// the model saw them).
func TestWithoutUnanswered(t *testing.T) {
	head := `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"run","provider":"openai","model":"m"}
{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"draw"}}
{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"fake_image","arguments":"{}"}}]},"finish_reason":"tool_calls"}
{"type":"message","seq":3,"step":1,"message":{"role":"tool","tool_call_id":"call_1","content":"a red square"},"results":[{"call_id":"call_1","name":"fake_image","exit_code":0,"duration_ms":5,"truncated":false,"is_error":false,"source":"mcp","server":"fake"}]}
`
	images := `{"type":"message","seq":4,"step":1,"message":{"role":"user","content":[{"type":"text","text":"Image 1 of the result of tool call call_1 (fake_image):"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},"images_of":["call_1"]}
`
	answer := `{"type":"message","seq":5,"step":2,"message":{"role":"assistant","content":"A red square."},"finish_reason":"stop"}
`
	question := `{"type":"message","seq":6,"step":2,"message":{"role":"user","content":"and a blue one?"}}
`
	tests := []struct {
		name string
		src  string
		keep int
	}{
		{"tool results last", head, 3},
		{"images last", head + images, 4},
		{"answered", head + images + answer, 5},
		{"a question not answered", head + images + answer + question, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			convs, err := transcript.ReadConversations(strings.NewReader(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(WithoutUnanswered(convs[0]).Messages); got != tt.keep {
				t.Errorf("%d messages kept, want %d", got, tt.keep)
			}
		})
	}
}

// A recording gives its header's settings first, then what its requests
// say: a log of another tool has no header, only messages.
func TestRecordedModel(t *testing.T) {
	read := func(src string) *transcript.Conversation {
		convs, err := transcript.ReadConversations(strings.NewReader(src))
		if err != nil || len(convs) != 1 {
			t.Fatalf("%d conversations, %v", len(convs), err)
		}
		return convs[0]
	}
	withHeader := read(`{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"run","provider":"anthropic","model":"claude-x","system":"Be brief.","temperature":0.5,"max_tokens":900}` + "\n" +
		`{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"Hi."}}` + "\n")
	r := RecordedModel(withHeader)
	if r.Provider != "anthropic" || r.Model != "claude-x" || r.ModelFrom != "the transcript's model" || r.System != "Be brief." ||
		r.Temperature == nil || *r.Temperature != 0.5 || r.MaxTokens != 900 {
		t.Errorf("%+v", r)
	}
	if role := LeadingSystemRole(withHeader); role != "" {
		t.Errorf("role %q, want none", role)
	}
	chatLog := read(`{"model":"gpt-x","messages":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi."}]}` + "\n")
	r = RecordedModel(chatLog)
	if r.Provider != "openai" || r.Model != "gpt-x" || r.ModelFrom != "the request body's model" || r.Temperature != nil {
		t.Errorf("%+v", r)
	}
	if role := LeadingSystemRole(chatLog); role != "system" {
		t.Errorf("role %q, want system", role)
	}
}

// A replay's transcript keeps of the recording's header what the replay
// goes by: its model, address, system prompt, clearing and schema.
func TestReplayHeader(t *testing.T) {
	rec := &transcript.Conversation{Header: &transcript.Header{Command: "run", Provider: "openai", Model: "m", BaseURL: "http://127.0.0.1:9/v1", System: "Be brief.",
		Context: &transcript.ContextPolicy{}, AnswerSchema: &transcript.AnswerSchema{}}}
	h := ReplayHeader(rec, "openai", nil, []string{"tools"}, nil, "v1")
	if h.Command != "replay" || h.Provider != "openai" || h.Model != "m" || h.BaseURL != rec.Header.BaseURL || h.System != "Be brief." ||
		h.Context != rec.Header.Context || h.AnswerSchema != rec.Header.AnswerSchema || h.Agentloop != "v1" || len(h.ToolsDirs) != 1 {
		t.Errorf("%+v", h)
	}
	if h := ReplayHeader(&transcript.Conversation{}, "anthropic", nil, nil, nil, "dev"); h.Model != "" || h.Provider != "anthropic" {
		t.Errorf("a recording without a header: %+v", h)
	}
}
