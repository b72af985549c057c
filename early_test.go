//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestEarlyAnswers builds agentloop and checks that
// --version, --help and -h are answered while it initialises (no package
// of the SDKs has run its init), and that they print what the command tree
// prints (agentloop help) at whatever width stdout, stderr or $COLUMNS give.
func TestEarlyAnswers(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build agentloop with")
	}
	bin := buildAgentloop(t, goCmd, "-ldflags", "-s -w -X github.com/agentloop/agentloop/internal/version.stamped=v0.0.0-early")

	// What package initialisation ran, from the runtime's trace of it.
	sdkInit := func(t *testing.T, stderr string) bool {
		t.Helper()
		if !strings.Contains(stderr, "init os @") {
			t.Fatalf("no init trace in stderr %q", stderr)
		}
		return strings.Contains(stderr, "init github.com/openai/openai-go")
	}

	t.Run("version", func(t *testing.T) {
		out, stderr := runAt(t, bin, []string{"--version"}, terminals{}, "GODEBUG=inittrace=1")
		if out != "agentloop v0.0.0-early\n" {
			t.Errorf("stdout %q", out)
		}
		if sdkInit(t, stderr) {
			t.Errorf("the SDKs initialised before --version was answered:\n%s", stderr)
		}
	})

	// A build with no version stamped (go install, go build) gives the
	// module's from the binary's build information, as runtime/debug reads
	// it for the version command; with the version control's, if there is
	// one to read.
	t.Run("version unstamped", func(t *testing.T) {
		plain := buildAgentloop(t, goCmd, "-buildvcs=auto")
		want, _ := runAt(t, plain, []string{"version"}, terminals{})
		out, stderr := runAt(t, plain, []string{"--version"}, terminals{}, "GODEBUG=inittrace=1")
		if out != want || !strings.HasPrefix(out, "agentloop ") {
			t.Errorf("--version prints %q, the version command %q", out, want)
		}
		if sdkInit(t, stderr) {
			t.Errorf("the SDKs initialised before --version was answered:\n%s", stderr)
		}
		t.Logf("unstamped: %s", strings.TrimSpace(out))
	})

	// The command tree's help is the standard; it initialises everything.
	if _, stderr := runAt(t, bin, []string{"help"}, terminals{}, "GODEBUG=inittrace=1"); !sdkInit(t, stderr) {
		t.Fatal("the trace does not show the SDKs initialising for the help command")
	}
	for _, tc := range []struct {
		name       string
		stdoutCols int // a terminal on stdout this wide (0: a pipe)
		stderrCols int
		env        []string
		wantCols   int
	}{
		{name: "pipe", wantCols: 80},
		{name: "COLUMNS", env: []string{"COLUMNS=52"}, wantCols: 52},
		{name: "narrow COLUMNS", env: []string{"COLUMNS=20"}, wantCols: 20},
		{name: "bad COLUMNS", env: []string{"COLUMNS=wide"}, wantCols: 80},
		{name: "terminal", stdoutCols: 61, env: []string{"COLUMNS=100"}, wantCols: 61},
		{name: "terminal on stderr", stderrCols: 47, env: []string{"COLUMNS=100"}, wantCols: 47},
		{name: "terminals on both", stdoutCols: 58, stderrCols: 90, wantCols: 58},
		{name: "terminal of no size", stdoutCols: -1, env: []string{"COLUMNS=45"}, wantCols: 45},
	} {
		t.Run("help/"+tc.name, func(t *testing.T) {
			env := append([]string{"GODEBUG=inittrace=1"}, tc.env...)
			want, _ := runAt(t, bin, []string{"help"}, terminals{tc.stdoutCols, tc.stderrCols}, env...)
			for _, flag := range []string{"--help", "-h"} {
				got, stderr := runAt(t, bin, []string{flag}, terminals{tc.stdoutCols, tc.stderrCols}, env...)
				if got != want {
					t.Errorf("%s prints\n%s\nagentloop help prints\n%s", flag, got, want)
				}
				if tc.stderrCols == 0 && sdkInit(t, stderr) {
					t.Errorf("the SDKs initialised before %s was answered", flag)
				}
			}
			if tc.wantCols >= 40 && !hasLineOf(want, tc.wantCols) {
				t.Errorf("no line of the help is near %d columns:\n%s", tc.wantCols, want)
			}
		})
	}
}

// buildAgentloop builds the program here with the build flags given. It
// builds as go test built this test (its race detector, tags, cgo and
// paths, read from the test binary's build information), so that every
// package comes from the build cache and only the program itself is
// compiled and linked anew: a build as make build does it (CGO_ENABLED=0,
// -trimpath), or a plain one under go test -race, would compile the SDKs a
// second time, minutes on a cold machine. What is tested, the order of
// package initialisation, is the same in every build. The test fails if
// the build compiled any package but the program's own.
func buildAgentloop(t *testing.T, goCmd string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "agentloop")
	own, env := testBuildFlags(t)
	args := append(append([]string{"build", "-x", "-o", bin}, own...), flags...)
	build := exec.Command(goCmd, append(args, ".")...)
	build.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	build.Stdout, build.Stderr = &stdout, &stderr
	if err := build.Run(); err != nil {
		t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), lastLines(stderr.String(), 40))
	}
	if again := compiledPackages(stderr.String()); len(again) > 0 {
		t.Errorf("go %s compiled %d package(s) the test's own build had compiled: %s", strings.Join(args, " "), len(again), strings.Join(again[:min(len(again), 10)], " "))
	}
	return bin
}

// testBuildFlags are the flags and the environment this test binary was
// built with, as far as they change how a package compiles.
func testBuildFlags(t *testing.T) (flags, env []string) {
	t.Helper()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("the test binary has no build information")
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "-race", "-msan", "-asan", "-trimpath":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		case "-tags", "-gcflags", "-asmflags":
			flags = append(flags, s.Key+"="+s.Value)
		case "CGO_ENABLED", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS", "GOEXPERIMENT",
			"GOAMD64", "GOARM", "GOARM64", "GO386", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM":
			env = append(env, s.Key+"="+s.Value)
		}
	}
	return flags, env
}

// compiledPackages are the packages, but main, a go build -x run compiled.
func compiledPackages(trace string) []string {
	var pkgs []string
	for _, m := range regexp.MustCompile(`(?m)/compile .* -p (\S+) `).FindAllStringSubmatch(trace, -1) {
		if m[1] != "main" {
			pkgs = append(pkgs, m[1])
		}
	}
	return pkgs
}

// lastLines is the end of s, n lines at most.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// terminals are the pseudo-terminals runAt puts a program's streams on:
// for each stream, a terminal that many columns wide, -1 for one whose size
// was never set, 0 for none.
type terminals struct{ stdout, stderr int }

// runAt runs bin with args and env, its stdout and stderr on the terminals
// asked for, and returns what it wrote to each; it must exit 0.
func runAt(t *testing.T, bin string, args []string, term terminals, env ...string) (stdout, stderr string) {
	t.Helper()
	c := exec.Command(bin, args...)
	c.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var outBuf, errBuf bytes.Buffer
	c.Stdout, c.Stderr = &outBuf, &errBuf
	var slaves []*os.File
	var copied []chan struct{}
	for _, p := range []struct {
		cols   int
		stream *io.Writer
		to     *bytes.Buffer
	}{{term.stdout, &c.Stdout, &outBuf}, {term.stderr, &c.Stderr, &errBuf}} {
		if p.cols == 0 {
			continue
		}
		master, slave := openPTY(t, p.cols)
		defer master.Close()
		*p.stream = slave
		slaves = append(slaves, slave)
		done := make(chan struct{})
		copied = append(copied, done)
		go func() {
			defer close(done)
			_, _ = io.Copy(p.to, master) // ends with EIO once the child and we closed the slave
		}()
	}
	err := c.Run()
	for _, s := range slaves {
		s.Close()
	}
	for _, done := range copied {
		<-done
	}
	if err != nil {
		t.Fatalf("%s %q: %v\nstderr: %s", bin, args, err, errBuf.String())
	}
	return outBuf.String(), errBuf.String()
}

// openPTY opens a pseudo-terminal cols wide (its size left unset for -1)
// that passes output through as written.
func openPTY(t *testing.T, cols int) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	tio, err := unix.IoctlGetTermios(int(s.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST // "\n" stays "\n"
	if err := unix.IoctlSetTermios(int(s.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	if cols >= 0 {
		if err := unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
			t.Fatal(err)
		}
	}
	return m, s
}

// hasLineOf reports whether a line of the help's flags reaches within a
// few columns of width, as wrapping to it does.
func hasLineOf(help string, width int) bool {
	for _, l := range strings.Split(help, "\n") {
		if strings.HasPrefix(l, "  ") && len(l) <= width && len(l) > width-15 {
			return true
		}
	}
	return false
}
