//go:build linux

package e2e

import (
	"bytes"
	"io"
	"os"
	"os/exec"
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
	t.Parallel()
	bin := builtAgentloop(t, "-s -w -X github.com/agentloop/agentloop/internal/version.stamped=v0.0.0-early")

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
		plain := builtAgentloop(t, "")
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
