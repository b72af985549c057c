package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/wire"
)

// The test binary is also the test server: run with MCPTEST_SERVER=1, it
// serves mcptest over stdio.
func TestMain(m *testing.M) {
	switch os.Getenv("MCPTEST_SERVER") {
	case "1":
		os.Exit(mcptest.Main(os.Args[1:]))
	case "raw":
		os.Exit(rawServer())
	case "misbehave":
		os.Exit(misbehavingServer())
	}
	os.Exit(m.Run())
}

// stdioServer is the configuration of a test server run as a command.
func stdioServer(t testing.TB, name string, args ...string) *Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &Config{
		Name: name, Command: append([]string{exe}, args...), Prefix: name + "_",
		Env:     []EnvVar{{Name: "MCPTEST_SERVER", Value: "1", HasValue: true}},
		Timeout: 5 * time.Second, StartTimeout: 20 * time.Second, MaxOutput: DefaultMaxOutput,
		File: "test.yaml", Line: 1, Dir: t.TempDir(),
	}
}

// start starts servers and fails the test on any failure.
func start(t *testing.T, dir string, cfgs ...*Config) *Set {
	t.Helper()
	s := Start(context.Background(), cfgs, Options{Dir: dir, Getenv: testEnv(nil)})
	t.Cleanup(s.Close)
	for _, st := range s.Statuses() {
		if st.Err != nil {
			t.Fatalf("server %s: %v", st.Config.Name, st.Err)
		}
	}
	return s
}

// testEnv is agentloop's environment in a test: this process's PATH and
// HOME, and the variables given.
func testEnv(vars map[string]string) Getenv {
	return func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		switch k {
		case "PATH", "HOME":
			return os.Getenv(k)
		}
		return ""
	}
}

func TestResultKinds(t *testing.T) {
	for _, transport := range []string{Stdio, HTTP} {
		t.Run(transport, func(t *testing.T) {
			var cfg *Config
			if transport == Stdio {
				cfg = stdioServer(t, "t")
			} else {
				srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
				defer srv.Close()
				cfg = &Config{Name: "t", URL: srv.URL, Prefix: "t_", Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, MaxOutput: 400, File: "x", Line: 1}
			}
			s := start(t, t.TempDir(), cfg)
			tests := []struct {
				tool, args string
				want       string
				kind       string
				images     int
			}{
				{"t_echo", `{"text":"hello"}`, "hello", "", 0},
				{"t_add", `{"a":2,"b":3}`, `{"sum":5}`, "", 0},
				{"t_image", `{}`, "a red square", "", 1},
				{"t_fail", `{}`, "the tool failed on purpose", wire.KindToolError, 0},
				{"t_media", `{}`, "[audio not shown (audio/wav, 12 bytes)", "", 0},
				{"t_media", `{}`, "[resource link: report.pdf <file:///srv/report.pdf> (application/pdf, 2048 bytes): the quarterly report]", "", 0},
				{"t_media", `{}`, "[resource <file:///srv/notes.txt> (text/plain)]\nembedded notes", "", 0},
				{"t_echo", `{"text":1}`, "arguments do not match the tool's schema", wire.KindBadArguments, 0},
				{"t_echo", `{"text"`, "arguments are not valid JSON", wire.KindBadArguments, 0},
				{"t_echo", `[1]`, "arguments must be a JSON object", wire.KindBadArguments, 0},
				{"t_nope", `{}`, `unknown tool "t_nope"`, wire.KindUnknownTool, 0},
			}
			if transport == HTTP {
				tests = append(tests, struct {
					tool, args string
					want       string
					kind       string
					images     int
				}{"t_big", `{"n":1000}`, "[output truncated: 400 of 1000 bytes shown]", "", 0})
			}
			for _, tt := range tests {
				r := s.Call(context.Background(), tt.tool, "call_1", []byte(tt.args))
				if !strings.Contains(r.Content, tt.want) || r.Kind != tt.kind || len(r.Images) != tt.images {
					t.Errorf("%s %s = %+v; want %q, kind %q, %d images", tt.tool, tt.args, r, tt.want, tt.kind, tt.images)
				}
				if tt.kind != wire.KindUnknownTool && (r.Source != "mcp" || r.Server != "t") {
					t.Errorf("%s: source %q server %q", tt.tool, r.Source, r.Server)
				}
			}
		})
	}
}

// A call that takes longer than the timeout is an error result; the server
// is told to cancel it, and goes on serving.
func TestTimeoutCancels(t *testing.T) {
	dir := t.TempDir()
	cfg := stdioServer(t, "t")
	cfg.Timeout = 200 * time.Millisecond
	s := start(t, dir, cfg)
	r := s.Call(context.Background(), "t_slow", "c1", []byte(`{"ms":60000,"name":"a"}`))
	if r.Kind != wire.KindTimeout || !strings.Contains(r.Content, "timed out after 200ms; the server was sent a cancellation") {
		t.Fatalf("result = %+v", r)
	}
	waitFile(t, filepath.Join(dir, "cancelled-a"))
	if r := s.Call(context.Background(), "t_echo", "c2", []byte(`{"text":"still here"}`)); r.Content != "still here" {
		t.Errorf("after the timeout: %+v", r)
	}
}

// An interrupt cancels the calls in flight and the cancellation reaches
// the server before it is shut down.
func TestInterruptCancels(t *testing.T) {
	dir := t.TempDir()
	s := Start(context.Background(), []*Config{stdioServer(t, "t")}, Options{Dir: dir, Getenv: testEnv(nil)})
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan agent.ToolResult)
	go func() { done <- s.Call(ctx, "t_slow", "c1", []byte(`{"ms":60000,"name":"b"}`)) }()
	waitFile(t, filepath.Join(dir, "started-b"))
	cancel(errors.New("interrupted"))
	r := <-done
	s.Close()
	if r.Kind != wire.KindCanceled || !strings.Contains(r.Content, "canceled before the tool finished (interrupted)") {
		t.Fatalf("result = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "cancelled-b")); err != nil {
		t.Errorf("the server never saw the cancellation: %v", err)
	}
}

// A server that exits in the middle of a call answers that call with how it
// exited; the next call restarts it, once; a second crash is not restarted.
func TestCrashRestartsOnce(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, stdioServer(t, "t"))
	first := s.Call(context.Background(), "t_pid", "c0", nil).Content
	r := s.Call(context.Background(), "t_crash", "c1", nil)
	if r.Kind != wire.KindServer || !strings.Contains(r.Content, "mcp server t exited: exit status 3") || !strings.Contains(r.Content, "fatal: crash requested") {
		t.Fatalf("crash result = %+v", r)
	}
	second := s.Call(context.Background(), "t_pid", "c2", nil)
	if second.IsError || second.Content == first {
		t.Fatalf("after the crash: %+v (first %q)", second, first)
	}
	_ = s.Call(context.Background(), "t_crash", "c3", nil)
	r = s.Call(context.Background(), "t_pid", "c4", nil)
	if r.Kind != wire.KindServer || !strings.Contains(r.Content, "not restarted again") {
		t.Fatalf("after the second crash: %+v", r)
	}
}

// Closing a set ends the server and what it started, even a server that
// ignores the end of its stdin and SIGTERM.
func TestCloseLeavesNoProcess(t *testing.T) {
	for _, args := range [][]string{{"--child"}, {"--child", "--stubborn"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			s := start(t, dir, stdioServer(t, "t", args...))
			server, child := readPid(t, filepath.Join(dir, "server.pid")), readPid(t, filepath.Join(dir, "child.pid"))
			s.Close()
			for _, pid := range []int{server, child} {
				if alive(pid) {
					t.Errorf("process %d still runs after Close", pid)
				}
			}
			if live, _ := procgroup.LiveMember(server); live {
				t.Errorf("the server's group %d has a live process", server)
			}
		})
	}
}

// A server gets PATH, HOME, LANG, TMPDIR and what its env: names, nothing
// else of agentloop's environment.
func TestMinimalEnvironment(t *testing.T) {
	cfg := stdioServer(t, "t")
	cfg.Env = append(cfg.Env, EnvVar{Name: "GITHUB_TOKEN"}, EnvVar{Name: "SET_ONE", Value: "x-${SECRET_PART}-y", HasValue: true})
	env := testEnv(map[string]string{"GITHUB_TOKEN": "ghp_passed", "OTHER": "not passed", "OPENAI_API_KEY": "sk-never", "SECRET_PART": "abc123456"})
	s := Start(context.Background(), []*Config{cfg}, Options{Getenv: env})
	defer s.Close()
	for name, want := range map[string]string{"GITHUB_TOKEN": "ghp_passed", "OTHER": "(unset)", "OPENAI_API_KEY": "(unset)", "SET_ONE": "x-abc123456-y"} {
		r := s.Call(context.Background(), "t_env", "c", []byte(`{"name":"`+name+`"}`))
		if r.Content != name+"="+want {
			t.Errorf("%s: got %q", name, r.Content)
		}
	}
	secrets := strings.Join(s.Secrets(), " ")
	for _, want := range []string{"ghp_passed", "abc123456", "x-abc123456-y"} {
		if !strings.Contains(secrets, want) {
			t.Errorf("secrets %q miss %q", secrets, want)
		}
	}
}

func TestStartFailures(t *testing.T) {
	missing := stdioServer(t, "missing")
	missing.Command = []string{"no-such-mcp-server-here"}
	failing := stdioServer(t, "failing", "--fail-start")
	hanging := stdioServer(t, "hanging", "--hang-start")
	hanging.StartTimeout = 300 * time.Millisecond
	unset := stdioServer(t, "unset")
	unset.Env = append(unset.Env, EnvVar{Name: "TOKEN", Value: "${NOT_SET_ANYWHERE}", HasValue: true})
	s := Start(context.Background(), []*Config{missing, failing, hanging, unset}, Options{Getenv: testEnv(nil)})
	defer s.Close()
	want := []string{
		`cannot start: "no-such-mcp-server-here" not found on PATH`,
		"exited: exit status 1\nstderr:\nmcptest: cannot open the database: permission denied",
		"no answer within the start timeout",
		"env.TOKEN: ${NOT_SET_ANYWHERE} is not set in the environment",
	}
	for i, st := range s.Statuses() {
		if st.Err == nil || !strings.Contains(st.Err.Error(), want[i]) {
			t.Errorf("%s: %v; want %q", st.Config.Name, st.Err, want[i])
		}
	}
	if len(s.Tools()) != 0 {
		t.Errorf("tools of failed servers are offered: %v", s.Tools())
	}
}

// Names that differ on one server can meet once a character the APIs
// refuse in a name becomes _. A prefix cannot part a server's tools from
// its own, so the problem says to leave one out; a second server offering
// the name is told to take a prefix. A name the server lists twice is one
// tool.
func TestConflictsWithinAServer(t *testing.T) {
	a := &Config{Name: "a", Prefix: "a_", File: "a.yaml", Line: 1}
	b := &Config{Name: "b", Prefix: "a_", File: "b.yaml", Line: 2}
	tool := func(c *Config, name string) *Tool {
		return &Tool{Name: c.exposedName(name), Original: name, Server: c.Name}
	}
	s := &Set{tools: map[string]*Tool{}, servers: []*server{
		{cfg: a, status: Status{Config: a, Tools: []*Tool{tool(a, "x.y"), tool(a, "x_y"), tool(a, "z")}}},
		{cfg: b, status: Status{Config: b, Tools: []*Tool{tool(b, "x/y")}}},
	}}
	s.index()
	want := []string{
		`a.yaml:1: mcp server a lists tools "x.y" and "x_y", both offered as a_x_y (a character the APIs refuse in a name becomes _); leave one out with the server's tools: list`,
		`b.yaml:2: tool a_x_y of mcp server b is also offered by mcp server a (a.yaml:1); set a prefix: on one of them`,
	}
	if got := s.Conflicts(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("conflicts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(s.Tools()); n != 2 {
		t.Errorf("%d tools offered, want 2 (a_x_y, a_z)", n)
	}

	srv := &server{cfg: a}
	offered, listed, err := srv.offer([]*sdk.Tool{{Name: "echo"}, {Name: "echo"}, {Name: "add"}})
	if err != nil || len(offered) != 2 || strings.Join(listed, ",") != "echo,add" {
		t.Errorf("a tool listed twice: offered %d, listed %v, err %v; want 2, [echo add]", len(offered), listed, err)
	}
}

func TestAllowListAndConflicts(t *testing.T) {
	a := stdioServer(t, "a")
	a.Tools = []string{"echo", "pid"}
	a.Confirm = []string{"pid"}
	b := stdioServer(t, "b")
	b.Prefix = "a_"
	b.Tools = []string{"echo"}
	s := start(t, "", a, b)
	var names []string
	for _, tool := range s.Tools() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "a_echo,a_pid" {
		t.Errorf("tools = %v", names)
	}
	if tool, _ := s.Lookup("a_pid"); !tool.Confirm {
		t.Error("a_pid does not ask first")
	}
	c := s.Conflicts()
	if len(c) != 1 || !strings.Contains(c[0], "tool a_echo of mcp server b is also offered by mcp server a (test.yaml:1)") {
		t.Errorf("conflicts = %q", c)
	}

	typo := stdioServer(t, "typo")
	typo.Tools = []string{"ecko"}
	s2 := Start(context.Background(), []*Config{typo}, Options{Getenv: testEnv(nil)})
	defer s2.Close()
	if err := s2.Statuses()[0].Err; err == nil || !strings.Contains(err.Error(), `the server has no tool ecko (did you mean 'echo'?)`) {
		t.Errorf("err = %v", err)
	}
}

func TestManyTools(t *testing.T) {
	s := start(t, "", stdioServer(t, "m", "--tools", "300", "--only", "none"))
	if n := len(s.Tools()); n != 300 {
		t.Fatalf("%d tools, want 300", n)
	}
	if r := s.Call(context.Background(), "m_tool_0300", "c", nil); r.Content != "tool_0300" {
		t.Errorf("result = %+v", r)
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	waitFile(t, path)
	b, _ := os.ReadFile(path)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// alive reports whether a process still runs (a zombie does not) after
// a while for one just killed to end: long, for a loaded machine, but over
// as soon as it has.
func alive(pid int) bool {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return false
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && strings.HasPrefix(string(stat[i+2:]), "Z") {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// An HTTP server that goes away answers the calls that follow with why,
// and is reconnected once; when that fails too, calls say so.
// TestHTTPStartFailures: an HTTP server that cannot be reached or answers
// with an error status is said as a model provider's would be, naming its
// url, what went wrong and what to check; it was the SDK's chain
// ("calling "initialize": sending "initialize": rejected by transport:
// Post …: dial tcp …", "…: Not Found").
func TestHTTPStartFailures(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL + "/mcp"
	closed.Close()
	status := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(code)
			fmt.Fprint(w, "<html><body>nope</body></html>")
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/mcp"
	}
	notFound, unauthorized, forbidden := status(http.StatusNotFound), status(http.StatusUnauthorized), status(http.StatusForbidden)
	var cfgs []*Config
	for i, u := range []string{closedURL, notFound, unauthorized, forbidden} {
		cfgs = append(cfgs, &Config{Name: fmt.Sprint("s", i), URL: u, Timeout: 5 * time.Second, StartTimeout: 5 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1})
	}
	s := Start(context.Background(), cfgs, Options{Getenv: testEnv(nil)})
	defer s.Close()
	want := []string{
		"^cannot connect to " + regexp.QuoteMeta(closedURL) + `: connection refused \(is the server running\? check its url\)$`,
		"^" + regexp.QuoteMeta(notFound) + ` answered 404 Not Found \(check its url\)$`,
		"^" + regexp.QuoteMeta(unauthorized) + ` answered 401 Unauthorized \(check its headers, such as the Authorization the server wants\)$`,
		"^" + regexp.QuoteMeta(forbidden) + ` answered 403 Forbidden \(check its headers`,
	}
	for i, st := range s.Statuses() {
		if st.Err == nil || !regexp.MustCompile(want[i]).MatchString(st.Err.Error()) {
			t.Errorf("%s: %v; want %s", st.Config.URL, st.Err, want[i])
		}
	}
}

// A name that does not resolve (no lookup is made: the error is built as
// the resolver returns it, wrapped as the SDK wraps it).
func TestUnreachableNoSuchHost(t *testing.T) {
	dns := &net.DNSError{Err: "no such host", Name: "mcp.example", IsNotFound: true}
	err := fmt.Errorf("calling \"initialize\": %w", &net.OpError{Op: "dial", Net: "tcp", Err: dns})
	got := unreachable("https://mcp.example/mcp", err)
	if want := "cannot connect to https://mcp.example/mcp: lookup mcp.example: no such host (check its url and the network)"; got == nil || got.Error() != want {
		t.Errorf("got %v, want %q", got, want)
	}
	if got := unreachable("https://mcp.example/mcp", errors.New("Not Found")); got != nil {
		t.Errorf("an error that is not a connection's: %v", got)
	}
}

func TestHTTPServerGone(t *testing.T) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	cfg := &Config{Name: "web", URL: srv.URL, Prefix: "web_", Timeout: 5 * time.Second, StartTimeout: 5 * time.Second, MaxOutput: DefaultMaxOutput, File: "x", Line: 1}
	s := start(t, "", cfg)
	if r := s.Call(context.Background(), "web_echo", "c1", []byte(`{"text":"up"}`)); r.Content != "up" {
		t.Fatalf("first call: %+v", r)
	}
	srv.CloseClientConnections()
	srv.Close()
	r := s.Call(context.Background(), "web_echo", "c2", []byte(`{"text":"down"}`))
	if r.Kind != wire.KindServer || !strings.Contains(r.Content, "mcp server web is unreachable") {
		t.Errorf("gone: %+v", r)
	}
	r = s.Call(context.Background(), "web_echo", "c3", []byte(`{"text":"again"}`))
	if r.Kind != wire.KindServer || !strings.Contains(r.Content, "and restarting it failed") {
		t.Errorf("after a failed restart: %+v", r)
	}
}

// rawServer is an MCP server written by hand, over stdio, whose tool bad
// answers a result that is not MCP's (content that is not a list) and
// whose tool weird answers content of a kind MCP does not have; its tool
// pid says its process id.
func rawServer() int {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string `json:"name"`
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "raw", "version": "1"}}
		case "tools/list":
			var tools []any
			for _, n := range []string{"bad", "weird", "pid"} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
			result = map[string]any{"tools": tools}
		case "tools/call":
			switch m.Params.Name {
			case "bad":
				result = map[string]any{"content": "not a list"}
			case "weird":
				result = map[string]any{"content": []any{map[string]any{"type": "video", "data": "AAAA"}}}
			default:
				result = map[string]any{"content": []any{map[string]any{"type": "text", "text": strconv.Itoa(os.Getpid())}}}
			}
		default:
			result = map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		fmt.Printf("%s\n", b)
	}
	return 0
}

// A result that is not MCP's is an error result for its call, saying so;
// the server, which did not exit, goes on serving the calls that follow.
func TestMalformedResult(t *testing.T) {
	cfg := stdioServer(t, "raw")
	cfg.Env = []EnvVar{{Name: "MCPTEST_SERVER", Value: "raw", HasValue: true}}
	s := start(t, "", cfg)
	pid := s.Call(context.Background(), "raw_pid", "c1", nil)
	if pid.IsError {
		t.Fatalf("pid: %+v", pid)
	}
	for _, tool := range []string{"raw_bad", "raw_weird"} {
		r := s.Call(context.Background(), tool, "c2", nil)
		if r.Kind != wire.KindServer || !strings.HasPrefix(r.Content, "mcp server raw sent a result agentloop cannot read: ") {
			t.Errorf("%s: %+v", tool, r)
		}
	}
	if again := s.Call(context.Background(), "raw_pid", "c3", nil); again.IsError || again.Content != pid.Content {
		t.Errorf("after the results that were not MCP's: %+v, want the same server (%s)", again, pid.Content)
	}
}
