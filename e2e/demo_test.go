package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/cmd"
	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/iostreams"
	"github.com/agentloop/agentloop/pkg/provider/openai"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

var updateDemo = flag.Bool("update-demo", false, "record testdata/demo/session.jsonl again against the scripted fake server")

const demoPath = "testdata/demo/session.jsonl"

// demoScript is the conversation the demo transcript records: the model's
// turns are scripted (no real model was reachable when it was recorded);
// the tool results are real, from the tools shipped in tools.d. Turns that
// call tools carry no text, as most models send them: text beside
// tool_calls is a portability warning of validate's, and the first file a
// new user validates should be clean.
func demoScript() []fakeapi.Step {
	text := func(s string) *string { return &s }
	return []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "call_notes", Name: "read_file", Arguments: `{"path":"testdata/demo/notes.txt"}`},
			{ID: "call_sum", Name: "calc", Arguments: `{"expression":"17.5 * 4 - 3"}`},
		}},
		{ToolCalls: []fakeapi.ToolCall{
			{ID: "call_todo", Name: "grep_files", Arguments: `{"pattern":"TODO","path":"testdata/demo","glob":"*.txt"}`},
		}},
		{Text: text("The checklist has 5 steps; 2 are still TODO (regenerate the man page, attach the demo transcript). 17.5 × 4 − 3 = 67.")},
	}
}

// TestDemoTranscript keeps the shipped demo honest: it validates without a
// warning, and every recorded tool result replays the same with the tools
// of tools.d.
func TestDemoTranscript(t *testing.T) {
	if *updateDemo {
		recordDemo(t)
	}
	for _, args := range [][]string{
		{"validate", demoPath},
		{"replay", "--tools-dir", "tools.d", demoPath},
		{"replay", "--show", demoPath},
	} {
		ios, _, out, errOut := iostreams.Test()
		ios.SetEnv(os.Getenv)
		if code := cmd.Execute(context.Background(), ios, args); code != 0 {
			t.Errorf("agentloop %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		if args[0] == "validate" && !strings.HasPrefix(out.String(), "no problems") {
			t.Errorf("agentloop validate %s:\n%s", demoPath, out)
		}
	}
}

func recordDemo(t *testing.T) {
	srv := fakeapi.NewOpenAI(demoScript(), "")
	defer srv.Close()
	reg, err := tools.Load([]string{"tools.d"}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := openai.NewChat(openai.Config{BaseURL: srv.BaseURL(), Model: "scripted-demo"})
	if err != nil {
		t.Fatal(err)
	}
	var specs []agent.ToolSpec
	for _, d := range reg.Definitions() {
		specs = append(specs, agent.ToolSpec{Name: d.Name, Description: d.Description, Parameters: d.Parameters, Strict: d.Strict})
	}
	defs, err := p.ToolDefs(specs)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := transcript.NewWriter(&buf, nil)
	err = w.WriteHeader(transcript.Header{
		Command: "run", Provider: "openai", Model: "scripted-demo",
		BaseURL:   "http://127.0.0.1/v1 (scripted fake server: the model's turns are scripted, the tool results are real)",
		ToolsDirs: []string{"tools.d"}, Tools: defs, MaxSteps: agent.DefaultMaxSteps, Agentloop: cmd.Version(),
	})
	if err != nil {
		t.Fatal(err)
	}
	loop := &agent.Loop{Provider: p, Tools: scriptTools{reg}, ToolDefs: defs, Transcript: w}
	if _, err := loop.Prompt(context.Background(), "How many steps are in testdata/demo/notes.txt, which are still TODO, and what is 17.5 * 4 - 3?"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(demoPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(demoPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The header says where the turns came from; check it survived.
	var h struct {
		BaseURL string `json:"base_url"`
	}
	line, _, _ := bytes.Cut(buf.Bytes(), []byte("\n"))
	if json.Unmarshal(line, &h) != nil || !strings.Contains(h.BaseURL, "scripted") {
		t.Fatalf("demo header lost its label: %s", line)
	}
}

// scriptTools runs the shipped tools for the loop, as cmd wires them.
type scriptTools struct{ reg *tools.Registry }

func (s scriptTools) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	r := s.reg.Call(ctx, name, callID, args)
	return agent.ToolResult{Content: r.Content, IsError: r.IsError, Kind: r.Kind, ExitCode: r.ExitCode, Duration: r.Duration, Truncated: r.Truncated}
}
