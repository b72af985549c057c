package engine

import (
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// A batch item goes on from what an earlier run of it left: nothing, a
// prompt no model answered, a run that stopped mid-way, or one that ended
// (run again only when it failed and failed items are being run again).
func TestItemPlan(t *testing.T) {
	const (
		header   = `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"batch","provider":"openai","model":"m"}` + "\n"
		prompt   = `{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"Look."}}` + "\n"
		call     = `{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"look","arguments":"{}"}}]},"finish_reason":"tool_calls"}` + "\n"
		result   = `{"type":"message","seq":3,"step":1,"message":{"role":"tool","tool_call_id":"call_1","content":"looked"}}` + "\n"
		answer   = `{"type":"message","seq":4,"step":2,"message":{"role":"assistant","content":"It looked."},"finish_reason":"stop"}` + "\n"
		stopped  = `{"type":"end","time":"2026-03-01T10:00:01Z","reason":"stop","steps":2}` + "\n"
		errorEnd = `{"type":"end","time":"2026-03-01T10:00:01Z","reason":"error","error":"openai: 500 Internal Server Error","steps":1}` + "\n"
	)
	read := func(src string) *transcript.Conversation {
		convs, err := transcript.ReadConversations(strings.NewReader(src))
		if err != nil || len(convs) != 1 {
			t.Fatalf("%d conversations, %v", len(convs), err)
		}
		return convs[0]
	}
	tests := []struct {
		name     string
		src      string // "" for no transcript
		prompt   string
		provider string
		retrying bool
		want     ItemStart
		err      string
	}{
		{name: "nothing on record", want: ItemFresh},
		{name: "only the prompt", src: header + prompt, want: ItemAgain},
		{name: "stopped mid-way", src: header + prompt + call, want: ItemResume},
		{name: "stopped after a result", src: header + prompt + call + result, want: ItemResume},
		{name: "ended, its result not written", src: header + prompt + call + result + answer + stopped, want: ItemEnded},
		{name: "failed, not run again", src: header + prompt + call + result + errorEnd, want: ItemEnded},
		{name: "failed, run again", src: header + prompt + call + result + errorEnd, retrying: true, want: ItemResume},
		{name: "answered, retrying failed ones", src: header + prompt + call + result + answer + stopped, retrying: true, want: ItemEnded},
		{name: "another prompt", src: header + prompt + call, prompt: "Look again.", err: "holds a conversation with another prompt"},
		{name: "another provider", src: header + prompt + call, provider: "anthropic", err: "in the openai shape; it cannot go on with the anthropic provider"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var conv *transcript.Conversation
			if tt.src != "" {
				conv = read(tt.src)
			}
			if tt.prompt == "" {
				tt.prompt = "Look."
			}
			if tt.provider == "" {
				tt.provider = "openai"
			}
			got, err := ItemPlan(conv, "item.jsonl", tt.prompt, tt.provider, tt.retrying)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "item.jsonl") {
					t.Errorf("got %v, want an error naming item.jsonl: %s", err, tt.err)
				}
			case err != nil:
				t.Fatal(err)
			case got != tt.want:
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}
