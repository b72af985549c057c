package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/internal/toolset/toolsettest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

const key = "sk-test-engine"

func strp(s string) *string { return &s }

// lookTool loads a folder with one tool, look, that prints "looked".
func lookTool(t *testing.T) (*toolset.Set, string) {
	t.Helper()
	return toolsettest.Folder(t, map[string]string{
		"look.yaml": "name: look\ndescription: looks\nparameters: {}\nrun: look.sh\n",
		"look.sh":   "#!/bin/sh\necho looked\n",
	})
}

// settings are those of a run against srv, its transcript at path.
func settings(srv *fakeapi.OpenAI, path string) Settings {
	return Settings{
		Command: "run", Model: Model{Provider: string(wire.Chat), Model: "gpt-test", APIKey: key, BaseURL: srv.URL + "/v1", BaseURLFrom: "--base-url"},
		MaxSteps: 5, Parallel: 1, Output: Output{Path: path, Explicit: true}, Version: "test",
	}
}

// run sets up and runs s with ts, and closes its transcript.
func run(t *testing.T, s Settings, ts *toolset.Set) *agent.Outcome {
	t.Helper()
	r, err := New(s, Tools{Set: ts, Exec: ts}, Net{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Go(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Transcript.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// validate fails the test on any error validate finds in the transcript
// at path, and returns its conversation.
func validate(t *testing.T, path string) *transcript.Conversation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := transcript.Validate(path, f, transcript.Options{}, func(f transcript.Finding) {
		if f.Severity == transcript.Error {
			t.Errorf("%s", f)
		}
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	convs, err := transcript.ReadConversations(strings.NewReader(string(b)))
	if err != nil || len(convs) != 1 {
		t.Fatalf("%d conversations, %v", len(convs), err)
	}
	return convs[0]
}

// A run with one tool call answers, and writes a transcript validate
// accepts: the header says what ran, the call and its result are in it.
func TestOneCallRun(t *testing.T) {
	srv := fakeapi.NewOpenAI([]fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "look", Arguments: "{}"}}},
		{Text: strp("It looked."), Expect: &fakeapi.Expect{Results: map[string]string{"call_1": "looked"}}},
	}, key)
	defer srv.Close()
	ts, _ := lookTool(t)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	s := settings(srv, path)
	s.Prompt = "Look."
	out := run(t, s, ts)
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	if out.Answer != "It looked." || out.Reason != wire.ReasonStop || out.Steps != 2 {
		t.Errorf("answer %q, reason %q, %d steps", out.Answer, out.Reason, out.Steps)
	}
	conv := validate(t, path)
	h := conv.Header
	if h.Command != "run" || h.Provider != "openai" || h.Model != "gpt-test" || h.Agentloop != "test" || len(h.Tools) != 1 || h.MaxSteps != 5 {
		t.Errorf("header %+v", h)
	}
	if len(conv.Messages) != 4 || conv.End == nil || conv.End.Reason != wire.ReasonStop {
		t.Errorf("%d messages, end %+v", len(conv.Messages), conv.End)
	}
}

// run -c: the new transcript starts with the whole conversation it
// continues, names it, and the model is sent it with the new prompt.
func TestContinueAppends(t *testing.T) {
	srv := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("Paris.")}}, key)
	defer srv.Close()
	ts, _ := lookTool(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "first.jsonl")
	s := settings(srv, first)
	s.Prompt = "Capital of France?"
	run(t, s, ts)
	parent := validate(t, first)

	srv2 := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("Berlin."), Expect: &fakeapi.Expect{Messages: 3, Contains: []string{"Capital of France?", "Paris.", "And of Germany?"}}}}, key)
	defer srv2.Close()
	conv := WithoutUnanswered(parent)
	st, _ := State(conv)
	st.Prompt = "And of Germany?"
	second := filepath.Join(dir, "second.jsonl")
	s = settings(srv2, second)
	s.Command, s.Parent, s.Conv, s.State = "continue", first, conv, &st
	out := run(t, s, ts)
	if err := srv2.Check(); err != nil {
		t.Fatal(err)
	}
	if out.Answer != "Berlin." {
		t.Errorf("answer %q", out.Answer)
	}
	child := validate(t, second)
	if child.Header.Parent != first || child.Header.ParentID != parent.Header.ID || child.Header.Command != "continue" {
		t.Errorf("header names parent %q (%q), command %q", child.Header.Parent, child.Header.ParentID, child.Header.Command)
	}
	if len(child.Messages) != 4 {
		t.Fatalf("%d messages, want the parent's 2 and 2 more", len(child.Messages))
	}
	for i, rec := range parent.Messages {
		if string(child.Messages[i].Message) != string(rec.Message) {
			t.Errorf("message %d: %s, want the parent's %s", i, child.Messages[i].Message, rec.Message)
		}
	}
	if before, _ := os.ReadFile(first); !strings.Contains(string(before), "Paris.") || strings.Contains(string(before), "Berlin") {
		t.Error("the continued transcript was changed")
	}
}

// A recording offered a tool that is not here: going on is refused
// before any request, naming the tool, why, and the flags that help.
func TestResumeMissingTool(t *testing.T) {
	ts, dir := lookTool(t)
	h := &transcript.Header{Provider: "openai", ToolsDirs: []string{dir}, Tools: []agent.Message{
		agent.Message(`{"type":"function","function":{"name":"look","description":"looks","parameters":{"type":"object","properties":{}}}}`),
		agent.Message(`{"type":"function","function":{"name":"gone","description":"was here","parameters":{"type":"object","properties":{}}}}`),
	}}
	read := ToolsRead{Dirs: []string{dir}, Setting: "--tools-dir", Recorded: []string{dir, "elsewhere.d"}}
	err := Narrow(ts, Offer{Header: h, Read: read})
	if KindOf(err) != Usage {
		t.Fatalf("kind %v of %v, want a usage error", KindOf(err), err)
	}
	for _, want := range []string{"tool gone cannot be loaded", "--tools-dir elsewhere.d", "--deny gone to go on without it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	// --deny names the tool gone, which is not here to deny: the run
	// goes on without it.
	if err := Narrow(ts, Offer{Header: h, Read: read, Deny: []string{"gone"}}); err != nil {
		t.Fatalf("--deny gone: %v", err)
	}
	if names := ts.Names(); len(names) != 1 || names[0] != "look" {
		t.Errorf("offered %v, want look", names)
	}
}

// A base URL a transcript names is used only when the user configured it:
// with nothing configured it is refused, saying the flag to pass; one
// whose credentials were redacted asks for the address again.
func TestRecordedBaseURLRefused(t *testing.T) {
	h := &transcript.Header{Provider: "openai", BaseURL: "http://127.0.0.1:8080/v1"}
	_, _, err := RecordedBaseURL(nil, "t.jsonl", h)
	if KindOf(err) != Usage || !strings.Contains(err.Error(), "an address you have not configured") || !strings.Contains(err.Error(), "pass --base-url http://127.0.0.1:8080/v1") {
		t.Errorf("got %v (kind %v)", err, KindOf(err))
	}
	h.BaseURL = "http://u:" + transcript.Redacted + "@127.0.0.1:8080/v1"
	_, _, err = RecordedBaseURL(nil, "t.jsonl", h)
	if KindOf(err) != Flag || !strings.Contains(err.Error(), "give the address again with --base-url") {
		t.Errorf("got %v (kind %v)", err, KindOf(err))
	}
	if !IsDefaultBaseURL("https://api.openai.com/v1/") || IsDefaultBaseURL("http://127.0.0.1:8080/v1") {
		t.Error("IsDefaultBaseURL")
	}
}
