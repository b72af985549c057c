package cmd

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// openFDs counts this process's open file descriptors. A leak is a count
// that grew: one that fell is an earlier test's connection reaching its
// pool's idle timeout meanwhile (goleak was told to ignore its goroutine).
func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(fds)
}

// TestBatchLeavesNothing runs batches in this process, as a program that
// drives agentloop would, with script tools that answer, fail, time out
// and leave a child behind, and an MCP server over HTTP; after each, no
// goroutine, no file descriptor and no process of it is left: not the
// connections of its pool to the model's server, not a tool's child.
func TestBatchLeavesNothing(t *testing.T) {
	conv, err := fakeapi.LoadConversations([]byte(`{"steps": [
	 {"tool_calls": [{"id": "c1", "name": "ok", "arguments": "{}"}, {"id": "c2", "name": "fail", "arguments": "{}"},
	   {"id": "c3", "name": "bg", "arguments": "{}"}, {"id": "c4", "name": "slow", "arguments": "{}"},
	   {"id": "c5", "name": "web_echo", "arguments": "{\"text\":\"x\"}"}]},
	 {"text": "answer to {{prompt}}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	api := fakeapi.NewOpenAIConversations(conv, "")
	defer api.Close()
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer web.Close()
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.d")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	pids := filepath.Join(dir, "pids")
	for name, body := range map[string]string{
		"ok":   "command: [cat]",
		"fail": "command: [sh, -c, 'echo broken >&2; exit 3']",
		"bg":   "sandbox: {write: [" + dir + "]}\ncommand: [sh, -c, 'sleep 60 > /dev/null 2>&1 & echo $! >> " + pids + "; echo started']",
		"slow": "timeout: 100ms\ncommand: [sleep, '60']",
	} {
		yaml := "name: " + name + "\ndescription: A tool.\nparameters: {}\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(tools, name+".yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tools, "web.yaml"), []byte("mcp:\n  url: "+web.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "PATH": os.Getenv("PATH"), "XDG_STATE_HOME": dir, "XDG_CONFIG_HOME": dir}

	ignore := goleak.IgnoreCurrent()
	before := openFDs(t)
	for round := range 2 {
		var in strings.Builder
		for i := range 24 {
			fmt.Fprintf(&in, "{\"id\": \"%d-%d\", \"prompt\": \"item %d of round %d\"}\n", round, i, i, round)
		}
		input := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", round))
		if err := os.WriteFile(input, []byte(in.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		ios, _, _, errOut := iostreams.Test()
		ios.SetEnv(func(k string) string { return env[k] })
		args := []string{"batch", input, "-d", filepath.Join(dir, fmt.Sprint("out", round)), "-j", "8", "--base-url", api.BaseURL(), "--tools-dir", tools}
		if code := Execute(context.Background(), ios, args); code != 0 {
			t.Fatalf("round %d: exit %d\n%s", round, code, errOut)
		}
		if err := goleak.Find(ignore); err != nil {
			t.Fatalf("round %d: goroutines left by the batch: %v", round, err)
		}
		// A connection's other end, in this process, closes as its
		// goroutine ends; goleak has waited for those.
		if after := openFDs(t); after > before {
			t.Errorf("round %d: %d file descriptors open after the batch, %d before", round, after, before)
		}
	}
	if err := api.Check(); err != nil {
		t.Error(err)
	}
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		if stat, err := os.ReadFile("/proc/" + f + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
			t.Errorf("a tool's child (pid %d) outlived the batch", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestRunLeavesNothing: runs one after another in one process leave no
// goroutine and no file descriptor behind, not the connections to the
// model's server nor an MCP server's over HTTP.
func TestRunLeavesNothing(t *testing.T) {
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer web.Close()
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.d")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "web.yaml"), []byte("mcp:\n  url: "+web.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-test", "PATH": os.Getenv("PATH"), "XDG_STATE_HOME": dir, "XDG_CONFIG_HOME": dir}
	// The model's servers start first: their own goroutines are not the
	// runs'. Each is closed only after the check, as a server that stays up.
	var apis []*fakeapi.OpenAI
	for range 2 {
		api := fakeapi.NewOpenAI([]fakeapi.Step{
			{ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "web_echo", Arguments: `{"text":"x"}`}}},
			{Text: ptrTo("done")},
		}, "")
		defer api.Close()
		apis = append(apis, api)
	}
	ignore := goleak.IgnoreCurrent()
	before := openFDs(t)
	for round, api := range apis {
		ios, _, _, errOut := iostreams.Test()
		ios.SetEnv(func(k string) string { return env[k] })
		args := []string{"run", "--base-url", api.BaseURL(), "--tools-dir", tools, "-o", filepath.Join(dir, fmt.Sprint("run", round, ".jsonl")), "go"}
		if code := Execute(context.Background(), ios, args); code != 0 {
			t.Fatalf("round %d: exit %d\n%s", round, code, errOut)
		}
		if err := api.Check(); err != nil {
			t.Error(err)
		}
		if err := goleak.Find(ignore); err != nil {
			t.Fatalf("round %d: goroutines left by the run: %v", round, err)
		}
		if after := openFDs(t); after > before {
			t.Errorf("round %d: %d file descriptors open after the run, %d before", round, after, before)
		}
	}
}

func ptrTo(s string) *string { return &s }
