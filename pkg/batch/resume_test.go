package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

const (
	hdr     = `{"type":"header","version":1,"id":"t1","time":"2026-01-01T00:00:00Z","provider":"openai","model":"m"}`
	prompt  = `{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`
	calls   = `{"type":"message","seq":2,"step":1,"time":"2026-01-01T00:00:01Z","message":{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"t","arguments":"{}"}}]}}`
	res1    = `{"type":"message","seq":3,"step":1,"time":"2026-01-01T00:00:01Z","message":{"role":"tool","tool_call_id":"c1","content":"ok"}}`
	answer  = `{"type":"message","seq":4,"step":2,"time":"2026-01-01T00:00:02Z","message":{"role":"assistant","content":"the answer"}}`
	endStop = `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"stop","steps":2,"usage":{"input_tokens":10,"output_tokens":5}}`
	endInt  = `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"interrupted","error":"interrupted","steps":1,"usage":{"input_tokens":10,"output_tokens":5}}`
	endErr  = `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"error","error":"openai: 500 Internal Server Error: down","steps":1,"usage":{"input_tokens":10,"output_tokens":5}}`
)

func conv(t *testing.T, lines ...string) *transcript.Conversation {
	t.Helper()
	convs, err := transcript.ReadConversations(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return convs[0]
}

func TestStageOf(t *testing.T) {
	d := agent.OpenAIDialect{}
	tests := []struct {
		name  string
		lines []string
		want  Stage
	}{
		{"the prompt alone", []string{hdr, prompt}, Unstarted},
		{"interrupted before the model answered", []string{hdr, prompt, `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"interrupted","steps":0,"usage":{"input_tokens":0,"output_tokens":0}}`}, Unstarted},
		{"killed with calls pending", []string{hdr, prompt, calls}, Stopped},
		{"killed after the results", []string{hdr, prompt, calls, res1}, Stopped},
		{"interrupted", []string{hdr, prompt, calls, endInt}, Stopped},
		{"answered", []string{hdr, prompt, calls, res1, answer, endStop}, Ended},
		{"answered, killed before the end record", []string{hdr, prompt, calls, res1, answer}, Ended},
		{"failed", []string{hdr, prompt, calls, res1, endErr}, Ended},
	}
	for _, tt := range tests {
		if got := StageOf(conv(t, tt.lines...), d); got != tt.want {
			t.Errorf("%s: stage %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFromTranscript(t *testing.T) {
	d := agent.OpenAIDialect{}
	r := FromTranscript(conv(t, hdr, prompt, calls, res1, answer, endStop), d)
	if r.Answer != "the answer" || r.Reason != "stop" || r.Steps != 2 || r.Usage.OutputTokens != 5 || r.DurationMS != 3000 || r.Model != "m" || r.Provider != "openai" {
		t.Errorf("answered: %+v", r)
	}
	// Killed between the answer and the end record: the answer, the
	// steps and the tokens are read from the messages.
	calls2 := strings.Replace(calls, `"message":`, `"usage":{"input_tokens":7,"output_tokens":2},"message":`, 1)
	answer2 := strings.Replace(answer, `"message":`, `"usage":{"input_tokens":9,"output_tokens":3},"message":`, 1)
	r = FromTranscript(conv(t, hdr, prompt, calls2, res1, answer2), d)
	if r.Answer != "the answer" || r.Reason != "stop" || r.Steps != 2 || r.Usage.InputTokens != 16 || r.Usage.OutputTokens != 5 || r.DurationMS != 2000 {
		t.Errorf("answered without an end record: %+v", r)
	}
	r = FromTranscript(conv(t, hdr, prompt, calls, res1, endErr), d)
	if r.Answer != "" || r.Reason != "error" || !strings.Contains(r.Error, "500") {
		t.Errorf("failed: %+v", r)
	}
	// A budget spent: the forced last answer and the recorded cost are
	// the result's; a budget spent on calls leaves no answer.
	endBudget := `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"budget","steps":2,"usage":{"input_tokens":10,"output_tokens":5},"cost_usd":0.25}`
	r = FromTranscript(conv(t, hdr, prompt, calls, res1, answer, endBudget), d)
	if r.Answer != "the answer" || r.Reason != "budget" || r.Cost == nil || *r.Cost != 0.25 {
		t.Errorf("budget spent with an answer: %+v", r)
	}
	endSteps := `{"type":"end","time":"2026-01-01T00:00:03Z","reason":"max_steps","steps":1,"usage":{"input_tokens":10,"output_tokens":5}}`
	r = FromTranscript(conv(t, hdr, prompt, calls, res1, endSteps), d)
	if r.Answer != "" || r.Reason != "max_steps" || r.Cost != nil {
		t.Errorf("steps spent on calls: %+v", r)
	}
}

func TestSamePrompt(t *testing.T) {
	c := conv(t, hdr, prompt, calls)
	d := agent.OpenAIDialect{}
	if !SamePrompt(c, d.UserMessage("hi")) {
		t.Error("the same prompt differs")
	}
	if SamePrompt(c, d.UserMessage("hi there")) {
		t.Error("another prompt is the same")
	}
	// A transcript on disk, read back, compares the same.
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := transcript.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(transcript.Header{Provider: "openai", Model: "m"})
	w.WriteMessage(transcript.Message{Message: d.UserMessage("a \"quoted\" <prompt> & more")})
	w.Close()
	f, _ := os.Open(path)
	defer f.Close()
	convs, err := transcript.ReadConversations(f)
	if err != nil || !SamePrompt(convs[0], d.UserMessage("a \"quoted\" <prompt> & more")) {
		t.Errorf("read back: %v", err)
	}
}

func TestOtherPrompts(t *testing.T) {
	dir := t.TempDir()
	write := func(id string, lines ...string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, FileName(id)+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	antHdr := `{"type":"header","version":1,"id":"t2","time":"2026-01-01T00:00:00Z","provider":"anthropic","model":"claude-x"}`
	antPrompt := `{"type":"message","seq":1,"step":0,"time":"2026-01-01T00:00:00Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	write("same", hdr, prompt, answer, endStop)
	write("other", hdr, prompt, answer, endStop)
	write("ant", antHdr, antPrompt, endStop)
	write("empty", hdr)
	items := []Item{
		{ID: "same", Line: 1, Prompt: "hi"},
		{ID: "other", Line: 2, Prompt: "bye"},
		{ID: "ant", Line: 3, Prompt: "hi"},
		{ID: "empty", Line: 4, Prompt: "hi"},
		{ID: "gone", Line: 5, Prompt: "hi"},
		{ID: "running", Line: 6, Prompt: "bye"},
	}
	var finished []Result
	for _, it := range items[:5] {
		finished = append(finished, Result{ID: it.ID, Reason: "stop"})
	}
	probs := OtherPrompts(dir, items, finished, func(it Item) string { return it.Prompt })
	if len(probs) != 1 || probs[0].Line != 2 || !strings.Contains(probs[0].Msg, `item "other" finished in `+dir+" with another prompt") {
		t.Errorf("problems: %+v", probs)
	}
	// The prompt compared is the one the item sends, its context included.
	probs = OtherPrompts(dir, items[:1], finished, func(it Item) string { return it.Prompt + "\n\nmore" })
	if len(probs) != 1 || probs[0].Line != 1 {
		t.Errorf("with context: %+v", probs)
	}
}
