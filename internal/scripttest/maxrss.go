package scripttest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// peakRSSEnv names the file in which agentloop, run as a command of this
// test binary, records its own peak resident memory before it exits.
const peakRSSEnv = "AGENTLOOP_TEST_PEAK_RSS_FILE"

// cmdMaxRSS runs a program and asserts that its peak resident memory stays
// under a number of megabytes, whatever its exit status:
//
//	maxrss 50 agentloop tools call flood
//
// The peak is the program's own VmHWM, which it records as it exits. The
// kernel's figure for a child (wait4's ru_maxrss) will not do: Go starts
// children with vfork, and exec folds the parent's high-water mark into the
// child's, so a busy test process would be measured instead of the program.
// Programs other than agentloop fall back on ru_maxrss, an upper bound.
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
	peakFile := ts.MkAbs(".maxrss-peak")
	os.Remove(peakFile)
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
	cmd.Env = append(cmd.Env, peakRSSEnv+"="+peakFile)
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
	var kb int64
	if b, err := os.ReadFile(peakFile); err == nil {
		kb, err = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil {
			ts.Fatalf("maxrss: %s recorded %q: %v", args[1], b, err)
		}
	} else {
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			ts.Fatalf("maxrss: no resource usage on this system")
		}
		kb = ru.Maxrss // kilobytes on Linux
		ts.Logf("%s recorded no peak of its own; ru_maxrss includes this test's peak", args[1])
	}
	rssMB := kb / 1024
	ts.Logf("%s: peak RSS %d MB", args[1], rssMB)
	if rssMB >= int64(limit) {
		ts.Fatalf("%s peaked at %d MB, want under %d MB", args[1], rssMB, limit)
	}
}

// recordPeakRSS writes this process's peak resident memory in kilobytes
// (VmHWM) to file, for cmdMaxRSS. Where /proc is missing it writes nothing
// and cmdMaxRSS falls back on ru_maxrss.
func recordPeakRSS(file string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb := strings.TrimSuffix(strings.TrimSpace(v), " kB")
			_ = os.WriteFile(file, []byte(kb+"\n"), 0o600)
			return
		}
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}
