package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMaxRSS runs a program and asserts that its peak resident memory stays
// under a number of megabytes, whatever its exit status:
//
//	maxrss 50 agentloop tools call flood
func cmdMaxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: maxrss MB program [args...]")
	}
	limit, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxrss: %q is not a number", args[0])
	}
	path := args[1]
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(dir, args[1]); fileExists(p) {
			path = p
			break
		}
	}
	cmd := exec.Command(path, args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); ts.Getenv(k) != "" {
			cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
		}
	}
	for _, k := range []string{"HOME", "TMPDIR", "WORK", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	_ = cmd.Run() // the exit status is not what this checks
	if cmd.ProcessState == nil {
		ts.Fatalf("maxrss: %s did not run", args[1])
	}
	ts.Logf("%s: exit status %d", args[1], cmd.ProcessState.ExitCode())
	if stderr.Len() > 0 {
		ts.Logf("%s stderr:\n%s", args[1], stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		ts.Fatalf("maxrss: no resource usage on this system")
	}
	rssMB := ru.Maxrss / 1024 // kilobytes on Linux
	ts.Logf("%s: peak RSS %d MB", args[1], rssMB)
	if rssMB >= int64(limit) {
		ts.Fatalf("%s peaked at %d MB, want under %d MB", args[1], rssMB, limit)
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
