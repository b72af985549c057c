package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/internal/textout"
	"github.com/agentloop/agentloop/pkg/wire"
)

const (
	// drainWait bounds how long output is still read once the tool's group
	// is gone: only a process that left the group (setsid) can hold the
	// pipes open that long, and its output is not waited for.
	drainWait = 500 * time.Millisecond
	// stderrKeep is how much of the end of stderr is kept for error results.
	stderrKeep = 8 << 10
	// errorLines and errorBytes bound the stderr quoted in an error
	// result, and errorBytes the stdout.
	errorLines = 20
	errorBytes = 2 << 10
	// defaultPath is the PATH a tool gets when agentloop's own is empty.
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// exec runs a tool whose arguments are prepared.
func (r *Registry) exec(ctx context.Context, t *tool, callID string, p *prepared) (res Result) {
	policy := t.def.Sandbox.Policy(r.opts.Sandbox.Mode)
	enforced := r.opts.Sandbox.Check(policy)
	if policy.Mode != sandbox.Off {
		defer func() { res.Sandbox = enforced.Describe() }()
	}
	if why := r.opts.Sandbox.Refusal(enforced); why != "" {
		return failure(wire.KindStart, "not run: "+why)
	}
	if ctx.Err() != nil {
		return failure(wire.KindCanceled, fmt.Sprintf("canceled before the tool started: %v", context.Cause(ctx)))
	}
	select {
	case r.sem <- struct{}{}:
		defer func() { <-r.sem }()
	case <-ctx.Done():
		return failure(wire.KindCanceled, fmt.Sprintf("canceled before the tool started: %v", context.Cause(ctx)))
	}

	path, argv, err := r.resolve(t)
	if err != nil {
		return failure(wire.KindStart, err.Error())
	}
	env := append(r.env(t, callID, p), callEnv(ctx, callID)...)
	launch, err := r.opts.Sandbox.Prepare(policy, r.opts.Dir, path, argv, env)
	if err != nil {
		return failure(wire.KindStart, fmt.Sprintf("cannot start the tool: %v", err))
	}
	// The private TMPDIR goes once the call is over, with what the tool
	// left running in it (see Sweep below).
	defer launch.Close()
	startPath, startArgv := path, argv
	var extra []*os.File
	if launch != nil {
		report, err := launch.Report()
		if err != nil {
			return failure(wire.KindStart, fmt.Sprintf("cannot start the tool: %v", err))
		}
		startPath, startArgv, env, extra = launch.Path, launch.Args, launch.Env, []*os.File{report}
	}
	pr, err := newPipes()
	if err != nil {
		return failure(wire.KindStart, fmt.Sprintf("cannot start the tool: %v", err))
	}
	defer pr.closeAll()

	var cmd *exec.Cmd
	err = procgroup.Start(func() (int, error) {
		c, err := startProcess(startPath, startArgv, env, r.opts.Dir, pr, extra)
		if err != nil {
			return 0, err
		}
		cmd = c
		return c.Process.Pid, nil
	})
	pr.closeChildEnds()
	if err != nil {
		return failure(wire.KindStart, startErrorText(path, err))
	}
	if launch != nil {
		// The launcher could not execute the program: as for a program
		// that could not be started directly.
		if err := launch.StartError(); err != nil {
			_ = cmd.Wait()
			procgroup.Untrack(cmd.Process.Pid)
			return failure(wire.KindStart, startErrorText(path, err))
		}
	}
	// Setsid made the tool the leader of a new session and group, whose id
	// is its pid.
	pgid := cmd.Process.Pid
	defer procgroup.Untrack(pgid)

	out := &capture{max: t.def.MaxOutput}
	errTail := &tail{max: stderrKeep}
	var streams sync.WaitGroup
	streams.Go(func() {
		// A tool that does not read its stdin, or exits early, makes this
		// write fail with EPIPE; that is its right, not an error.
		_, _ = pr.stdinW.Write(p.stdin)
		_ = pr.stdinW.Close()
	})
	streams.Go(func() { out.readFrom(pr.stdoutR) })
	streams.Go(func() { errTail.readFrom(pr.stderrR) })

	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait() // the status is in cmd.ProcessState
		close(waited)
	}()

	timer := time.NewTimer(t.def.Timeout)
	defer timer.Stop()
	var stopped string
	select {
	case <-waited:
	case <-timer.C:
		stopped = wire.KindTimeout
	case <-ctx.Done():
		stopped = wire.KindCanceled
	}
	if stopped = finishedFirst(stopped, waited); stopped != "" {
		procgroup.Stop(cmd.Process, pgid, waited)
	}
	// The tool is done; so is anything it left running in its group, which
	// would otherwise outlive the call and could hold its stdout open.
	procgroup.Sweep(pgid)
	drain(&streams, pr)

	if cmd.ProcessState == nil {
		return failure(wire.KindStart, "lost track of the tool's process: its exit status is unknown")
	}
	res = Result{ExitCode: cmd.ProcessState.ExitCode(), Bytes: out.total}
	shown, truncated := out.content()
	res.Truncated = truncated
	// An error result quotes the end of stderr and the start of stdout: what
	// a tool printed before it failed, timed out or was canceled is seen,
	// and Truncated and Bytes describe output that the result shows.
	switch stopped {
	case wire.KindTimeout:
		res.IsError, res.Kind = true, wire.KindTimeout
		res.Content = fmt.Sprintf("timed out after %s; the tool's process group was killed", t.def.Timeout) + quoteStderr(errTail.bytes()) + quoteStdout(out.buf, out.total)
		return res
	case wire.KindCanceled:
		res.IsError, res.Kind = true, wire.KindCanceled
		res.Content = fmt.Sprintf("canceled before the tool finished (%v); the tool's process group was killed", context.Cause(ctx)) + quoteStderr(errTail.bytes()) + quoteStdout(out.buf, out.total)
		return res
	}
	status, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case status.Signaled():
		res.IsError, res.Kind = true, wire.KindExit
		res.Content = fmt.Sprintf("tool was killed by signal %d (%s)", status.Signal(), status.Signal()) + quoteStderr(errTail.bytes()) + quoteStdout(out.buf, out.total)
	case res.ExitCode != 0:
		res.IsError, res.Kind = true, wire.KindExit
		res.Content = fmt.Sprintf("tool exited with code %d", res.ExitCode) + quoteStderr(errTail.bytes()) + quoteStdout(out.buf, out.total)
		if launch != nil && deniedText(errTail.bytes()) {
			res.Content += "\n" + sandboxNote(policy)
		}
	default:
		res.Content = shown
		if t.def.Output != OutputText {
			res.Truncated = false
			readMedia(&t.def, out, &res)
		}
	}
	return res
}

// resolve finds the program to run. A command: name without a '/' is
// looked up on the tool's PATH at each call, as a shell would.
func (r *Registry) resolve(t *tool) (string, []string, error) {
	if t.def.Run != "" {
		return t.def.Run, []string{t.def.Run}, nil
	}
	argv := t.def.Command
	if strings.ContainsRune(argv[0], '/') {
		return argv[0], argv, nil
	}
	path, err := procgroup.LookPath(argv[0], r.opts.toolPath())
	if err != nil {
		return "", nil, fmt.Errorf("cannot start the tool: %q not found on PATH", argv[0])
	}
	return path, argv, nil
}

// toolPath is the PATH a tool process gets, and so the one a command:
// program is looked up on, both when it is loaded and at each call:
// agentloop's own, or defaultPath when that is empty.
func (o *Options) toolPath() string {
	if p := o.Getenv("PATH"); p != "" {
		return p
	}
	return defaultPath
}

// env is the whole environment of a tool process: a few variables a
// program needs to behave, the ones the tool asked for, and the call's.
// Nothing else of agentloop's environment, API keys included, gets through.
func (r *Registry) env(t *tool, callID string, p *prepared) []string {
	env := []string{"PATH=" + r.opts.toolPath()}
	names := []string{"HOME", "LANG", "TMPDIR"}
	for _, k := range t.def.Env {
		// PATH is set above; HOME and the others may be listed as well.
		if k != "PATH" && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for _, k := range names {
		if v := r.opts.Getenv(k); v != "" && !strings.ContainsRune(v, 0) {
			env = append(env, k+"="+v)
		}
	}
	env = append(env, "AGENTLOOP_TOOL="+t.def.Name, "AGENTLOOP_CALL_ID="+strings.ReplaceAll(callID, "\x00", ""))
	return append(env, p.env...)
}

// pipes are the tool's standard streams. They are plain os.Pipe files, not
// exec.Cmd's own copying, so that Wait returns when the process exits even
// if a child of it still holds a pipe, and the reading stays ours to bound.
type pipes struct {
	stdinR, stdinW   *os.File
	stdoutR, stdoutW *os.File
	stderrR, stderrW *os.File
}

func newPipes() (*pipes, error) {
	p := &pipes{}
	var err error
	if p.stdinR, p.stdinW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if p.stdoutR, p.stdoutW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	if p.stderrR, p.stderrW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, err
	}
	return p, nil
}

// closeChildEnds closes this process's copies of the ends the child uses,
// so that the child's exit is seen as end of file.
func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.stdinR, p.stdoutW, p.stderrW} {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (p *pipes) closeAll() {
	for _, f := range []*os.File{p.stdinR, p.stdinW, p.stdoutR, p.stdoutW, p.stderrR, p.stderrW} {
		if f != nil {
			_ = f.Close() // closing twice only reports os.ErrClosed
		}
	}
}

// startProcess starts the tool in a session of its own, so in a process
// group of its own (killed whole), and without a controlling terminal: a
// tool cannot open /dev/tty to write escape sequences past agentloop to the
// person's terminal, or to read what the person types (an approval's "y"),
// and one that asks for a password fails at once instead of waiting stopped
// for its timeout. "Text file
// busy" is retried: it means that another goroutine forked while the script
// was open for writing (a tool being installed or edited), which passes.
func startProcess(path string, argv, env []string, dir string, p *pipes, extra []*os.File) (*exec.Cmd, error) {
	var err error
	for attempt := range 5 {
		cmd := &exec.Cmd{
			Path:        path,
			Args:        argv,
			Env:         env,
			Dir:         dir,
			Stdin:       p.stdinR,
			Stdout:      p.stdoutW,
			Stderr:      p.stderrW,
			ExtraFiles:  extra,
			SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		}
		if err = cmd.Start(); err == nil {
			return cmd, nil
		}
		if !errors.Is(err, syscall.ETXTBSY) {
			return nil, err
		}
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	return nil, err
}

func startErrorText(path string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(path); serr != nil {
			return fmt.Sprintf("cannot start the tool: %s does not exist (was it removed after loading?)", path)
		}
		return fmt.Sprintf("cannot start the tool: %v (is the #! interpreter or the working directory missing?)", unwrapPathError(err))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("cannot start the tool: %s is not executable", path)
	}
	return fmt.Sprintf("cannot start the tool: %v", err)
}

// drain waits for the readers and the stdin writer, closing the pipes if a
// process that escaped the group keeps them open.
func drain(wg *sync.WaitGroup, p *pipes) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(drainWait):
	}
	_ = p.stdinW.Close()
	_ = p.stdoutR.Close()
	_ = p.stderrR.Close()
	<-done
}

// capture keeps the first max bytes of a stream and counts the rest, which
// it reads and drops so that the writer never blocks on a full pipe.
type capture struct {
	max   int64
	buf   []byte
	total int64
}

// chunks are the buffers output is read through, kept between calls: a
// long run calls tools hundreds of times.
var chunks = sync.Pool{New: func() any { return new([32 << 10]byte) }}

func (c *capture) readFrom(r io.Reader) {
	cp := chunks.Get().(*[32 << 10]byte)
	defer chunks.Put(cp)
	chunk := cp[:]
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			c.total += int64(n)
			if room := c.max - int64(len(c.buf)); room > 0 {
				c.buf = append(c.buf, chunk[:min(int64(n), room)]...)
			}
		}
		if err != nil {
			return
		}
	}
}

// content is the output as the model sees it: valid UTF-8, NULs visible,
// and a marker when bytes were dropped.
func (c *capture) content() (string, bool) { return textout.Capped(c.buf, c.total) }

// tail keeps the last max bytes of a stream.
type tail struct {
	max int
	buf []byte
}

func (t *tail) readFrom(r io.Reader) {
	cp := chunks.Get().(*[32 << 10]byte)
	defer chunks.Put(cp)
	chunk := cp[:]
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			t.buf = append(t.buf, chunk[:n]...)
			if len(t.buf) > 2*t.max {
				t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
			}
		}
		if err != nil {
			return
		}
	}
}

func (t *tail) bytes() []byte {
	if len(t.buf) > t.max {
		return t.buf[len(t.buf)-t.max:]
	}
	return t.buf
}

// quoteStderr renders the last lines of stderr for an error result.
func quoteStderr(b []byte) string {
	s := strings.TrimRight(textout.Clean(b), "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	cut := false
	if len(lines) > errorLines {
		lines, cut = lines[len(lines)-errorLines:], true
	}
	s = strings.Join(lines, "\n")
	if len(s) > errorBytes {
		s, cut = strings.ToValidUTF8(s[len(s)-errorBytes:], ""), true
	}
	if cut {
		s = "…\n" + s
	}
	return "\nstderr:\n" + s
}

// quoteStdout renders the start of stdout for an error result.
func quoteStdout(b []byte, total int64) string {
	if len(bytes.TrimSpace(b)) == 0 {
		return ""
	}
	cut := total > int64(len(b))
	if len(b) > errorBytes {
		b, cut = textout.CutAtRune(b[:errorBytes]), true
	}
	s := strings.TrimRight(textout.Clean(b), "\n")
	if cut {
		s += "\n…"
	}
	return "\nstdout:\n" + s
}

// finishedFirst takes back a timeout or an interrupt that came in the same
// instant as the tool's end: select picks at random between ready cases, and
// a tool that ran to its end is answered with what it did (a resume must not
// run it again), not as cut short.
func finishedFirst(stopped string, waited <-chan struct{}) string {
	if stopped == "" {
		return ""
	}
	select {
	case <-waited:
		return ""
	default:
		return stopped
	}
}

// deniedTexts are how programs word the errors a Landlock refusal gives:
// EACCES, EPERM, and curl's for a connect refused.
var deniedTexts = [][]byte{[]byte("ermission denied"), []byte("not permitted"), []byte("EACCES"), []byte("Couldn't connect")}

// deniedText reports whether stderr holds such an error.
func deniedText(stderr []byte) bool {
	for _, d := range deniedTexts {
		if bytes.Contains(stderr, d) {
			return true
		}
	}
	return false
}

// sandboxNote tells the model that a refusal it reads may be the
// sandbox's, and what the tool may do, so that it does not try the same
// thing again another way.
func sandboxNote(p sandbox.Policy) string {
	where := "its TMPDIR"
	if p.Mode == sandbox.WorkspaceWrite {
		where += " and the working directory (not .git)"
	}
	if len(p.Write) > 0 {
		where += " and the paths its sandbox: block lists"
	}
	net := ""
	switch {
	case p.Network.Any:
	case len(p.Network.Ports) == 0:
		net = ", and opens no TCP connection"
	default:
		net = ", and connects over TCP only to ports " + strings.Trim(p.Network.String(), "[]")
	}
	return fmt.Sprintf("sandbox: the tool runs in the %s sandbox: it writes only %s%s; a permission error above may be the sandbox refusing", p.Mode, where, net)
}
