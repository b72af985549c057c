package agent_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// A conversation continued with a new question: the calls its last turn
// left pending are answered first, as a resume answers them (the one that
// finished with its recorded result, the other run), and the question
// comes after them, recorded at the step the conversation had reached.
func TestContinueAnswersPendingCallsThenAsks(t *testing.T) {
	for _, shape := range []string{"openai", "anthropic"} {
		t.Run(shape, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := []fakeapi.ToolCall{
				{ID: "call_wait", Name: "wait", Arguments: `{}`},
				{ID: "call_mark", Name: "mark", Arguments: `{}`},
			}
			p, srv := fakeProvider(t, shape, []fakeapi.Step{{ToolCalls: calls}})
			var buf bytes.Buffer
			w := transcript.NewWriter(&buf, nil)
			_ = w.WriteHeader(transcript.Header{Provider: shape, Model: "m"})
			if _, err := (&agent.Loop{Provider: p, Tools: &slowAndMark{interrupt: cancel}, Transcript: w, ToolDefs: defsOf(t, p, "wait", "mark")}).Prompt(ctx, "wait, and mark"); err == nil {
				t.Fatal("the first run was not interrupted")
			}
			srv.Close()
			convs, err := transcript.ReadConversations(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			conv := convs[0]

			expect := &fakeapi.Expect{Results: map[string]string{"call_wait": "waited", "call_mark": "marked"}, Contains: []string{"and then?"}}
			p2, srv2 := fakeProvider(t, shape, []fakeapi.Step{{Text: text("Then this."), Expect: expect}})
			ex := &slowAndMark{released: true}
			var buf2 bytes.Buffer
			w2 := transcript.NewWriter(&buf2, nil)
			_ = w2.WriteHeader(transcript.Header{Provider: shape, Model: "m"})
			for _, m := range conv.Messages {
				_ = w2.WriteMessage(m)
			}
			st := agent.State{Messages: messagesOf(conv), Finished: agent.FinishedFromRecords(conv.Finished), Steps: 1, Prompt: "and then?"}
			out, err := (&agent.Loop{Provider: p2, Tools: ex, Transcript: w2, ToolDefs: defsOf(t, p2, "wait", "mark")}).Run(context.Background(), st)
			if err != nil || out.Answer != "Then this." || out.Steps != 2 {
				t.Fatalf("continue: %v, %+v", err, out)
			}
			if err := srv2.Check(); err != nil {
				t.Error(err)
			}
			if got := ex.calls(); !slices.Equal(got, []string{"call_wait"}) || ex.marks != 0 {
				t.Errorf("ran %v (%d marks), want only call_wait", got, ex.marks)
			}
			// The question is the message after the results.
			var roles []string
			var asked *transcript.Message
			for _, r := range records(t, buf2.Bytes()) {
				if r.Message == nil {
					continue
				}
				role, text := transcript.MessageText(r.Message.Message)
				roles = append(roles, role)
				if text == "and then?" {
					asked = r.Message
				}
			}
			want := []string{"user", "assistant", "tool", "tool", "user", "assistant"}
			var codes []string
			if shape == "anthropic" {
				// The results and the question are two user messages in a
				// row; the API merges them into one turn.
				want = []string{"user", "assistant", "user", "user", "assistant"}
				codes = []string{"role-order"}
			}
			if !slices.Equal(roles, want) || asked == nil || asked.Step != 1 {
				t.Fatalf("messages %v (question %+v), want %v", roles, asked, want)
			}
			validate(t, buf2.Bytes(), transcript.Options{}, codes)
		})
	}
}

// A new conversation is a prompt with nothing before it.
func TestPromptIsRunWithAPromptAlone(t *testing.T) {
	p, srv := fakeProvider(t, "openai", []fakeapi.Step{{Text: text("hi"), Expect: &fakeapi.Expect{Messages: 1, Contains: []string{"hello"}}}})
	defer srv.Close()
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	_ = w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"})
	out, err := (&agent.Loop{Provider: p, Tools: &slowAndMark{}, Transcript: w}).Run(context.Background(), agent.State{Prompt: "hello"})
	if err != nil || out.Answer != "hi" || len(out.Messages) != 2 {
		t.Fatalf("%v %+v", err, out)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	validate(t, buf.Bytes(), transcript.Options{}, nil)
}
