package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage bounds one message a stdio server writes, the SDK's own bound:
// a server that writes more is stopped, saying so.
const maxMessage = sdk.DefaultMaxLineLength

// errTooLarge ends the stream of a server that wrote a message over the
// bound.
var errTooLarge = errors.New("the server wrote a message over the bound")

// stdioTransport runs a stdio server as the SDK's CommandTransport does
// (stdin closed to end it, then SIGTERM, then SIGKILL), but reads its stdout
// through a stdoutFilter: servers print banners and log lines there, which
// would end the SDK's connection at the first line that is not JSON.
type stdioTransport struct {
	cmd *exec.Cmd
	out *stdoutFilter
}

func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	t.out.r = bufio.NewReaderSize(stdout, 64<<10)
	tr := &sdk.IOTransport{Reader: nopCloser{t.out}, Writer: &stdinCloser{cmd: t.cmd, stdin: stdin, out: t.out}, MaxLineLength: -1}
	return tr.Connect(ctx)
}

type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

// stdinCloser is a server's stdin; closing it ends the server the way the
// MCP specification asks: stdin closed, then SIGTERM, then SIGKILL, each
// after terminateWait.
type stdinCloser struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *stdoutFilter // told when the server had to be sent a signal
}

func (s *stdinCloser) Write(p []byte) (int, error) { return s.stdin.Write(p) }

func (s *stdinCloser) Close() error {
	_ = s.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL, 0} {
		select {
		case err := <-done:
			return err
		case <-time.After(terminateWait):
		}
		if sig != 0 {
			if s.out != nil {
				s.out.signalled()
			}
			_ = s.cmd.Process.Signal(sig)
		}
	}
	return fmt.Errorf("unresponsive server process")
}

// stdoutFilter passes on the lines of a server's stdout that can be
// JSON-RPC messages (those that begin with { or [; of those short enough to
// be read whole, the objects with a "jsonrpc" member) and drops the others,
// noting them with its stderr; a message longer than max ends the stream
// with an error saying so.
type stdoutFilter struct {
	r    *bufio.Reader
	max  int
	note func(line []byte)

	inLine  bool // in a message line being passed on
	lineLen int
	pending []byte

	mu       sync.Mutex
	tooLarge bool
	bad      string // see malformed
	eof      bool   // the server closed its stdout
	stayed   bool   // after that, it had to be sent a signal to exit
}

// signalled notes that the server was sent a signal to stop it.
func (f *stdoutFilter) signalled() {
	f.mu.Lock()
	f.stayed = f.stayed || f.eof
	f.mu.Unlock()
}

// closedAndStayed reports whether the server closed its stdout, which ends
// the connection, and then did not exit until it was sent a signal: how
// it exited is then agentloop's doing, not why the connection ended.
func (f *stdoutFilter) closedAndStayed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stayed
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if !f.inLine {
			keep, err := f.startLine()
			if err != nil {
				return 0, err
			}
			if !keep {
				continue
			}
			f.inLine, f.lineLen = true, 0
		}
		chunk, err := f.r.ReadSlice('\n')
		if err == nil && f.lineLen == 0 {
			ok, problem := isMessage(chunk)
			if !ok {
				// A whole line that is JSON but no JSON-RPC message: a log
				// line of a logger that writes JSON (pino's, by default).
				f.inLine = false
				if f.note != nil {
					f.note(bytes.TrimRight(chunk[:min(len(chunk), 200)], "\r\n"))
				}
				continue
			}
			if problem != nil {
				// Meant as a message, and not one: the SDK ends the
				// connection at it, and this says why.
				f.malformed(problem, chunk)
			}
		}
		f.lineLen += len(chunk)
		if f.lineLen > f.max {
			f.mu.Lock()
			f.tooLarge = true
			f.mu.Unlock()
			return 0, errTooLarge
		}
		switch {
		case err == nil:
			f.inLine = false
		case err != bufio.ErrBufferFull && len(chunk) == 0:
			if err == io.EOF {
				f.mu.Lock()
				f.eof = true
				f.mu.Unlock()
			}
			return 0, err
		}
		f.pending = chunk
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// startLine looks at the start of the next line: one that begins (after
// blanks) with { or [, or is blank, is kept; any other is read, noted and
// dropped.
func (f *stdoutFilter) startLine() (bool, error) {
	for i := 1; ; i++ {
		b, _ := f.r.Peek(i)
		if len(b) < i {
			return true, nil // the end of the stream: let the reader see it
		}
		switch c := b[i-1]; c {
		case ' ', '\t', '\r':
			if i < f.r.Size() {
				continue
			}
			return true, nil
		case '{', '[', '\n':
			return true, nil
		}
		break
	}
	var head []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(head) < 200 {
			head = append(head, chunk[:min(len(chunk), 200-len(head))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if f.note != nil {
			f.note(bytes.TrimRight(head, "\r\n"))
		}
		if err != nil {
			return false, err
		}
		return false, nil
	}
}

// isMessage reports whether a whole line of stdout is meant as a JSON-RPC
// message, or a batch of them (a blank line passes too), and, when it is
// one the SDK does not read, why.
func isMessage(line []byte) (bool, error) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return true, nil
	case line[0] == '[':
		return true, checkBatch(line)
	}
	_, err := jsonrpc.DecodeMessage(line)
	if err == nil {
		return true, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m["jsonrpc"] == nil {
		return false, nil
	}
	return true, err
}

// checkBatch says why the SDK does not read a line that begins with [, as
// a batch of messages, or nil.
func checkBatch(line []byte) error {
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		return fmt.Errorf("not a JSON array of messages: %v", err)
	}
	if len(batch) == 0 {
		return errors.New("an empty batch")
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return err
		}
	}
	return nil
}

// malformed keeps the first message the server sent that is not one, with
// why, to say so once the connection has ended at it.
func (f *stdoutFilter) malformed(why error, line []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bad == "" {
		line = bytes.TrimRight(line, "\r\n")
		head := fmt.Sprintf("%q", line[:min(len(line), malformedHead)])
		if len(line) > malformedHead {
			head += "…"
		}
		f.bad = fmt.Sprintf("sent a message that is not valid JSON-RPC (%v), which ends the connection: %s", why, head)
	}
}

// malformedHead is how much of a message that is not one is shown.
const malformedHead = 100

// protocolError says why the connection ended at a message that is not
// one, or "".
func (f *stdoutFilter) protocolError() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bad
}

// wroteTooMuch reports whether the stream ended on a message over the
// bound.
func (f *stdoutFilter) wroteTooMuch() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tooLarge
}
