// Package htmlview draws a transcript as one self-contained web page: a
// timeline of the model calls and tool calls on a time axis, the tokens of
// every request, a table of the steps, and every message, readable and
// collapsible.
//
// The page loads nothing: its style and its one small script are inline,
// and its Content-Security-Policy forbids every fetch (no network, no
// font, no image), so it works opened from disk or as a CI artifact and
// leaks nothing when opened. Every text of the transcript reaches the page
// through html/template, which escapes it for where it lands, after the
// caller's Safe function has made control characters visible: text from a
// model or a tool is shown, never obeyed.
package htmlview

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/agentloop/agentloop/pkg/agent"
	"github.com/agentloop/agentloop/pkg/transcript"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed style.css
	style string
	//go:embed script.js
	script string
)

// Options say how to draw a conversation.
type Options struct {
	// Name is the transcript's name (its path), shown at the top.
	Name string
	// Dialect reads the messages of the conversation's shape.
	Dialect agent.Dialect
	// Safe makes a text from the transcript safe to show: control
	// characters and bidirectional overrides as visible escapes. Required.
	Safe func(string) string
	// Parallel is how many tool calls of a turn ran at once, when the
	// transcript does not say; 0 is agent.DefaultParallel.
	Parallel int
}

// tmpl is parsed the first time a page is drawn, not when the program
// starts: most commands never draw one.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		// The script and the style are the package's own constants; the
		// policy allows the script by its hash, so no other can run.
		"script": func() template.JS { return template.JS(script) },
		"style":  func() template.CSS { return template.CSS(style) },
		"csp":    csp,
		// capital starts a role with a capital letter: "User", "Tool results".
		"capital": func(s string) string {
			if s == "" {
				return s
			}
			r, n := utf8.DecodeRuneInString(s)
			return string(unicode.ToUpper(r)) + s[n:]
		},
	}).Parse(pageHTML))
})

// csp forbids everything but the page's own style and script.
var csp = sync.OnceValue(func() string {
	return "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-" + hash(script) +
		"'; base-uri 'none'; form-action 'none'"
})

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Render writes the page of one conversation. It stops once ctx is done
// (an interrupt), returning its cause, wherever it is: laying the page out
// or writing it.
func Render(ctx context.Context, w io.Writer, conv *transcript.Conversation, opts Options) error {
	if opts.Dialect == nil || opts.Safe == nil {
		return errors.New("htmlview: Options.Dialect and Options.Safe are required")
	}
	b := &builder{conv: conv, d: opts.Dialect, safe: opts.Safe, provider: conv.Shape, parallel: opts.Parallel}
	if h := conv.Header; h != nil {
		if h.Provider != "" {
			b.provider = h.Provider
		}
		if h.Parallel > 0 {
			b.parallel = h.Parallel
		}
	}
	if b.parallel <= 0 {
		b.parallel = agent.DefaultParallel
	}
	p, err := b.build(ctx, opts.Name)
	if err != nil {
		return err
	}
	return tmpl().Execute(&stopWriter{w: w, ctx: ctx, done: ctx.Done()}, p)
}

// stopWriter fails every write once ctx is done: the template writes a
// page in thousands of pieces, and stops at the first that fails.
type stopWriter struct {
	w    io.Writer
	ctx  context.Context
	done <-chan struct{}
}

func (s *stopWriter) Write(p []byte) (int, error) {
	select {
	case <-s.done:
		return 0, context.Cause(s.ctx)
	default:
	}
	return s.w.Write(p)
}
