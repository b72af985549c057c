package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
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

func TestItemPrompt(t *testing.T) {
	if got := ItemPrompt(batch.Item{Prompt: "review", Stdin: "  a ``` b \n"}); got != "review\n\n````\na ``` b\n````" {
		t.Errorf("%q", got)
	}
	if got := ItemPrompt(batch.Item{Prompt: "just this", Stdin: " \n"}); got != "just this" {
		t.Errorf("%q", got)
	}
}

// An item with a schema says whether its answer matched, and the value
// when it did; one without says nothing.
func TestItemAnswerJSON(t *testing.T) {
	loop := &agent.Loop{}
	if v, ok := ItemAnswerJSON(loop, &agent.Outcome{}); v != nil || ok != nil {
		t.Errorf("no schema: %s, %v", v, ok)
	}
	loop.Answer = &agent.AnswerSpec{}
	if v, ok := ItemAnswerJSON(loop, &agent.Outcome{}); v != nil || ok == nil || *ok {
		t.Errorf("unchecked: %s, %v", v, ok)
	}
	out := &agent.Outcome{Checked: &agent.AnswerCheck{OK: true, JSON: []byte(`{"a":1}`)}}
	if v, ok := ItemAnswerJSON(loop, out); string(v) != `{"a":1}` || ok == nil || !*ok {
		t.Errorf("matched: %s, %v", v, ok)
	}
}

func TestFileSystemError(t *testing.T) {
	_, err := os.Open(filepath.Join(t.TempDir(), "absent"))
	if !FileSystemError(fmt.Errorf("transcript: %w", err)) {
		t.Errorf("%v: not a file system error", err)
	}
	if FileSystemError(errors.New("a budget without a price")) {
		t.Error("a plain error taken for a file system error")
	}
}

func TestItemBudgetError(t *testing.T) {
	if got := ItemBudgetError(1, 1, 7); got != "step budget exhausted after 1 step (max_steps 1 on input line 7)" {
		t.Errorf("%q", got)
	}
}

// An item's result holds what its loop ended with: the answer redacted,
// and with a discount, the cost paid and the one a live run would have.
func TestSetOutcome(t *testing.T) {
	p, err := openai.NewChat(openai.Config{APIKey: "k", BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o-mini"})
	if err != nil {
		t.Fatal(err)
	}
	loop := &agent.Loop{Provider: p}
	out := &agent.Outcome{Reason: wire.ReasonStop, Steps: 2, Answer: "the key is sk-1", Cost: 0.25, CostKnown: true}
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-1", "[redacted]") }
	var res batch.Result
	SetOutcome(&res, loop, out, 0.5, redact)
	if res.Reason != wire.ReasonStop || res.Steps != 2 || res.Answer != "the key is [redacted]" || res.Provider != "openai" || res.Model != "gpt-4o-mini" {
		t.Errorf("%+v", res)
	}
	if res.Cost == nil || *res.Cost != 0.25 || res.CostLive == nil || *res.CostLive != 0.5 {
		t.Errorf("cost %v, live %v", res.Cost, res.CostLive)
	}
	res = batch.Result{}
	SetOutcome(&res, loop, out, -1, redact)
	if res.CostLive != nil || res.AnswerJSON != nil || res.SchemaOK != nil {
		t.Errorf("live run: %+v", res)
	}
}

// The result of an item whose run ended is its transcript's, in the
// item's place, one attempt past the earlier ones.
func TestEndedResult(t *testing.T) {
	const src = `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"batch","provider":"openai","model":"m"}` + "\n" +
		`{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"Look."}}` + "\n" +
		`{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":"Looked."},"finish_reason":"stop"}` + "\n" +
		`{"type":"end","time":"2026-03-01T10:00:01Z","reason":"stop","steps":1}` + "\n"
	convs, err := transcript.ReadConversations(strings.NewReader(src))
	if err != nil || len(convs) != 1 {
		t.Fatal(err)
	}
	r := EndedResult(convs[0], batch.Result{ID: "a", Line: 3, Transcript: "a.jsonl"}, 1)
	if r.ID != "a" || r.Line != 3 || r.Transcript != "a.jsonl" || r.Attempts != 2 || r.Reason != wire.ReasonStop || r.Answer != "Looked." {
		t.Errorf("%+v", r)
	}
}

// An item is made ready to run from what its earlier run left: nothing,
// an empty transcript (removed), one that ended (kept, nothing to run),
// a prompt no model answered (set aside, run again), or a run stopped
// mid-way (set aside and gone on from, when its tools are there).
func TestRestartItem(t *testing.T) {
	const (
		header  = `{"type":"header","version":1,"id":"i","time":"2026-03-01T10:00:00Z","command":"batch","provider":"openai","model":"m"}` + "\n"
		prompt  = `{"type":"message","seq":1,"step":0,"message":{"role":"user","content":"Look."}}` + "\n"
		call    = `{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"look","arguments":"{}"}}]},"finish_reason":"tool_calls"}` + "\n"
		answer  = `{"type":"message","seq":2,"step":1,"message":{"role":"assistant","content":"It looked."},"finish_reason":"stop"}` + "\n"
		stopped = `{"type":"end","time":"2026-03-01T10:00:01Z","reason":"stop","steps":1}` + "\n"
	)
	tests := []struct {
		name, transcript string
		refuse           bool
		want             ItemStart
		aside, kept      bool
		fails            bool
	}{
		{name: "nothing", want: ItemFresh},
		{name: "empty", transcript: header, want: ItemFresh},
		{name: "ended", transcript: header + prompt + answer + stopped, want: ItemEnded, kept: true},
		{name: "unanswered", transcript: header + prompt, want: ItemAgain, aside: true},
		{name: "mid-way", transcript: header + prompt + call, want: ItemResume, aside: true},
		{name: "mid-way without its tools", transcript: header + prompt + call, refuse: true, kept: true, fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := t.TempDir()
			if tt.transcript != "" {
				if err := os.WriteFile(filepath.Join(path, "a.jsonl"), []byte(tt.transcript), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dir, _, _, err := batch.OpenDir(path)
			if err != nil {
				t.Fatal(err)
			}
			defer dir.Close()
			asked := false
			rs, err := RestartItem(dir, "a", "Look.", "openai", false, strings.NewReader(""), io.Discard, func(*transcript.Conversation) error {
				asked = true
				if tt.refuse {
					return errors.New("the tool look is not there")
				}
				return nil
			})
			if (err != nil) != tt.fails {
				t.Fatalf("%+v, %v", rs, err)
			}
			if !tt.fails && rs.How != tt.want {
				t.Errorf("how %v, want %v", rs.How, tt.want)
			}
			if asked != (tt.want == ItemResume || tt.refuse) {
				t.Errorf("tools checked: %v", asked)
			}
			if (rs.Aside != "") != tt.aside {
				t.Errorf("set aside at %q", rs.Aside)
			}
			_, statErr := os.Stat(filepath.Join(path, "a.jsonl"))
			if kept := statErr == nil; kept != tt.kept {
				t.Errorf("transcript kept: %v", kept)
			}
			if tt.aside {
				if _, err := os.Stat(rs.Aside); err != nil {
					t.Errorf("the attempt set aside: %v", err)
				}
			}
		})
	}
}
