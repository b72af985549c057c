package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/cmd"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite testdata/script files with actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentloop": func() { os.Exit(cmd.Main()) },
	})
}

// TestScript runs the end-to-end CLI scenarios in testdata/script.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			// A clean, predictable environment: no keys, no user config.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/.state")
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
			"maxrss":   cmdMaxRSS,
		},
	})
}

// cmdExitCode runs a program and asserts its exit status:
//
//	exitcode 2 agentloop --bad-flag
//
// stdout and stderr are kept for the following stdout/stderr checks.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

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
	_ = cmd.Run() // the exit status is not what this checks
	if cmd.ProcessState == nil {
		ts.Fatalf("maxrss: %s did not run", args[1])
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
