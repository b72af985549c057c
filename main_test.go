package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
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
