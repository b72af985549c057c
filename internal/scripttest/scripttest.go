// Package scripttest holds what the testscript scenarios of agentloop run
// with: the programs a test binary serves as commands (agentloop itself and
// a stdio MCP server), and the scripts' own commands (fake model APIs, an
// MCP server over HTTP, an OTLP trace receiver, exit codes, peak memory,
// processes gone). Both the
// root package's scenarios and the system tests in e2e use it.
package scripttest

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/cmd"
	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/internal/sandbox"
)

// Commands are the programs a test binary serves when testscript.Main
// starts it under their names: agentloop (cmd.Main, recording its peak
// memory for the maxrss command when asked) and mcpfake, an MCP server
// over stdio built with the SDK agentloop uses.
func Commands() map[string]func() {
	return map[string]func(){
		"agentloop": func() {
			peakFile := os.Getenv(peakRSSEnv)
			os.Unsetenv(peakRSSEnv)
			code := cmd.Main()
			if peakFile != "" {
				recordPeakRSS(peakFile)
			}
			os.Exit(code)
		},
		"mcpfake": func() { os.Exit(mcptest.Main(os.Args[1:])) },
	}
}

// Params are the parameters of the scenarios of a folder; vars are set in
// each scenario's environment, and update rewrites the scripts with the
// output they got (testscript.Params.UpdateScripts).
func Params(dir string, vars map[string]string, update bool) testscript.Params {
	return testscript.Params{
		Dir:           dir,
		UpdateScripts: update,
		Setup: func(env *testscript.Env) error {
			// A clean, predictable environment: no keys, no user config.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/.state")
			env.Setenv("NO_COLOR", "1")
			// The repository, for scripts that run the README's commands in it.
			if wd, err := os.Getwd(); err == nil {
				env.Setenv("REPO", wd)
			}
			for k, v := range vars {
				env.Setenv(k, v)
			}
			return WriteDocBlocks(env.WorkDir)
		},
		// [root]: the scenario runs as root, who may read any process
		// unless a capability is dropped. [held:ADDR]: something outside
		// the tests listens on ADDR.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			// [landlock]: the kernel restricts files; [landlock-tcp]: TCP too.
			if cond == "landlock" {
				return sandbox.ABI() >= 1, nil
			}
			if cond == "landlock-tcp" {
				return sandbox.ABI() >= 4, nil
			}
			// [sighup]: a hangup reaches the programs a scenario starts.
			// Under nohup (a long test run left in the background) it is
			// ignored, and they inherit that, as they should.
			if cond == "sighup" {
				return !signal.Ignored(syscall.SIGHUP), nil
			}
			if addr, ok := strings.CutPrefix(cond, "held:"); ok {
				return addressHeld(addr), nil
			}
			return false, errors.New("unknown condition " + cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":  cmdExitCode,
			"fakeapi":   cmdFakeAPI,
			"gone":      cmdGone,
			"maxrss":    cmdMaxRSS,
			"mcpserve":  cmdMCPServe,
			"tcplisten": cmdTCPListen,
			"otlp":      cmdOTLP,
		},
	}
}

// heldAddrs records, once for the test run, whether a server outside the
// tests holds each address addressHeld was asked about.
var heldAddrs sync.Map

// addressHeld reports whether something other than these tests listens on
// addr, a fixed address a README command names (Ollama's port). Another
// test run on the machine holds it for a moment only, so it is tried for
// 30 s before it counts as held. The answer is kept for the rest of the
// run: once a scenario's own fake server listens there, it is no longer
// a question.
func addressHeld(addr string) bool {
	if held, ok := heldAddrs.Load(addr); ok {
		return held.(bool)
	}
	held := true
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		l, err := net.Listen("tcp", addr)
		if err == nil {
			l.Close()
			held = false
			break
		}
		if !errors.Is(err, syscall.EADDRINUSE) || time.Now().After(deadline) {
			break
		}
	}
	actual, _ := heldAddrs.LoadOrStore(addr, held)
	return actual.(bool)
}

// cmdGone asserts that the processes whose pids the files hold (every
// number in them: "start 1234" lines, a pid alone) have ended:
//
//	gone FILE...
//
// A process sent SIGKILL a moment ago may not have been scheduled to die
// yet on a busy machine, and one left a zombie (dead, not yet reaped by
// the process it was handed to) runs nothing: a process counts as left
// running only if it still runs, not a zombie, after 3 s.
func cmdGone(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: gone FILE...")
	}
	var pids []int
	for _, f := range args {
		for _, field := range strings.Fields(ts.ReadFile(f)) {
			if pid, err := strconv.Atoi(field); err == nil && pid > 1 {
				pids = append(pids, pid)
			}
		}
	}
	if len(pids) == 0 {
		ts.Fatalf("gone: no pid in %s", strings.Join(args, " "))
	}
	running := func() []int {
		var left []int
		for _, pid := range pids {
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				continue
			}
			// The state follows the command's name in parentheses.
			if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' {
				left = append(left, pid)
			}
		}
		return left
	}
	left := running()
	for deadline := time.Now().Add(3 * time.Second); len(left) > 0 && !neg && time.Now().Before(deadline); left = running() {
		time.Sleep(20 * time.Millisecond)
	}
	switch {
	case neg && len(left) == 0:
		ts.Fatalf("gone: every process has ended")
	case !neg && len(left) > 0:
		ts.Fatalf("gone: still running: %v", left)
	}
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

// fakeServer is what a fake API of a script offers the fakeapi command.
type fakeServer interface {
	Check() error
	Remaining() int
	Requests() []fakeapi.Request
	Close()
}

var fakeServers sync.Map // *testscript.TestScript → fakeServer

// cmdFakeAPI runs a scripted model API inside the test process:
//
//	fakeapi openai|responses|anthropic script.json [KEY [ADDR]]   start it; $FAKE_URL is its base URL, $FAKE_ADDR its host:port
//	                                   (an openai or anthropic script that is an object plays
//	                                   many conversations at once: fakeapi.Conversations)
//	fakeapi check                      no grammar violation, every step played
//	fakeapi requests FILE              write the request bodies received, one a line
//	fakeapi wait N                     wait (60 s at most) until N requests have arrived
//	fakeapi batches N BILLED           N batches were created, and BILLED requests of them billed
//	fakeapi stop                       shut it down (a closed port for later commands)
func cmdFakeAPI(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: fakeapi openai|responses|anthropic|check|requests|stop ...")
	}
	get := func() fakeServer {
		v, ok := fakeServers.Load(ts)
		if !ok {
			ts.Fatalf("fakeapi: no server started")
		}
		return v.(fakeServer)
	}
	switch args[0] {
	case "openai", "responses", "anthropic":
		if len(args) < 2 {
			ts.Fatalf("usage: fakeapi %s script.json [KEY]", args[0])
		}
		script := []byte(ts.ReadFile(args[1]))
		key := ""
		if len(args) > 2 {
			key = args[2]
		}
		addr := ""
		if len(args) > 3 {
			addr = args[3]
		}
		var srv fakeServer
		var url string
		var steps []fakeapi.Step
		conversations := fakeapi.IsConversations(script)
		if !conversations {
			var err error
			steps, err = fakeapi.LoadScript(script)
			ts.Check(err)
		}
		switch {
		case conversations:
			c, err := fakeapi.LoadConversations(script)
			ts.Check(err)
			switch args[0] {
			case "openai":
				s := fakeapi.NewOpenAIConversations(c, key)
				srv, url = s, s.BaseURL()
			case "responses":
				s := fakeapi.NewResponsesConversations(c, key)
				srv, url = s, s.BaseURL()
			default:
				s := fakeapi.NewAnthropicConversations(c, key)
				srv, url = s, s.BaseURL()
			}
		case args[0] == "openai":
			s, err := fakeapi.NewOpenAIAt(addr, steps, key)
			if err != nil {
				ts.Fatalf("fakeapi: %v", err)
			}
			srv, url = s, s.BaseURL()
		case args[0] == "responses":
			s := fakeapi.NewResponses(steps, key)
			srv, url = s, s.BaseURL()
		default:
			s := fakeapi.NewAnthropic(steps, key)
			srv, url = s, s.BaseURL()
		}
		fakeServers.Store(ts, srv)
		ts.Defer(func() { srv.Close(); fakeServers.Delete(ts) })
		ts.Setenv("FAKE_URL", url)
		ts.Setenv("FAKE_ADDR", strings.SplitN(strings.TrimPrefix(url, "http://"), "/", 2)[0])
	case "check":
		srv := get()
		err := srv.Check()
		if err == nil && srv.Remaining() > 0 {
			err = errors.New(strconv.Itoa(srv.Remaining()) + " scripted step(s) were never requested")
		}
		if neg {
			if err == nil {
				ts.Fatalf("fakeapi check: no violation")
			}
			return
		}
		ts.Check(err)
	case "requests":
		if len(args) != 2 {
			ts.Fatalf("usage: fakeapi requests FILE")
		}
		var b strings.Builder
		for _, r := range get().Requests() {
			b.Write(r.Body)
			b.WriteByte('\n')
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
	case "wait":
		n, err := strconv.Atoi(strings.Join(args[1:], ""))
		if len(args) != 2 || err != nil {
			ts.Fatalf("usage: fakeapi wait N")
		}
		srv := get()
		for deadline := time.Now().Add(time.Minute); len(srv.Requests()) < n; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				ts.Fatalf("fakeapi wait: %d request(s) in a minute, not %d", len(srv.Requests()), n)
			}
		}
	case "batches":
		if len(args) != 3 {
			ts.Fatalf("usage: fakeapi batches N BILLED")
		}
		b, ok := get().(interface{ BatchCounts() fakeapi.BatchCounts })
		if !ok {
			ts.Fatalf("fakeapi batches: the server has no Batch API")
		}
		c := b.BatchCounts()
		got := fmt.Sprintf("%d %d", c.Batches, c.Billed)
		if want := args[1] + " " + args[2]; (got == want) == neg {
			ts.Fatalf("fakeapi batches: %d batches created, %d requests billed (%d run); want %s %s", c.Batches, c.Billed, c.Requests, args[1], args[2])
		}
	case "stop":
		get().Close()
	default:
		ts.Fatalf("fakeapi: unknown subcommand %q", args[0])
	}
}

// cmdMCPServe serves the test MCP server over streamable HTTP on loopback
// inside the test process, for as long as the script runs:
//
//	mcpserve [--tools N] [--bad-schemas]    $MCP_URL is its endpoint
//	mcpserve stop                           shut it down (a closed port)
func cmdMCPServe(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 1 && args[0] == "stop" {
		v, ok := mcpServers.Load(ts)
		if !ok {
			ts.Fatalf("mcpserve: no server started")
		}
		v.(*httptest.Server).Close()
		return
	}
	var o mcptest.Options
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--bad-schemas":
			o.BadSchemas = true
		case "--tools":
			i++
			n, err := strconv.Atoi(args[i])
			ts.Check(err)
			o.Tools = n
		default:
			ts.Fatalf("mcpserve: unknown argument %q", args[i])
		}
	}
	srv := httptest.NewServer(mcptest.Handler(o))
	mcpServers.Store(ts, srv)
	ts.Defer(func() { srv.Close(); mcpServers.Delete(ts) })
	ts.Setenv("MCP_URL", srv.URL)
}

var mcpServers sync.Map // *testscript.TestScript → *httptest.Server

// cmdTCPListen listens on a port of 127.0.0.1 that $LISTEN_PORT names and
// counts the connections it accepts, or checks the count:
//
//	tcplisten
//	tcplisten count N
func cmdTCPListen(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 2 && args[0] == "count" {
		v, ok := listeners.Load(ts)
		if !ok {
			ts.Fatalf("tcplisten: not listening")
		}
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		if got := int(v.(*atomic.Int64).Load()); got != want {
			ts.Fatalf("tcplisten: %d connections accepted, want %d", got, want)
		}
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	n := new(atomic.Int64)
	listeners.Store(ts, n)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			_, _ = c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n"))
			_ = c.Close()
		}
	}()
	ts.Defer(func() { _ = l.Close(); listeners.Delete(ts) })
	ts.Setenv("LISTEN_PORT", strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
}

var listeners sync.Map // *testscript.TestScript → *atomic.Int64 of connections
