package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/pkg/wire"
)

// misbehavingServer is an MCP server over stdio, written by hand, that
// starts and lists its tools as MCP says, and then misbehaves as its tool
// is named:
//
//	answer        answers the call, text "answered"
//	stderr_flood  writes 32 MiB to stderr, then answers
//	stderr_crash  writes 32 MiB to stderr, a last line, and exits 4
//	notify_flood  sends 10000 log notifications and 10000 progress
//	              notifications for a token nobody gave, then answers
//	wrong_id      answers the call under an id that was never asked
//	twice         answers the call twice
//	exit0         exits 0 without answering
//	slow          answers after 400ms, every time
//	ask_client    asks the client (a ping) and answers once it is answered
//	close_stdout  closes its stdout without answering and stays
//	junk          writes a banner, log lines (plain, and JSON as pino
//	              writes them) and blank lines around its answer
//	rpc_error     answers with a JSON-RPC error
//
// Each call of a tool is answered "answered by PID".
func misbehavingServer() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	answer := func(id json.RawMessage) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": "answered by " + strconv.Itoa(os.Getpid())}}}})
	}
	flood := func() {
		line := []byte(strings.Repeat("e", 1023) + "\n")
		for range 32 << 10 {
			os.Stderr.Write(line)
		}
	}
	var waiting json.RawMessage // a call answered once the client answers the ping
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string `json:"name"`
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil {
			continue
		}
		if m.Method == "" && string(m.ID) == `"ping-1"` && waiting != nil {
			answer(waiting)
			waiting = nil
			continue
		}
		if m.ID == nil {
			continue // a notification
		}
		switch m.Method {
		case "initialize":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{
				"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo": map[string]any{"name": "misbehaving", "version": "1"}}})
			continue
		case "tools/list":
			var tools []any
			for _, n := range []string{"answer", "stderr_flood", "stderr_crash", "notify_flood", "wrong_id", "twice", "exit0",
				"slow", "ask_client", "close_stdout", "junk", "rpc_error"} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{"tools": tools}})
			continue
		case "tools/call":
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]any{}})
			continue
		}
		switch m.Params.Name {
		case "stderr_flood":
			flood()
			answer(m.ID)
		case "stderr_crash":
			flood()
			fmt.Fprintln(os.Stderr, "last words before the crash")
			return 4
		case "notify_flood":
			for i := range 10000 {
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "working " + strconv.Itoa(i)}})
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": "nobody-gave-this", "progress": i}})
			}
			answer(m.ID)
		case "wrong_id":
			answer(json.RawMessage(`987654`))
		case "twice":
			answer(m.ID)
			answer(m.ID)
		case "exit0":
			return 0
		case "slow":
			time.Sleep(400 * time.Millisecond)
			answer(m.ID)
		case "ask_client":
			waiting = m.ID
			send(map[string]any{"jsonrpc": "2.0", "id": "ping-1", "method": "ping"})
		case "close_stdout":
			os.Stdout.Close()
			time.Sleep(time.Hour)
		case "junk":
			out.WriteString("\nStarting server v1.2 ...\n\n" + `{"level":30,"time":1767225600000,"msg":"call received"}` + "\n")
			answer(m.ID)
			out.WriteString("  done.\n" + `{"level":30,"msg":"call answered"}` + "\n\n")
			out.Flush()
		case "rpc_error":
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": "the database is locked"}})
		default:
			answer(m.ID)
		}
	}
	return 0
}

// misbehavingConfig is a server of misbehavingServer's.
func misbehavingConfig(t *testing.T) *Config {
	cfg := stdioServer(t, "m")
	cfg.Env = []EnvVar{{Name: "MCPTEST_SERVER", Value: "misbehave", HasValue: true}}
	cfg.Timeout = 3 * time.Second
	return cfg
}

// patient gives a server's calls a minute: what floods is read at some
// thousands of messages, or some MB, a second on a loaded machine, slower
// under the race detector.
func patient(config func(t *testing.T) *Config) func(t *testing.T) *Config {
	return func(t *testing.T) *Config {
		c := config(t)
		c.Timeout = time.Minute
		return c
	}
}

// A server's modes of misbehaving, each the run survives: the call (or
// the start) ends with a result or an error that says what happened,
// within its timeout, and the set goes on serving, restarting the server
// when it ended.
var misbehaviours = []struct {
	name string
	// config is the server's declaration; nil: misbehavingConfig.
	config func(t *testing.T) *Config
	// start, when set, is what the start's error must say; the server
	// does not start.
	start string
	// tool is called, and its result must hold want, of kind kind.
	tool, want, kind string
	// check, when set, checks more, with the set and the server's folder.
	check func(t *testing.T, s *Set, dir string)
}{
	{name: "exits at start", config: func(t *testing.T) *Config { return stdioServer(t, "m", "--fail-start") },
		start: "exited: exit status 1\nstderr:\nmcptest: cannot open the database: permission denied"},
	{name: "hangs at start", config: func(t *testing.T) *Config {
		c := stdioServer(t, "m", "--hang-start")
		c.StartTimeout = 300 * time.Millisecond
		return c
	}, start: "no answer within the start timeout"},
	{name: "writes a message that is not JSON-RPC at start", config: func(t *testing.T) *Config { return stdioServer(t, "m", "--bad-jsonrpc") },
		start: "sent a message that is not valid JSON-RPC"},
	{name: "writes a message that is not JSON-RPC in a call", config: func(t *testing.T) *Config { return stdioServer(t, "m") },
		tool: "m_bad_jsonrpc", want: "sent a message that is not valid JSON-RPC", kind: wire.KindServer},
	{name: "crashes in the middle of a call", config: func(t *testing.T) *Config { return stdioServer(t, "m") },
		tool: "m_crash", want: "mcp server m exited: exit status 3", kind: wire.KindServer},
	{name: "hangs in a call", config: func(t *testing.T) *Config {
		c := stdioServer(t, "m")
		c.Timeout = 300 * time.Millisecond
		return c
	}, tool: "m_slow", want: "timed out after 300ms; the server was sent a cancellation", kind: wire.KindTimeout},
	{name: "answers with a message over 16 MiB", config: patient(func(t *testing.T) *Config { return stdioServer(t, "m") }),
		tool: "m_big", want: "MiB", kind: wire.KindServer},
	{name: "ignores SIGTERM and the end of its stdin, and starts a child", config: func(t *testing.T) *Config { return stdioServer(t, "m", "--child", "--stubborn") },
		tool: "m_echo", want: "still answers",
		check: func(t *testing.T, s *Set, dir string) {
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
		}},
	{name: "floods its stderr", config: patient(misbehavingConfig), tool: "m_stderr_flood", want: "answered by "},
	{name: "floods its stderr and crashes", config: patient(misbehavingConfig), tool: "m_stderr_crash", want: "last words before the crash", kind: wire.KindServer,
		check: func(t *testing.T, s *Set, dir string) {
			r := s.Call(context.Background(), "m_stderr_crash", "c9", nil)
			if len(r.Content) > stderrKeep+1024 {
				t.Errorf("the crash's result holds %d bytes of stderr: not the end of it alone", len(r.Content))
			}
		}},
	{name: "floods notifications", config: patient(misbehavingConfig), tool: "m_notify_flood", want: "answered by "},
	{name: "answers under an id never asked", tool: "m_wrong_id", want: "timed out", kind: wire.KindTimeout},
	{name: "answers twice", tool: "m_twice", want: "answered by "},
	{name: "exits 0 without answering", tool: "m_exit0", want: "mcp server m exited: exit status 0", kind: wire.KindServer},
	{name: "closes its stdout and stays", tool: "m_close_stdout", want: "mcp server m closed its stdout, which ends the connection, and did not exit: it was stopped (signal: terminated)", kind: wire.KindServer},
	{name: "writes a banner, log lines and blank lines around its answer", tool: "m_junk", want: "answered by "},
	{name: "answers with a JSON-RPC error", tool: "m_rpc_error", want: "the database is locked", kind: wire.KindServer},
	{name: "asks the client something in the middle of a call", tool: "m_ask_client", want: "answered by "},
	{name: "answers slowly", tool: "m_slow", want: "answered by "},
}

// TestMisbehavingServers runs each misbehaviour against a set of its own:
// the start fails saying why, or the call ends within its timeout with a
// result that says what happened; and the next call is answered, by the
// server restarted when it ended.
func TestMisbehavingServers(t *testing.T) {
	for _, mb := range misbehaviours {
		t.Run(mb.name, func(t *testing.T) {
			cfg := misbehavingConfig(t)
			if mb.config != nil {
				cfg = mb.config(t)
			}
			dir := cfg.Dir
			s := Start(context.Background(), []*Config{cfg}, Options{Dir: dir, Getenv: testEnv(nil)})
			t.Cleanup(s.Close)
			err := s.Statuses()[0].Err
			if mb.start != "" {
				if err == nil || !strings.Contains(err.Error(), mb.start) {
					t.Errorf("start: %v; want %q", err, mb.start)
				}
				if len(s.Tools()) != 0 {
					t.Errorf("the tools of a server that did not start are offered: %v", s.Tools())
				}
				return
			}
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			args := []byte(`{}`)
			switch mb.tool {
			case "m_echo":
				args = []byte(`{"text":"still answers"}`)
			case "m_big":
				args = []byte(`{"n":17000000}`)
			case "m_slow":
				if cfg.Env[0].Value != "misbehave" {
					args = []byte(`{"ms":60000}`)
				}
			}
			start := time.Now()
			r := s.Call(context.Background(), mb.tool, "c1", args)
			if !strings.Contains(r.Content, mb.want) || r.Kind != mb.kind {
				t.Errorf("%s: %.300q (kind %q); want %q, kind %q", mb.tool, r.Content, r.Kind, mb.want, mb.kind)
			}
			t.Logf("%s: %.200q", mb.tool, r.Content)
			if took := time.Since(start); took > cfg.Timeout+5*time.Second {
				t.Errorf("the call took %v, past its timeout %v", took, cfg.Timeout)
			}
			if mb.check != nil {
				mb.check(t, s, dir)
				return
			}
			// The set goes on: the next call is answered.
			next, nextArgs := "m_echo", []byte(`{"text":"next"}`)
			if cfg.Env[0].Value == "misbehave" {
				next, nextArgs = "m_answer", []byte(`{}`)
			}
			if r := s.Call(context.Background(), next, "c2", nextArgs); r.IsError {
				t.Errorf("the call after: %+v", r)
			}
		})
	}
}

// TestMisbehavingServersDocCount: docs/reliability.md counts the modes
// TestMisbehavingServers tries.
func TestMisbehavingServersDocCount(t *testing.T) {
	doc, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`\| (\d+) \| ` + regexp.QuoteMeta("`pkg/mcp/misbehave_test.go` TestMisbehavingServers |")).FindSubmatch(doc)
	if row == nil || string(row[1]) != strconv.Itoa(len(misbehaviours)) {
		t.Errorf("docs/reliability.md's row of TestMisbehavingServers counts %q cases, want %d", row, len(misbehaviours))
	}
}
