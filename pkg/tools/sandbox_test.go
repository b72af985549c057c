package tools

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentloop/agentloop/internal/sandbox"
)

func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if sandbox.ABI() < abi {
		t.Skipf("this kernel's Landlock ABI is %d; the test needs %d", sandbox.ABI(), abi)
	}
}

// writer is a tool that writes $ARG_PATH.
const writerYAML = `name: write
description: Writes a file.
parameters:
  path: {type: string}
run: tool.sh
`

const writerScript = "#!/bin/sh\necho hello > \"$ARG_PATH\"\n"

// Under read-only, a write outside TMPDIR is the tool's failure, with a
// note the model reads; the file is not there. Under workspace-write, a
// write in the working directory works and one to HOME does not.
func TestSandboxWrites(t *testing.T) {
	needLandlock(t, 1)
	work, home := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		mode   sandbox.Mode
		target string
		ok     bool
	}{
		{sandbox.ReadOnly, filepath.Join(work, "out"), false},
		{sandbox.ReadOnly, filepath.Join(home, "x"), false},
		{sandbox.WorkspaceWrite, filepath.Join(work, "out"), true},
		{sandbox.WorkspaceWrite, filepath.Join(home, "x"), false},
		{sandbox.Off, filepath.Join(home, "y"), true},
	} {
		r := loadOne(t, writerYAML, writerScript, Options{Dir: work, Sandbox: sandbox.Settings{Mode: tc.mode}, Getenv: testEnv(map[string]string{"HOME": home})})
		res := r.Call(context.Background(), "write", "c1", []byte(`{"path":"`+tc.target+`"}`))
		_, err := os.Stat(tc.target)
		if tc.ok {
			if res.IsError || err != nil {
				t.Errorf("%s: write %s: %s (%v)", tc.mode, tc.target, res.Content, err)
			}
		} else {
			if !res.IsError || err == nil {
				t.Errorf("%s: write %s: error=%v, file there: %v", tc.mode, tc.target, res.IsError, err == nil)
			}
			if !strings.Contains(res.Content, "ermission denied") || !strings.Contains(res.Content, "sandbox: the tool runs in the "+string(tc.mode)+" sandbox") {
				t.Errorf("%s: content %q", tc.mode, res.Content)
			}
		}
		want := ""
		if tc.mode != sandbox.Off {
			want = string(tc.mode) + " (landlock abi "
		}
		if !strings.HasPrefix(res.Sandbox, want) || (want == "") != (res.Sandbox == "") {
			t.Errorf("%s: Sandbox %q", tc.mode, res.Sandbox)
		}
		_ = os.Remove(tc.target)
	}
}

// A tool's block widens the run's mode: write: lists a path.
func TestSandboxBlockWrite(t *testing.T) {
	needLandlock(t, 1)
	work, extra := t.TempDir(), t.TempDir()
	yaml := writerYAML + "sandbox: {write: [" + extra + "]}\n"
	r := loadOne(t, yaml, writerScript, Options{Dir: work, Sandbox: sandbox.Settings{Mode: sandbox.ReadOnly}})
	mustCall(t, r, "write", `{"path":"`+filepath.Join(extra, "f")+`"}`)
	d, _ := r.Lookup("write")
	if d.Sandbox == nil || d.Sandbox.Write[0] != extra {
		t.Errorf("definition's block: %+v", d.Sandbox)
	}
}

// network: false refuses a TCP connection (the listener sees none);
// network: true allows it.
func TestSandboxNetwork(t *testing.T) {
	needLandlock(t, 4)
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	const script = "#!/bin/sh\ncurl -sS --max-time 5 \"$ARG_URL\" >/dev/null\n"
	const yaml = "name: get\ndescription: Gets.\nparameters:\n  url: {type: string}\nrun: tool.sh\n"
	if _, err := os.Stat("/usr/bin/curl"); err != nil {
		t.Skip("no curl")
	}
	r := loadOne(t, yaml, script, Options{Sandbox: sandbox.Settings{Mode: sandbox.ReadOnly}})
	res := r.Call(context.Background(), "get", "c1", []byte(`{"url":"`+srv.URL+`"}`))
	if !res.IsError || !strings.Contains(res.Content, "opens no TCP connection") {
		t.Errorf("network false: %s", res.Content)
	}
	if n := conns.Load(); n != 0 {
		t.Errorf("the listener saw %d connections", n)
	}
	r = loadOne(t, yaml+"sandbox: {network: ["+u.Port()+"]}\n", script, Options{Sandbox: sandbox.Settings{Mode: sandbox.ReadOnly}})
	mustCall(t, r, "get", `{"url":"`+srv.URL+`"}`)
	if n := conns.Load(); n != 1 {
		t.Errorf("the listener saw %d connections, want 1", n)
	}
}

// Required, on a kernel that cannot enforce the policy, the tool does not
// run, and the result says why.
func TestSandboxRequired(t *testing.T) {
	work := t.TempDir()
	target := filepath.Join(work, "out")
	r := loadOne(t, writerYAML, writerScript, Options{Dir: work, Sandbox: sandbox.Settings{Mode: sandbox.ReadOnly, Required: true, Limited: true}})
	res := r.Call(context.Background(), "write", "c1", []byte(`{"path":"`+target+`"}`))
	if !res.IsError || !strings.Contains(res.Content, "not run: the sandbox is required and read-only cannot be enforced in full: kernel has no Landlock") {
		t.Errorf("required: %s", res.Content)
	}
	if _, err := os.Stat(target); err == nil {
		t.Error("the tool ran")
	}
	// Not required: it runs, unrestricted, and says so.
	r = loadOne(t, writerYAML, writerScript, Options{Dir: work, Sandbox: sandbox.Settings{Mode: sandbox.ReadOnly, Limited: true}})
	res = mustCall(t, r, "write", `{"path":"`+target+`"}`)
	if res.Sandbox != "read-only (not enforced: kernel has no Landlock)" {
		t.Errorf("Sandbox %q", res.Sandbox)
	}
}

func TestSandboxBlockProblems(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"tool.yaml": writerYAML + "sandbox: {mode: readonly}\n", "tool.sh": writerScript})
	_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
	got := loadErrors(t, err, dir)
	if len(got) != 1 || !strings.HasPrefix(got[0], `tool.yaml:6: sandbox: mode: "readonly" is not a sandbox mode`) {
		t.Errorf("%q", got)
	}
}
