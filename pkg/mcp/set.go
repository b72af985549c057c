package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
	"github.com/agentloop/agentloop/pkg/wire"
)

// Options configure how servers run.
type Options struct {
	// Getenv is agentloop's environment: where ${VAR} references and the
	// variables a server's env: passes through are read; nil is os.Getenv.
	Getenv Getenv
	// Dir is the working directory of stdio servers that name none; ""
	// is this process's.
	Dir string
	// Version is agentloop's, told to each server.
	Version string
	// Names, when set, keeps the tools of each server that starts.
	Names *Names
	// Sandbox restricts stdio servers: those with a sandbox: block get
	// its policy over Sandbox.Mode when SandboxAll, else over off; those
	// without one get Sandbox.Mode when SandboxAll, else none.
	Sandbox    sandbox.Settings
	SandboxAll bool
}

// Set is the MCP servers of one command and the tools they offer. It is
// safe for concurrent use. Close ends every server.
type Set struct {
	opts    Options
	servers []*server
	tools   map[string]*Tool
	// conflicts are the names offered twice, each with the server whose
	// declaration it is a problem of.
	conflicts []conflict
}

// conflict is a name offered twice: by server and by another source.
type conflict struct {
	server, problem string
}

var _ agent.Executor = (*Set)(nil)

// Status is how a server's start went.
type Status struct {
	Config *Config
	// Tools are the tools offered, by name.
	Tools []*Tool
	// Listed is every tool the server listed, offered or not.
	Listed []string
	// StartTime is how long starting and listing took.
	StartTime time.Duration
	// Err says why the server did not start; nil when it did.
	Err error
	// Sandbox is the sandbox the server runs under and what of it the
	// kernel enforces; "" for none.
	Sandbox string
}

// server is one server of a Set.
type server struct {
	cfg    *Config
	opts   *Options
	client *sdk.Client
	launch *launch
	status Status

	mu        sync.Mutex
	sess      *session
	failure   string // why the last session ended, when it did
	restarted bool
}

// Start starts the servers concurrently, each within its start timeout,
// and lists their tools. It waits for all; those that failed are in
// Statuses with their error, and offer nothing.
func Start(ctx context.Context, cfgs []*Config, opts Options) *Set {
	s := &Set{opts: opts, tools: map[string]*Tool{}}
	client := sdk.NewClient(&sdk.Implementation{Name: "agentloop", Version: opts.Version},
		// No roots, no sampling, no elicitation: a server gets calls and
		// nothing else of agentloop.
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	var wg sync.WaitGroup
	for _, c := range cfgs {
		srv := &server{cfg: c, opts: &s.opts, client: client, status: Status{Config: c}}
		s.servers = append(s.servers, srv)
		wg.Go(func() { srv.start(ctx) })
	}
	wg.Wait()
	s.index()
	// A cache: a failure to write it costs the next completion only.
	_ = opts.Names.record(s.servers, s.Secrets())
	return s
}

// index makes the tools of the servers that started the Set's, by name,
// and notes each name offered twice as a conflict.
func (s *Set) index() {
	type owned struct {
		srv  *server
		tool *Tool
	}
	owner := map[string]owned{}
	for _, srv := range s.servers {
		for _, t := range srv.status.Tools {
			prev, ok := owner[t.Name]
			switch {
			case !ok:
				owner[t.Name] = owned{srv, t}
				s.tools[t.Name] = t
			case prev.srv != srv:
				s.conflicts = append(s.conflicts, conflict{srv.cfg.Name, fmt.Sprintf("%s: tool %s of mcp server %s is also offered by mcp server %s (%s); set a prefix: on one of them",
					srv.cfg.Where(), t.Name, srv.cfg.Name, prev.srv.cfg.Name, prev.srv.cfg.Where())})
			default:
				// A prefix cannot part a server's names from its own.
				s.conflicts = append(s.conflicts, conflict{srv.cfg.Name, fmt.Sprintf("%s: mcp server %s lists tools %q and %q, both offered as %s (a character the APIs refuse in a name becomes _); leave one out with the server's tools: list",
					srv.cfg.Where(), srv.cfg.Name, prev.tool.Original, t.Original, t.Name)})
			}
		}
	}
}

// start connects and lists the tools, within the start timeout.
func (srv *server) start(ctx context.Context) {
	begin := time.Now()
	defer func() { srv.status.StartTime = time.Since(begin) }()
	l, err := srv.cfg.resolve(srv.opts.Getenv, srv.opts.Dir)
	if err != nil {
		srv.status.Err = err
		return
	}
	if srv.cfg.URL == "" {
		base := sandbox.Off
		if srv.opts.SandboxAll {
			base = srv.opts.Sandbox.Mode
		}
		l.policy, l.settings = srv.cfg.Sandbox.Policy(base), srv.opts.Sandbox
		e := l.settings.Check(l.policy)
		if why := l.settings.Refusal(e); why != "" {
			srv.status.Err = errors.New("not started: " + why)
			return
		}
		if l.policy.Mode != sandbox.Off {
			srv.status.Sandbox = e.Describe()
		}
	}
	srv.launch = l
	sess, tools, err := srv.connect(ctx)
	if err != nil {
		srv.status.Err = err
		return
	}
	offered, listed, err := srv.offer(tools)
	if err != nil {
		sess.close()
		srv.status.Err = err
		return
	}
	srv.sess = sess
	srv.status.Tools, srv.status.Listed = offered, listed
}

func (srv *server) connect(ctx context.Context) (*session, []*sdk.Tool, error) {
	ctx, cancel := context.WithTimeout(ctx, srv.cfg.StartTimeout)
	defer cancel()
	return connect(ctx, srv.cfg, srv.launch, srv.client)
}

// offer picks the listed tools the configuration offers, in name order.
func (srv *server) offer(listed []*sdk.Tool) ([]*Tool, []string, error) {
	var names []string
	var offered []*Tool
	for _, t := range listed {
		if slices.Contains(names, t.Name) {
			// Listed twice: a call by the name reaches the server as one
			// tool, offered once.
			continue
		}
		names = append(names, t.Name)
		if !srv.cfg.allows(t.Name) {
			continue
		}
		tool, err := newTool(srv.cfg, t)
		if err != nil {
			return nil, nil, err
		}
		offered = append(offered, tool)
	}
	var missing []string
	for _, want := range append(slices.Clone(srv.cfg.Tools), srv.cfg.Confirm...) {
		if !slices.Contains(names, want) && !slices.Contains(missing, want) {
			missing = append(missing, want+suggest.DidYouMean(want, names))
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("the server has no tool %s; it lists %s", strings.Join(missing, ", no tool "), strings.Join(names, ", "))
	}
	slices.SortFunc(offered, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return offered, names, nil
}

// Statuses are the servers' starts, in the order given to Start.
func (s *Set) Statuses() []Status {
	out := make([]Status, len(s.servers))
	for i, srv := range s.servers {
		out[i] = srv.status
	}
	return out
}

// Conflicts are the tool names offered twice (by two servers, or by two
// tools of one), each as a problem at the declaration of the server that
// offered the name second.
func (s *Set) Conflicts() []string { return s.ConflictsOf("") }

// ConflictsOf are the Conflicts that are problems of the server named, or
// all of them for "".
func (s *Set) ConflictsOf(server string) []string {
	var out []string
	for _, c := range s.conflicts {
		if server == "" || c.server == server {
			out = append(out, c.problem)
		}
	}
	return out
}

// Tools are the tools offered, in name order.
func (s *Set) Tools() []*Tool {
	out := make([]*Tool, 0, len(s.tools))
	for _, n := range slices.Sorted(maps.Keys(s.tools)) {
		out = append(out, s.tools[n])
	}
	return out
}

// Lookup finds a tool offered by name.
func (s *Set) Lookup(name string) (*Tool, bool) {
	t, ok := s.tools[name]
	return t, ok
}

// Keep leaves only the tools keep accepts on offer; a server left with none
// is ended.
func (s *Set) Keep(keep func(name string) bool) {
	for name := range s.tools {
		if !keep(name) {
			delete(s.tools, name)
		}
	}
	for _, srv := range s.servers {
		srv.status.Tools = slices.DeleteFunc(srv.status.Tools, func(t *Tool) bool { return s.tools[t.Name] != t })
		if len(srv.status.Tools) == 0 && srv.sess != nil {
			srv.sess.close()
			srv.sess = nil
		}
	}
}

// Secrets are the values the servers were given from the environment or
// their configuration: env values, headers, expanded ${VAR} references.
func (s *Set) Secrets() []string {
	var out []string
	for _, srv := range s.servers {
		if srv.launch != nil {
			out = append(out, srv.launch.secrets...)
		}
	}
	return out
}

// Header describes the servers whose tools are offered, for a
// transcript's header.
func (s *Set) Header() []transcript.MCPServer {
	var out []transcript.MCPServer
	for _, srv := range s.servers {
		if srv.status.Err != nil || len(srv.status.Tools) == 0 {
			continue
		}
		h := transcript.MCPServer{Name: srv.cfg.Name, Transport: srv.cfg.Transport(), Command: srv.cfg.ShownCommand(), Tools: []string{}}
		if srv.cfg.URL != "" {
			h.URL = redactURL(srv.cfg.URL)
		}
		for _, t := range srv.status.Tools {
			h.Tools = append(h.Tools, t.Name)
		}
		out = append(out, h)
	}
	return out
}

// Close ends every server, all at once, and waits for them.
func (s *Set) Close() {
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(func() {
			srv.mu.Lock()
			sess := srv.sess
			srv.sess = nil
			srv.mu.Unlock()
			if sess != nil {
				sess.close()
			}
		})
	}
	wg.Wait()
}

// CheckArgs checks a call's arguments without calling the tool; the
// error's text is the one Call gives the model.
func (s *Set) CheckArgs(name string, args []byte) error {
	t, ok := s.tools[name]
	if !ok {
		return fmt.Errorf("unknown tool %q", name)
	}
	_, err := t.prepare(args)
	return err
}

// Call calls a tool. Every failure is a result the model reads: arguments
// that do not fit the schema (the server is not asked), a timeout, an
// interruption (the server is sent a cancellation), a server that exited
// (restarted, once, for the calls that follow) or could not be reached.
func (s *Set) Call(ctx context.Context, name, callID string, args []byte) agent.ToolResult {
	start := time.Now()
	t, ok := s.tools[name]
	if !ok {
		return failure(wire.KindUnknownTool, "", fmt.Sprintf("unknown tool %q", name), start)
	}
	var srv *server
	for _, x := range s.servers {
		if x.cfg.Name == t.Server {
			srv = x
		}
	}
	r := srv.call(ctx, t, args)
	r.Source, r.Server, r.Duration = wire.SourceMCP, t.Server, time.Since(start)
	r.Sandbox = srv.status.Sandbox
	return r
}

func failure(kind, server, msg string, start time.Time) agent.ToolResult {
	r := agent.ToolResult{IsError: true, Kind: kind, ExitCode: -1, Content: msg, Duration: time.Since(start)}
	if server != "" {
		r.Source, r.Server = wire.SourceMCP, server
	}
	return r
}

func (srv *server) call(ctx context.Context, t *Tool, args []byte) agent.ToolResult {
	fail := func(kind, format string, a ...any) agent.ToolResult {
		return agent.ToolResult{IsError: true, Kind: kind, ExitCode: -1, Content: fmt.Sprintf(format, a...)}
	}
	params, err := t.prepare(args)
	if err != nil {
		return fail(wire.KindBadArguments, "%v", err)
	}
	if ctx.Err() != nil {
		return fail(wire.KindCanceled, "canceled before the call was sent: %v", context.Cause(ctx))
	}
	sess, err := srv.live(ctx)
	if err != nil {
		return fail(wire.KindServer, "mcp server %s %v", srv.cfg.Name, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	call := &sdk.CallToolParams{Name: t.Original, Arguments: params}
	if tp, ts := traceParent(ctx); tp != "" {
		call.Meta = sdk.Meta{"traceparent": tp}
		if ts != "" {
			call.Meta["tracestate"] = ts
		}
	}
	res, err := sess.cs.CallTool(callCtx, call)
	switch {
	case err == nil:
		return toResult(res, srv.cfg.MaxOutput)
	case ctx.Err() != nil:
		sess.canceled.Add(1)
		return fail(wire.KindCanceled, "canceled before the tool finished (%v); the server was sent a cancellation", context.Cause(ctx))
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		sess.canceled.Add(1)
		return fail(wire.KindTimeout, "timed out after %s; the server was sent a cancellation", t.Timeout)
	}
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return fail(wire.KindServer, "mcp server %s: %v", srv.cfg.Name, redirect)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code != codeRejectedByTransport && sess.alive() {
		return fail(wire.KindServer, "mcp server %s refused the call: %s", srv.cfg.Name, rpcErr.Message)
	}
	if !connectionLost(err) && !sess.ending() {
		// The answer came and could not be read: the server is still
		// there, and the calls that follow may well work.
		return fail(wire.KindServer, "mcp server %s sent a result agentloop cannot read: %v", srv.cfg.Name, err)
	}
	return fail(wire.KindServer, "mcp server %s %s", srv.cfg.Name, srv.died(sess, err))
}

// connectionLost reports whether a call's error says the connection is
// gone, rather than that its answer could not be read.
func connectionLost(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, os.ErrClosed) || errors.Is(err, errTooLarge) ||
		(errors.As(err, &rpcErr) && rpcErr.Code == codeRejectedByTransport)
}

// codeRejectedByTransport is the SDK's code for a message its transport
// could not deliver: an HTTP server that cannot be reached, or answers with
// an error status.
const codeRejectedByTransport = -32005

// live returns the session to call, restarting a server whose session
// ended, once per run.
func (srv *server) live(ctx context.Context) (*session, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sess != nil && srv.sess.alive() {
		return srv.sess, nil
	}
	if srv.sess != nil {
		srv.failure = srv.ended(srv.sess, nil)
		srv.sess = nil
	}
	if srv.failure == "" {
		return nil, errors.New("is not running")
	}
	if srv.restarted {
		return nil, errors.New(withNote(srv.failure, " (it is not restarted again: a server is restarted at most once per run)"))
	}
	srv.restarted = true
	sess, listed, err := srv.connect(ctx)
	if err != nil {
		srv.failure = withNote(srv.failure, ", and restarting it failed: "+err.Error())
		return nil, errors.New(srv.failure)
	}
	// The restarted server's tools are the ones offered at the start; one
	// it no longer has fails when called, as the server says.
	_ = listed
	srv.sess = sess
	return sess, nil
}

// died records that a session ended under a call and says how.
func (srv *server) died(sess *session, err error) string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sess == sess {
		srv.failure = srv.ended(sess, err)
		srv.sess = nil
	} else if srv.failure == "" {
		srv.failure = srv.ended(sess, err)
	}
	return srv.failure
}

// ended ends a session that broke and says how: a stdio server's exit,
// an HTTP server's error.
func (srv *server) ended(sess *session, err error) string {
	if srv.cfg.URL != "" {
		sess.close()
		if err == nil {
			return "closed the session"
		}
		return "is unreachable: " + err.Error()
	}
	return sess.exitText()
}

// withNote adds a note to how a server failed, before the end of its
// stderr that the account may quote.
func withNote(failure, note string) string {
	head, tail, ok := strings.Cut(failure, "\nstderr:")
	if !ok {
		return failure + note
	}
	return head + note + "\nstderr:" + tail
}
