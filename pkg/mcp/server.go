package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentloop/agentloop/internal/httpretry"
	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/internal/sandbox"
)

const (
	// terminateWait is how long a stdio server has to exit once its stdin
	// is closed, and again once it has been sent SIGTERM.
	terminateWait = time.Second
	// stderrKeep is how much of the end of a server's stderr is kept, to
	// say why it failed.
	stderrKeep = 8 << 10
	// cancelWait bounds how long closing a session waits for the
	// cancellation notifications of calls cut short to go out.
	cancelWait = time.Second
	// endingWait is how long a call's unexplained error waits to see
	// whether the connection is ending.
	endingWait = 100 * time.Millisecond
)

// session is one connection to a server: for a stdio server, one run of
// its process.
type session struct {
	cs   *sdk.ClientSession
	cmd  *exec.Cmd // stdio only
	pgid int
	// box is a sandboxed stdio server's launch: its private TMPDIR goes
	// when the session is over.
	box    *sandbox.Launch
	pool   *http.Transport // HTTP only
	stderr *tail
	stdout *stdoutFilter
	// canceled counts the calls cut short, notified the cancellation
	// notifications sent; closing waits for the one to reach the other.
	canceled, notified atomic.Int64
	// ended is closed when the connection ends, by the server or by
	// close; why says why.
	ended     chan struct{}
	closeOnce sync.Once
	closed    atomic.Bool
	mu        sync.Mutex
	why       string
	// url is an HTTP server's address as it may be shown (see
	// Config.Shown), for errors; "" for a stdio server. status is the
	// status of its last answer.
	url    string
	status atomic.Int64
}

// connect starts the server (stdio) or opens a session with it (HTTP),
// and lists its tools.
func connect(ctx context.Context, c *Config, l *launch, client *sdk.Client) (*session, []*sdk.Tool, error) {
	s := &session{ended: make(chan struct{})}
	var t sdk.Transport
	if c.URL != "" {
		s.url = c.Shown()
		// A pool of the session's own, closed with it: the shared one would
		// keep its connections open after the run.
		s.pool = http.DefaultTransport.(*http.Transport).Clone()
		// The headers go with every request, a redirected one too: a
		// redirect is followed to the same server only.
		hc := &http.Client{Transport: &httpObserver{base: s.pool, headers: l.headers, notified: &s.notified, status: &s.status}, CheckRedirect: checkRedirect(s.url)}
		t = &sdk.StreamableClientTransport{Endpoint: l.url, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		cmd, stderr, box, err := command(c, l)
		if err != nil {
			return nil, nil, err
		}
		s.cmd, s.stderr, s.box = cmd, stderr, box
		s.stdout = &stdoutFilter{max: maxMessage, note: func(line []byte) {
			stderr.add([]byte("(on stdout, not MCP, ignored) " + string(line) + "\n"))
		}}
		t = &observed{Transport: &stdioTransport{cmd: cmd, out: s.stdout}, notified: &s.notified, cmd: cmd}
	}
	cs, err := client.Connect(ctx, t, nil)
	if s.stderr != nil {
		s.stderr.started()
	}
	if s.cmd != nil && s.cmd.Process != nil {
		s.pgid = s.cmd.Process.Pid // tracked since it started (see observed)
	}
	if err != nil {
		s.reap()
		return nil, nil, s.startError(ctx, err)
	}
	s.cs = cs
	go func() {
		_ = cs.Wait()
		s.end("")
	}()
	var tools []*sdk.Tool
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			s.close()
			return nil, nil, fmt.Errorf("list tools: %w", s.explain(ctx, err))
		}
		tools = append(tools, tool)
	}
	return s, tools, nil
}

// command prepares a stdio server's process: in a process group of its own
// (a terminal's Ctrl-C reaches agentloop, which ends the server itself), and
// sent SIGTERM should agentloop die without ending it.
func command(c *Config, l *launch) (*exec.Cmd, *tail, *sandbox.Launch, error) {
	path := l.argv[0]
	if strings.ContainsRune(path, '/') {
		if !filepath.IsAbs(path) {
			path = filepath.Join(c.Dir, path)
		}
	} else {
		p, err := procgroup.LookPath(path, envValue(l.env, "PATH"))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("cannot start: %q not found on PATH", path)
		}
		path = p
	}
	if l.dir != "" {
		if fi, err := os.Stat(l.dir); err != nil || !fi.IsDir() {
			return nil, nil, nil, fmt.Errorf("cannot start: working folder %s does not exist", l.dir)
		}
	}
	cmd := &exec.Cmd{
		Path: path, Args: l.argv, Env: l.env, Dir: l.dir,
		SysProcAttr: serverProcAttr(),
	}
	box, err := l.settings.Prepare(l.policy, l.dir, path, l.argv, l.env)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot start: %v", err)
	}
	if box != nil {
		cmd.Path, cmd.Args, cmd.Env = box.Path, box.Args, box.Env
	}
	// stderr through a pipe of ours: exec.Cmd's own copying would make
	// Wait wait for a child of the server that holds it open.
	st, err := newTail(stderrKeep)
	if err != nil {
		_ = box.Close()
		return nil, nil, nil, fmt.Errorf("cannot start: %v", err)
	}
	cmd.Stderr = st.w
	return cmd, st, box, nil
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// startError says why a server could not be started.
func (s *session) startError(ctx context.Context, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && s.cmd != nil {
		return fmt.Errorf("cannot start %s: %v", s.cmd.Path, pe.Err)
	}
	return s.explain(ctx, err)
}

// explain makes an error of the SDK's into what a person can act on: a
// stdio server that exited says how, with the end of its stderr.
func (s *session) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer within the start timeout%s", s.stderrText())
		}
		return context.Cause(ctx)
	}
	if text, ok := s.stdioEnd(); ok {
		return errors.New(text)
	}
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return redirect
	}
	if s.url != "" {
		if why := unreachable(s.url, err); why != nil {
			return why
		}
		if code := int(s.status.Load()); code >= 400 {
			hint := "check its url"
			if code == http.StatusUnauthorized || code == http.StatusForbidden {
				hint = "check its headers, such as the Authorization the server wants"
			}
			return fmt.Errorf("%s answered %d %s (%s)", s.url, code, http.StatusText(code), hint)
		}
	}
	return fmt.Errorf("%v%s", err, s.stderrText())
}

// unreachable says that an HTTP server could not be reached, and why, in
// the words a model provider's connection error uses, instead of the
// SDK's chain ("calling "initialize": sending "initialize": rejected by
// transport: Post …: dial tcp …"); nil for another error.
func unreachable(url string, err error) error {
	why, lookup := httpretry.ConnectFailure(err)
	switch {
	case why == nil:
		return nil
	case lookup:
		return fmt.Errorf("cannot connect to %s: %v (check its url and the network)", url, why)
	}
	return fmt.Errorf("cannot connect to %s: %v (is the server running? check its url)", url, why)
}

// stdioEnd says how a stdio server ended, when it did: it wrote a line too
// large to read, or a message that is not one, or it exited; with the end
// of its stderr.
func (s *session) stdioEnd() (string, bool) {
	switch {
	case s.stdout != nil && s.stdout.wroteTooMuch():
		return tooLargeText + s.stderrText(), true
	case s.stdout != nil && s.stdout.protocolError() != "":
		// It exits, with status 0, once its stdin is closed: that is
		// not why it ended.
		return s.stdout.protocolError() + s.stderrText(), true
	case s.cmd != nil && s.cmd.ProcessState != nil && s.stdout != nil && s.stdout.closedAndStayed():
		return "closed its stdout, which ends the connection, and did not exit: it was stopped (" +
			s.cmd.ProcessState.String() + ")" + s.stderrText(), true
	case s.cmd != nil && s.cmd.ProcessState != nil:
		return "exited: " + s.cmd.ProcessState.String() + s.stderrText(), true
	}
	return "", false
}

func (s *session) stderrText() string {
	if s.stderr == nil {
		return ""
	}
	b := bytes.TrimSpace(s.stderr.bytes())
	if len(b) == 0 {
		return ""
	}
	return "\nstderr:\n" + string(b)
}

// end marks the session over; the first reason given stays.
func (s *session) end(why string) {
	s.mu.Lock()
	if s.why == "" {
		s.why = why
	}
	s.mu.Unlock()
	s.closeOnce.Do(func() { close(s.ended) })
}

// alive reports whether the session can take calls.
func (s *session) alive() bool {
	if s.broken() {
		return false
	}
	select {
	case <-s.ended:
		return false
	default:
		return true
	}
}

// broken reports whether a stdio server sent a message that is not one:
// the SDK ends the connection at it, so the session is over whether or
// not its end has been seen yet.
func (s *session) broken() bool {
	return s.stdout != nil && s.stdout.protocolError() != ""
}

// ending reports whether the session ends within a moment: a call's
// error that names no cause may be the first sign of a connection going.
func (s *session) ending() bool {
	if s.broken() {
		return true
	}
	select {
	case <-s.ended:
		return true
	case <-time.After(endingWait):
		return false
	}
}

// exitText says how a session that ended by itself ended: a stdio server's
// exit status and the end of its stderr.
func (s *session) exitText() string {
	s.close()
	if text, ok := s.stdioEnd(); ok {
		return text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.why != "" {
		return s.why
	}
	return "closed the connection" + s.stderrText()
}

// tooLargeText says why a stdio server that wrote a message over the
// bound was stopped.
var tooLargeText = fmt.Sprintf("was stopped: it wrote a message of more than %d MiB, the most agentloop reads", maxMessage>>20)

// close ends the session: the cancellations of calls cut short go out
// first; then a stdio server's stdin is closed, and it is waited for, sent
// SIGTERM, then SIGKILL (stdinCloser); whatever is left of its process
// group is then ended too.
func (s *session) close() {
	if !s.closed.CompareAndSwap(false, true) {
		<-s.ended
		return
	}
	deadline := time.Now().Add(cancelWait)
	for s.notified.Load() < s.canceled.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if s.cs != nil {
		_ = s.cs.Close()
	}
	s.reap()
	s.end("closed")
}

// reap ends what is left of a stdio server's process group, or closes an
// HTTP server's connections.
func (s *session) reap() {
	if s.pool != nil {
		s.pool.CloseIdleConnections()
	}
	if s.pgid > 0 {
		procgroup.Sweep(s.pgid)
		procgroup.Untrack(s.pgid)
	}
	if s.stderr != nil {
		s.stderr.wait()
	}
	if s.box != nil {
		_ = s.box.Close()
	}
}

// observed is a stdio server's transport: the process group of the
// command it starts is tracked from its start, so that a second Ctrl-C
// cannot miss it, and its connection counts the cancellation notifications
// it writes.
type observed struct {
	sdk.Transport
	notified *atomic.Int64
	cmd      *exec.Cmd
}

func (o *observed) Connect(ctx context.Context) (sdk.Connection, error) {
	var c sdk.Connection
	err := procgroup.Start(func() (int, error) {
		var err error
		if c, err = o.Transport.Connect(ctx); err != nil {
			return 0, err
		}
		return o.cmd.Process.Pid, nil
	})
	if err != nil {
		return nil, err
	}
	return &observedConn{Connection: c, notified: o.notified}, nil
}

type observedConn struct {
	sdk.Connection
	notified *atomic.Int64
}

// Read passes on what the server sent, a tool result with bytes that are
// not valid base64 made one the SDK reads (see keepGoodContent).
func (c *observedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		resp.Result, _ = keepGoodContent(resp.Result)
	}
	return msg, err
}

func (c *observedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/cancelled" {
		c.notified.Add(1)
	}
	return err
}

// httpObserver sends a server's headers with every request, counts the
// cancellation notifications posted, and reads the answers' tool results
// as observedConn does a stdio server's.
type httpObserver struct {
	base     http.RoundTripper
	headers  http.Header
	notified *atomic.Int64
	status   *atomic.Int64 // of the last response
}

func (h *httpObserver) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h.headers {
		req.Header[k] = v
	}
	if tp, ts := traceParent(req.Context()); tp != "" {
		req.Header.Set("traceparent", tp)
		if ts != "" {
			req.Header.Set("tracestate", ts)
		}
	}
	cancel := false
	if req.Method == http.MethodPost && req.GetBody != nil {
		if body, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(body, 4096))
			body.Close()
			cancel = bytes.Contains(b, []byte(`"notifications/cancelled"`))
		}
	}
	resp, err := h.base.RoundTrip(req)
	if cancel {
		h.notified.Add(1)
	}
	if resp != nil && h.status != nil {
		h.status.Store(int64(resp.StatusCode))
	}
	if err == nil && req.Method == http.MethodPost && resp.StatusCode == http.StatusOK {
		// A tool result is read with its bad bytes replaced (see
		// keepGoodContent): its length may change.
		resp.Body = fixedBody(resp)
		resp.ContentLength = -1
		resp.Header.Del("Content-Length")
	}
	return resp, err
}

// tail keeps the last max bytes of a server's stderr.
type tail struct {
	max  int
	r, w *os.File
	mu   sync.Mutex
	buf  []byte
	done chan struct{}
}

// newTail reads a new pipe; w is for the server.
func newTail(max int) (*tail, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	t := &tail{max: max, r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		chunk := make([]byte, 4096)
		for {
			n, err := r.Read(chunk)
			if n > 0 {
				t.add(chunk[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return t, nil
}

// add keeps b at the end of what the server wrote.
func (t *tail) add(b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
}

// started closes this process's copy of the writing end, once the server
// has its own: the stream then ends when the server's processes do.
func (t *tail) started() { _ = t.w.Close() }

// wait waits briefly for the end of the stream, then stops reading: a
// process that left the server's group may hold it open for ever.
func (t *tail) wait() {
	t.started()
	select {
	case <-t.done:
	case <-time.After(100 * time.Millisecond):
		_ = t.r.Close()
		<-t.done
	}
	_ = t.r.Close()
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > t.max {
		return append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return append([]byte(nil), t.buf...)
}
