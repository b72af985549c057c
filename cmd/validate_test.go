package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/transcript"
)

func TestValidateFlags(t *testing.T) {
	ios, _, _, _ := Test()
	var got *ValidateOptions
	c := newCmdValidate(ios, func(_ context.Context, o *ValidateOptions) error { got = o; return nil })
	c.SetArgs([]string{"--input", "request", "--shape", "anthropic", "--strict", "--allow-pending", "--json",
		"--tools-dir", "a", "--tools-dir", "b", "x.json", "-"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Input != "request" || got.Shape != "anthropic" || !got.Strict || !got.AllowPending || !got.JSON ||
		strings.Join(got.ToolsDirs, ",") != "a,b" || strings.Join(got.Files, ",") != "x.json,-" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{}, {"--input", "yaml", "f"}, {"--shape", "gemini", "f"}} {
		c := newCmdValidate(ios, func(context.Context, *ValidateOptions) error { return nil })
		c.SetArgs(args)
		c.SilenceErrors, c.SilenceUsage = true, true
		var fe *FlagError
		if err := c.Execute(); !errors.As(err, &fe) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
}

// fakeChecker defines get_weather only.
type fakeChecker struct{}

func (fakeChecker) Has(name string) bool { return name == "get_weather" }
func (fakeChecker) CheckArgs(string, []byte) error {
	return nil
}

func TestRunValidateToolsDir(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.jsonl")
	os.WriteFile(f, []byte(`{"role":"user","content":"hi"}
{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_time","arguments":"{}"}}]}
{"role":"tool","tool_call_id":"call_1","content":"noon"}
`), 0o600)

	ios, _, _, _ := Test()
	err := runValidate(context.Background(), &ValidateOptions{IO: ios, Files: []string{f}, ToolsDirs: []string{dir}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "--tools-dir") {
		t.Fatalf("without a loader: got %v, want a usage error naming --tools-dir", err)
	}

	var loaded []string
	loadToolChecker = func(dirs []string) (transcript.ToolChecker, error) { loaded = dirs; return fakeChecker{}, nil }
	defer func() { loadToolChecker = nil }()
	ios, _, out, _ := Test()
	err = runValidate(context.Background(), &ValidateOptions{IO: ios, Files: []string{f}, ToolsDirs: []string{dir}})
	if !errors.Is(err, errSilent) {
		t.Fatalf("got %v, want findings (exit 1)", err)
	}
	if len(loaded) != 1 || loaded[0] != dir {
		t.Errorf("loader got %v", loaded)
	}
	if !strings.Contains(out.String(), "[unknown-tool]") {
		t.Errorf("output:\n%s", out)
	}
}

func TestSummary(t *testing.T) {
	for _, tc := range []struct {
		st   transcript.Stats
		want string
	}{
		{transcript.Stats{Files: 1, Messages: 12, ToolCalls: 1}, "no problems in 1 file (12 messages, 1 tool call)"},
		{transcript.Stats{Files: 2, Messages: 1204, ToolCalls: 311, Errors: 3, Warnings: 1}, "3 errors, 1 warning in 2 files (1,204 messages, 311 tool calls)"},
		{transcript.Stats{Files: 1, Messages: 1234567, Errors: 1}, "1 error, 0 warnings in 1 file (1,234,567 messages, 0 tool calls)"},
	} {
		if got := summary(tc.st); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
