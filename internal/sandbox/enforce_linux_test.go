package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// The test binary is the tool: with SANDBOX_TEST set it does one thing
// and exits, 0 when it could, 1 with the error when it could not.
func TestMain(m *testing.M) {
	if what, ok := os.LookupEnv("SANDBOX_TEST"); ok {
		os.Exit(helper(what))
	}
	os.Exit(m.Run())
}

func helper(what string) int {
	op, arg, _ := strings.Cut(what, ":")
	var err error
	switch op {
	case "write":
		err = os.WriteFile(arg, []byte("x"), 0o644)
	case "read":
		_, err = os.ReadFile(arg)
	case "dial":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			_ = c.Close()
		}
	case "tmpdir":
		err = os.WriteFile(filepath.Join(os.Getenv("TMPDIR"), "f"), []byte("x"), 0o644)
		fmt.Print(os.Getenv("TMPDIR"))
	default:
		err = fmt.Errorf("unknown %q", op)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func needLandlock(t *testing.T) {
	t.Helper()
	if ABI() == 0 {
		t.Skip("this kernel has no Landlock (or it is turned off): nothing is enforced to test")
	}
}

// run runs the helper under p in dir, as a tool runs.
func run(t *testing.T, p Policy, dir, what string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := Settings{}.Prepare(p, dir, exe, []string{exe}, []string{"SANDBOX_TEST=" + what, "TMPDIR=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if l == nil {
		t.Fatal("Prepare: nothing to enforce")
	}
	defer l.Close()
	cmd := exec.Command(l.Path)
	cmd.Args, cmd.Env, cmd.Dir = l.Args, l.Env, dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestReadOnly(t *testing.T) {
	needLandlock(t)
	dir, home := t.TempDir(), t.TempDir()
	for _, target := range []string{filepath.Join(dir, "out"), filepath.Join(home, "x")} {
		out, err := run(t, Policy{Mode: ReadOnly}, dir, "write:"+target)
		if err == nil || !strings.Contains(out, "permission denied") {
			t.Errorf("write %s: %v %q, want permission denied", target, err, out)
		}
		if exists(target) {
			t.Errorf("%s was written", target)
		}
	}
	if out, err := run(t, Policy{Mode: ReadOnly}, dir, "read:"+filepath.Join("/etc", "hostname")); err != nil && !strings.Contains(out, "no such file") {
		t.Errorf("read: %v %q", err, out)
	}
}

// A private TMPDIR per call, writable, gone after it.
func TestPrivateTmp(t *testing.T) {
	needLandlock(t)
	out, err := run(t, Policy{Mode: ReadOnly}, t.TempDir(), "tmpdir:")
	if err != nil {
		t.Fatalf("write to TMPDIR: %v %q", err, out)
	}
	if !strings.Contains(out, "agentloop-tool-") {
		t.Errorf("TMPDIR %q is not a private folder", out)
	}
	if exists(out) {
		t.Errorf("TMPDIR %s left behind", out)
	}
}

func TestWorkspaceWrite(t *testing.T) {
	needLandlock(t)
	dir, home := t.TempDir(), t.TempDir()
	ws := Policy{Mode: WorkspaceWrite}
	if out, err := run(t, ws, dir, "write:"+filepath.Join(dir, "out")); err != nil {
		t.Errorf("write in the workspace: %v %q", err, out)
	}
	if out, err := run(t, ws, dir, "write:"+filepath.Join(home, "x")); err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("write outside: %v %q", err, out)
	}
	if exists(filepath.Join(home, "x")) {
		t.Error("write outside the workspace happened")
	}
	extra := Policy{Mode: WorkspaceWrite, Write: []string{home}}
	if out, err := run(t, extra, dir, "write:"+filepath.Join(home, "x")); err != nil {
		t.Errorf("write: lists it: %v %q", err, out)
	}
}

// In a checkout, .git stays read-only; the rest is written.
func TestWorkspaceGit(t *testing.T) {
	needLandlock(t)
	dir := t.TempDir()
	for _, d := range []string{".git/hooks", "src"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ws := Policy{Mode: WorkspaceWrite}
	for _, target := range []string{".git/hooks/pre-commit", ".git/config", ".git/new"} {
		out, err := run(t, ws, dir, "write:"+filepath.Join(dir, target))
		if err == nil || !strings.Contains(out, "permission denied") {
			t.Errorf("write %s: %v %q, want permission denied", target, err, out)
		}
	}
	if exists(filepath.Join(dir, ".git/hooks/pre-commit")) {
		t.Error("a hook was written")
	}
	for _, target := range []string{"src/new.go", "README"} {
		if out, err := run(t, ws, dir, "write:"+filepath.Join(dir, target)); err != nil {
			t.Errorf("write %s: %v %q", target, err, out)
		}
	}
}

// read: limits reads to what it lists (and the system's folders).
func TestReadList(t *testing.T) {
	needLandlock(t)
	allowed, other := t.TempDir(), t.TempDir()
	for _, d := range []string{allowed, other} {
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := Policy{Mode: ReadOnly, Read: []string{allowed}}
	if out, err := run(t, p, allowed, "read:"+filepath.Join(allowed, "f")); err != nil {
		t.Errorf("read listed: %v %q", err, out)
	}
	if out, err := run(t, p, allowed, "read:"+filepath.Join(other, "f")); err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("read unlisted: %v %q", err, out)
	}
}

// No TCP connect unless the network says so: the listener sees nothing.
func TestNetwork(t *testing.T) {
	needLandlock(t)
	if ABI() < abiTCP {
		t.Skipf("landlock abi %d has no TCP rules (needs %d)", ABI(), abiTCP)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(net.Conn, http.ConnState) { hits.Add(1) }
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port, _ := strconv.Atoi(u.Port())
	dir := t.TempDir()

	out, err := run(t, Policy{Mode: ReadOnly}, dir, "dial:"+u.Host)
	if err == nil || !strings.Contains(out, "permission denied") {
		t.Errorf("network false: %v %q, want permission denied", err, out)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the listener saw %d connection states", n)
	}
	if out, err := run(t, Policy{Mode: ReadOnly, Network: Network{Ports: []uint16{uint16(port)}}}, dir, "dial:"+u.Host); err != nil {
		t.Errorf("port listed: %v %q", err, out)
	}
	if out, err := run(t, Policy{Mode: ReadOnly, Network: Network{Ports: []uint16{uint16(port + 1)}}}, dir, "dial:"+u.Host); err == nil {
		t.Errorf("other port listed: connected %q", out)
	}
	if out, err := run(t, Policy{Mode: ReadOnly, Network: Network{Any: true}}, dir, "dial:"+u.Host); err != nil {
		t.Errorf("network true: %v %q", err, out)
	}
}

// With the ABI capped at 0 nothing is prepared: the tool runs as it is.
func TestLimitedToNone(t *testing.T) {
	l, err := Settings{Limited: true, Limit: 0}.Prepare(Policy{Mode: ReadOnly}, t.TempDir(), "/bin/true", []string{"true"}, nil)
	if err != nil || l != nil {
		t.Errorf("Prepare = %+v, %v; want nothing", l, err)
	}
	if e := (Settings{Limited: true, Limit: 0}).Check(Policy{Mode: ReadOnly}); e.Full || e.String() != "not enforced: kernel has no Landlock" {
		t.Errorf("Check: %v", e)
	}
}

// The launcher reports what it cannot do as the tool's failure.
func TestLauncherCannotExec(t *testing.T) {
	needLandlock(t)
	l, err := Settings{}.Prepare(Policy{Mode: ReadOnly}, t.TempDir(), "/nonexistent/prog", []string{"prog"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := exec.Command(l.Path)
	cmd.Args, cmd.Env = l.Args, l.Env
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 127 || !strings.Contains(string(out), "cannot start the tool") {
		t.Errorf("exit %v, %q", err, out)
	}
}
