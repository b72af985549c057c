package cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/batch"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// TestBatchItemProviders: an item's model picks its provider, and that
// provider's base URL and key, as --model does: one batch speaks Chat
// Completions for one item and the Messages API for the other.
func TestBatchItemProviders(t *testing.T) {
	steps := func() *fakeapi.Conversations {
		c, err := fakeapi.LoadConversations([]byte(`{"steps": [{"text": "answer to {{prompt}}"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	oai := fakeapi.NewOpenAIConversations(steps(), "sk-oai")
	defer oai.Close()
	ant := fakeapi.NewAnthropicConversations(steps(), "sk-ant")
	defer ant.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"id": "chat", "prompt": "chat"}
{"id": "claude", "prompt": "claude", "model": "claude-sonnet-4-5"}
`), 0o600)
	env := map[string]string{
		"OPENAI_API_KEY": "sk-oai", "OPENAI_BASE_URL": oai.BaseURL(),
		"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": ant.BaseURL(),
	}
	ios, _, _, errOut := iostreams.Test()
	ios.SetEnv(func(k string) string { return env[k] })
	out := filepath.Join(dir, "out")
	if code := Execute(context.Background(), ios, []string{"batch", in, "-d", out, "--tools-dir", t.TempDir()}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, s := range []interface{ Check() error }{oai, ant} {
		if err := s.Check(); err != nil {
			t.Error(err)
		}
	}
	if len(oai.Requests()) != 1 || len(ant.Requests()) != 1 {
		t.Errorf("requests: %d to Chat Completions, %d to Messages; want one each", len(oai.Requests()), len(ant.Requests()))
	}
	results, _, err := batch.ReadResults(filepath.Join(out, batch.ResultsName))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range results {
		got[r.ID] = r.Provider + " " + r.Model + " " + r.Answer
	}
	for id, want := range map[string]string{"chat": "openai gpt-4o-mini answer to chat", "claude": "anthropic claude-sonnet-4-5 answer to claude"} {
		if !strings.HasPrefix(got[id], want) {
			t.Errorf("%s: %q, want %q", id, got[id], want)
		}
	}
}
