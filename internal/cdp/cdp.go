// Package cdp drives a headless Chromium over the DevTools protocol, for
// tests that check a page in a real browser: open it, read what it logged
// to the console and which requests it made, run a script in it, press
// keys, take a screenshot.
//
// It speaks the protocol over --remote-debugging-pipe (JSON messages ended
// by a NUL byte on file descriptors 3 and 4), so it needs no WebSocket and
// opens no port.
package cdp

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Flags are the command-line flags the browser is started with: headless,
// no sandbox (tests run as root in containers), and nothing that talks to
// the network on its own.
var Flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
	"--remote-debugging-pipe",
}

// Names are the programs looked for on the PATH, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium: $AGENTLOOP_CHROMIUM, else the first
// of Names on the PATH.
func Find() (string, error) {
	if p := os.Getenv("AGENTLOOP_CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, n := range Names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on the PATH (looked for %s; set AGENTLOOP_CHROMIUM)", strings.Join(Names, ", "))
}

// Browser is a running browser.
type Browser struct {
	cmd    *exec.Cmd
	out    *os.File // our end of the pipe the browser reads commands from
	in     *os.File // our end of the pipe it writes to
	stderr *strings.Builder

	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	pages   map[string]*Page // by session id
	done    chan struct{}
	readErr error
}

// message is a command's response or an event.
type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *ProtocolError  `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

// ProtocolError is an error the browser answered a command with.
type ProtocolError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("devtools error %d: %s", e.Code, e.Message)
}

// Launch starts the browser with a profile in userDataDir (a new, empty
// folder: a profile of its own makes the run repeatable).
func Launch(path, userDataDir string) (*Browser, error) {
	cmdR, cmdW, err := os.Pipe() // commands: we write, it reads on fd 3
	if err != nil {
		return nil, err
	}
	evR, evW, err := os.Pipe() // responses and events: it writes on fd 4
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	args := append(append([]string(nil), Flags...), "--user-data-dir="+userDataDir, "about:blank")
	cmd := exec.Command(path, args...)
	cmd.ExtraFiles = []*os.File{cmdR, evW}
	stderr := &strings.Builder{}
	cmd.Stderr = &limitedWriter{b: stderr, max: 64 << 10}
	if err := cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		evR.Close()
		evW.Close()
		return nil, err
	}
	// The browser holds its ends now.
	cmdR.Close()
	evW.Close()
	b := &Browser{cmd: cmd, out: cmdW, in: evR, stderr: stderr, pending: map[int]chan message{},
		pages: map[string]*Page{}, done: make(chan struct{})}
	go b.read()
	return b, nil
}

// limitedWriter keeps the first max bytes of what the browser prints.
type limitedWriter struct {
	mu  sync.Mutex
	b   *strings.Builder
	max int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *Browser) read() {
	defer close(b.done)
	r := bufio.NewReaderSize(b.in, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
		} else if p := b.pages[m.SessionID]; p != nil {
			p.event(m)
		}
		b.mu.Unlock()
	}
}

// call sends a command (to a page when session is set) and decodes its
// result into out.
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	if params == nil {
		params = struct{}{}
	}
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return fmt.Errorf("%s: the browser is gone: %w%s", method, b.readErr, b.stderrTail())
	}
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	req, err := json.Marshal(struct {
		ID        int    `json:"id"`
		Method    string `json:"method"`
		Params    any    `json:"params"`
		SessionID string `json:"sessionId,omitempty"`
	}{id, method, params, session})
	if err != nil {
		return err
	}
	if _, err := b.out.Write(append(req, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: the browser closed the connection%s", method, b.stderrTail())
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %w", method, m.Error)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (b *Browser) stderrTail() string {
	s := strings.TrimSpace(b.stderr.String())
	if s == "" {
		return ""
	}
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return "; the browser said:\n" + s
}

// Close asks the browser to quit, and kills it if it does not within a few
// seconds.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	b.out.Close()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	b.in.Close()
	<-b.done
	return nil
}

// Page is one tab, and what it logged and requested since it was opened.
type Page struct {
	b       *Browser
	session string
	loaded  chan struct{}
	// The following are guarded by b.mu.
	console  []string
	requests []string
	gotLoad  bool
}

// Viewport is the size a page is drawn at and the colour scheme it is
// told the system prefers.
type Viewport struct {
	Width, Height int
	Dark          bool
}

// Open opens url in a new tab of the given size and waits until it has
// loaded.
func (b *Browser) Open(ctx context.Context, url string, vp Viewport) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID, loaded: make(chan struct{})}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := p.Call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	if err := p.SetViewport(ctx, vp); err != nil {
		return nil, err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("open %s: %s", url, nav.ErrorText)
	}
	select {
	case <-p.loaded:
	case <-ctx.Done():
		return nil, fmt.Errorf("open %s: no load event: %w", url, ctx.Err())
	}
	return p, nil
}

// SetViewport resizes the page and sets the colour scheme it sees.
func (p *Page) SetViewport(ctx context.Context, vp Viewport) error {
	if err := p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": vp.Width, "height": vp.Height, "deviceScaleFactor": 1, "mobile": false,
	}, nil); err != nil {
		return err
	}
	scheme := "light"
	if vp.Dark {
		scheme = "dark"
	}
	return p.Call(ctx, "Emulation.setEmulatedMedia", map[string]any{
		"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}},
	}, nil)
}

// event records what the page reports; b.mu is held.
func (p *Page) event(m message) {
	switch m.Method {
	case "Page.loadEventFired":
		if !p.gotLoad {
			p.gotLoad = true
			close(p.loaded)
		}
	case "Runtime.consoleAPICalled":
		var e struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		if json.Unmarshal(m.Params, &e) == nil && (e.Type == "error" || e.Type == "warning" || e.Type == "assert") {
			var parts []string
			for _, a := range e.Args {
				if a.Description != "" {
					parts = append(parts, a.Description)
				} else {
					parts = append(parts, fmt.Sprint(a.Value))
				}
			}
			p.console = append(p.console, "console."+e.Type+": "+strings.Join(parts, " "))
		}
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			p.console = append(p.console, "exception: "+e.Details.Text+" "+e.Details.Exception.Description)
		}
	case "Log.entryAdded":
		var e struct {
			Entry struct {
				Level  string `json:"level"`
				Source string `json:"source"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		}
		if json.Unmarshal(m.Params, &e) == nil && (e.Entry.Level == "error" || e.Entry.Level == "warning") {
			p.console = append(p.console, fmt.Sprintf("%s (%s): %s %s", e.Entry.Level, e.Entry.Source, e.Entry.Text, e.Entry.URL))
		}
	case "Network.requestWillBeSent":
		var e struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(m.Params, &e) == nil {
			p.requests = append(p.requests, e.Request.URL)
		}
	}
}

// Call sends a command to the page.
func (p *Page) Call(ctx context.Context, method string, params, out any) error {
	return p.b.call(ctx, p.session, method, params, out)
}

// Console returns the errors and warnings the page logged: console calls,
// uncaught exceptions, and the browser's own messages (a resource refused
// by the page's security policy, a failed load).
func (p *Page) Console() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.console...)
}

// Requests returns the URL of every request the page made, its own
// document first.
func (p *Page) Requests() []string {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Eval runs a JavaScript expression in the page and decodes its value
// (which must be JSON-serialisable) into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluate %q: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(r.Result.Value) == 0 {
		return errors.New("evaluate: no value")
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Press types one key ("Tab", "Enter", " ") with the modifiers given
// (1 Alt, 2 Ctrl, 4 Meta, 8 Shift).
func (p *Page) Press(ctx context.Context, key string, modifiers int) error {
	k := keys[key]
	if k.code == "" {
		return fmt.Errorf("press: unknown key %q", key)
	}
	for _, typ := range []string{"keyDown", "keyUp"} {
		params := map[string]any{"type": typ, "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.vk, "modifiers": modifiers}
		if typ == "keyDown" && k.text != "" {
			params["text"] = k.text
		}
		if err := p.Call(ctx, "Input.dispatchKeyEvent", params, nil); err != nil {
			return err
		}
	}
	return nil
}

var keys = map[string]struct {
	key, code, text string
	vk              int
}{
	"Tab":   {"Tab", "Tab", "", 9},
	"Enter": {"Enter", "Enter", "\r", 13},
	" ":     {" ", "Space", " ", 32},
}

// Screenshot returns a PNG of the viewport, or of the whole page when full
// is set.
func (p *Page) Screenshot(ctx context.Context, full bool) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	params := map[string]any{"format": "png"}
	if full {
		params["captureBeyondViewport"] = true
	}
	if err := p.Call(ctx, "Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}
