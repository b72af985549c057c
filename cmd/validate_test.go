package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/transcript/report"
)

func TestValidateFlags(t *testing.T) {
	ios, _, _, _ := Test()
	var got *ValidateOptions
	c := newCmdValidate(ios, func(_ context.Context, o *ValidateOptions) error { got = o; return nil })
	c.SetArgs([]string{"--input", "request", "--shape", "anthropic", "--strict", "--allow-pending", "--allow-unchecked", "--json",
		"--tools-dir", "a", "--tools-dir", "b", "x.json", "-"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Input != "request" || got.Shape != "anthropic" || !got.Strict || !got.AllowPending || !got.AllowUnchecked || !got.JSON ||
		strings.Join(got.ToolsDirs, ",") != "a,b" || strings.Join(got.Files, ",") != "x.json,-" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{}, {"--input", "yaml", "f"}, {"--shape", "gemini", "f"}, {"--list-formats", "f"}} {
		c := newCmdValidate(ios, func(context.Context, *ValidateOptions) error { return nil })
		c.SetArgs(args)
		c.SilenceErrors, c.SilenceUsage = true, true
		var fe *FlagError
		if err := c.Execute(); !errors.As(err, &fe) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

func TestRunValidateToolsDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "weather.yaml"), []byte(`name: get_weather
description: Current weather for a city.
parameters:
  city: {type: string}
command: [echo, sunny]
`), 0o600)
	f := filepath.Join(dir, "t.jsonl")
	os.WriteFile(f, []byte(`{"role":"user","content":"hi"}
{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":5}"}},{"id":"call_3","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}
{"role":"tool","tool_call_id":"call_1","content":"noon"}
{"role":"tool","tool_call_id":"call_2","content":"?"}
{"role":"tool","tool_call_id":"call_3","content":"sunny"}
`), 0o600)

	ios, _, out, _ := Test()
	ios.SetEnv(os.Getenv) // the tool's command is looked up on PATH
	err := runValidate(context.Background(), &ValidateOptions{IO: ios, Files: []string{f}, ToolsDirs: []string{dir}})
	if !errors.Is(err, errSilent) {
		t.Fatalf("got %v, want findings (exit 1)", err)
	}
	for _, want := range []string{"[unknown-tool]", "[arguments-invalid]", "get_time", "call_2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "call_3") {
		t.Errorf("the valid call was flagged:\n%s", out)
	}

	ios, _, _, _ = Test()
	err = runValidate(context.Background(), &ValidateOptions{IO: ios, Files: []string{f}, ToolsDirs: []string{filepath.Join(dir, "missing")}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage {
		t.Fatalf("a missing --tools-dir: got %v, want exit 2", err)
	}
}

// TestListFormats: --list-formats prints every format --input takes, with
// what it reads, who writes it and an example; a table, or JSON Lines.
func TestListFormats(t *testing.T) {
	ios, _, out, _ := Test()
	if err := runValidate(context.Background(), &ValidateOptions{IO: ios, ListFormats: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(transcript.Inputs)+1 || !strings.HasPrefix(lines[0], "FORMAT ") {
		t.Fatalf("%d lines for %d formats:\n%s", len(lines), len(transcript.Inputs), out)
	}
	for i, name := range transcript.Inputs {
		f := transcript.Formats()[i]
		if fields := strings.Fields(lines[i+1]); fields[0] != name || !strings.Contains(lines[i+1], f.Reads) || !strings.HasSuffix(lines[i+1], f.Example) {
			t.Errorf("line %d: %q, want %s", i+1, lines[i+1], name)
		}
	}
	ios, _, out, _ = Test()
	if err := runValidate(context.Background(), &ValidateOptions{IO: ios, ListFormats: true, JSON: true}); err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var f report.Format
		if err := json.Unmarshal([]byte(line), &f); err != nil || f.Name != transcript.Inputs[n] || f.Reads == "" || f.Writer == "" || f.Example == "" {
			t.Errorf("%q: %v", line, err)
		}
		n++
	}
	if n != len(transcript.Inputs) {
		t.Errorf("%d formats in JSON, want %d", n, len(transcript.Inputs))
	}
}
