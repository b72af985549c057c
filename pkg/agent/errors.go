package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/english"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// ProviderError is a model request that failed after the retries: an API
// error status, a connection failure, or a response that cannot be used.
type ProviderError struct {
	Provider string
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Message is the server's own message, or what went wrong.
	Message string
	// Hint says what the user can do about it.
	Hint string
	Err  error
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString(e.Provider)
	b.WriteString(": ")
	if e.Status != 0 {
		// 529 (Anthropic's "overloaded") has no standard text.
		fmt.Fprintf(&b, "%d", e.Status)
		if text := http.StatusText(e.Status); text != "" {
			b.WriteString(" " + text)
		}
		if e.Message != "" {
			b.WriteString(": ")
		}
	}
	b.WriteString(oneLine(e.Message))
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

func (e *ProviderError) Unwrap() error { return e.Err }

// oneLine folds a server's message onto one line and caps it, so an HTML
// error page from a proxy does not flood the terminal.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 500
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// transportError is a request that got no usable response: the server
// could not be reached, or the connection broke.
func transportError(provider, baseURL, urlFrom string, err error) *ProviderError {
	pe := &ProviderError{Provider: provider, Err: err}
	// The SDK's *url.Error repeats the method and the whole URL.
	inner := err
	var ue *url.Error
	if errors.As(err, &ue) {
		inner = ue.Err
	}
	if why, lookup := ConnectFailure(inner); why != nil {
		pe.Message = fmt.Sprintf("cannot connect to %s: %v", transcript.RedactURL(baseURL), why)
		pe.Hint = "is the server running? check " + urlSetting(urlFrom)
		if lookup {
			pe.Hint = "check " + urlSetting(urlFrom) + " and the network"
		}
		if providerDefault(provider, baseURL) {
			pe.Hint = "check the network" // the provider's own endpoint: no setting to check
		}
		return pe
	}
	var stalled *StalledError
	if errors.As(inner, &stalled) {
		pe.Message = stalled.Error()
		pe.Hint = "a server that sends nothing for that long has most likely stopped; if the model takes longer before it answers, raise --idle-timeout"
		return pe
	}
	if errors.Is(inner, http.ErrSchemeMismatch) {
		pe.Message = fmt.Sprintf("the server at %s speaks plain HTTP, not HTTPS", transcript.RedactURL(baseURL))
		pe.Hint = "use http:// in " + urlSetting(urlFrom)
		return pe
	}
	if errors.Is(inner, bufio.ErrTooLong) {
		pe.Message = fmt.Sprintf("the server at %s sent a line of over %d MiB in its event stream", transcript.RedactURL(baseURL), maxEventLine>>20)
		pe.Hint = "no API streams an event that long: a server that does not stream as the API does; try --no-stream"
		return pe
	}
	if errors.Is(inner, ErrResponseTooLarge) {
		pe.Message = inner.Error()
		pe.Hint = "a model that repeats itself without end, or a server that never ends its answer; --max-tokens bounds an answer"
		return pe
	}
	var syn *json.SyntaxError
	switch {
	case ue != nil:
	case errors.Is(inner, io.ErrUnexpectedEOF):
		pe.Message = "the response body is cut short: it ends inside its JSON"
		return pe
	case errors.Is(inner, io.EOF):
		pe.Message = "the response body is empty"
		return pe
	case errors.As(inner, &syn):
		pe.Message = fmt.Sprintf("the response body is not valid JSON: %v at offset %d", syn, syn.Offset)
		return pe
	}
	pe.Message = inner.Error()
	return pe
}

// maxEventLine is the longest line of an event stream the SDKs read (their
// scanners' buffer); a longer one ends the stream with bufio.ErrTooLong.
const maxEventLine = bufio.MaxScanTokenSize << 9

// tooLongHint explains an error response that was not retried because the
// wait it asked for was longer than MaxRetryWait.
func tooLongHint(res *http.Response) string {
	if res == nil {
		return ""
	}
	wait, ok := retryAfter(res.Header)
	if !ok || wait <= MaxRetryWait {
		return ""
	}
	return fmt.Sprintf("the server asks to retry in %s, longer than agentloop waits (%s); try again later", waitText(wait), waitText(MaxRetryWait))
}

// waitText is a wait as people say it: in its largest unit, with the next
// one when it counts ("1 hour 30 minutes", "2 days", "292 years").
func waitText(d time.Duration) string {
	units := []struct {
		name string
		size time.Duration
	}{{"year", 365 * 24 * time.Hour}, {"day", 24 * time.Hour}, {"hour", time.Hour}, {"minute", time.Minute}, {"second", time.Second}}
	count := func(n int64, name string) string {
		return fmt.Sprintf("%d %s", n, english.Plural(int(n), name, name+"s"))
	}
	for i, u := range units {
		if d < u.size && i < len(units)-1 {
			continue
		}
		n := int64(d / u.size)
		text := count(n, u.name)
		if i+1 < len(units) && n < 10 {
			if m := int64(d % u.size / units[i+1].size); m > 0 {
				text += " " + count(m, units[i+1].name)
			}
		}
		return text
	}
	return ""
}

// providerDefault reports whether baseURL is the provider's own endpoint,
// however it is spelt.
func providerDefault(provider, baseURL string) bool {
	if provider == "anthropic" {
		return onHost(baseURL, "api.anthropic.com")
	}
	return onHost(baseURL, "api.openai.com")
}

// ConnectFailure is why a connection to a server was not made, without
// the addresses: the dial's error ("connection refused"), or the name's
// look-up that failed (lookup set). It is nil for any other error.
func ConnectFailure(err error) (why error, lookup bool) {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns, true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		var sys *os.SyscallError
		if errors.As(op.Err, &sys) {
			return sys.Err, false
		}
		return op.Err, false
	}
	return nil, false
}

// bodyText is an error response's body as one line of text, for an error
// that carries no message of its own (an HTML page from a proxy).
func bodyText(res *http.Response) string {
	if res == nil || res.Body == nil {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	if err != nil {
		return ""
	}
	return textOf(b)
}

// textOf is a body's text, for an error: HTML tags taken out, on one line,
// valid UTF-8.
func textOf(b []byte) string {
	s := string(b[:min(len(b), 4<<10)])
	if strings.HasPrefix(strings.TrimSpace(s), "<") {
		s = htmlTags().ReplaceAllString(s, " ")
	}
	return strings.ToValidUTF8(oneLine(s), "\uFFFD")
}

var htmlTags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

// endpoint is what an API error's hint needs to know about the request.
type endpoint struct {
	provider  string // "openai" or "anthropic"
	keyVar    string // the variable the key comes from
	hasKey    bool
	model     string
	modelFrom string // the setting model came from
	baseURL   string
	urlFrom   string // the setting baseURL came from
	retries   int
}

// urlSetting is the setting to check for a base URL that came from from.
func urlSetting(from string) string {
	if from == "" {
		return "--base-url"
	}
	return from
}

// modelSetting is the setting to check for a model that came from from.
func modelSetting(from string) string {
	if from == "" {
		return "--model"
	}
	return from
}

// pathHint says how to set right a base URL whose path a 404 shows to be
// wrong: /v1 twice, or the bare address of an OpenAI-compatible server
// (Ollama's http://localhost:11434), which answers under /v1.
func pathHint(e endpoint, requested string) string {
	if strings.Contains(requested+"/", "/v1/v1/") {
		return "; the address has /v1 twice: take one out"
	}
	if e.provider == "anthropic" {
		return ""
	}
	u, err := url.Parse(e.baseURL)
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return ""
	}
	u.Path, u.RawPath = "/v1", ""
	return fmt.Sprintf("; servers that follow the OpenAI API answer under /v1: try %s %s", urlSetting(e.urlFrom), transcript.RedactURL(u.String()))
}

// apiError makes a ProviderError of an error status the SDK reported, with
// a hint for the statuses a user can do something about.
func apiError(e endpoint, status int, message string, res *http.Response, err error) *ProviderError {
	pe := &ProviderError{Provider: e.provider, Status: status, Message: message, Err: err}
	if pe.Message == "" {
		pe.Message = bodyText(res)
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if !e.hasKey {
			pe.Hint = "the server wants an API key: set " + e.keyVar
		} else {
			pe.Hint = "check " + e.keyVar + ": the server refused the key"
		}
	case http.StatusNotFound:
		// Say what was asked for: a base URL with a path too many or too
		// few (…/v1/v1/…) shows at once.
		pe.Hint = fmt.Sprintf("check %s %q and %s %s", modelSetting(e.modelFrom), e.model, urlSetting(e.urlFrom), transcript.RedactURL(e.baseURL))
		if res != nil && res.Request != nil && res.Request.URL != nil {
			pe.Hint = fmt.Sprintf("%s %s: %s", res.Request.Method, transcript.RedactURL(res.Request.URL.String()), pe.Hint)
			pe.Hint += pathHint(e, res.Request.URL.Path)
		}
	case http.StatusTooManyRequests, 529: // 529: Anthropic's "overloaded"
		pe.Hint = fmt.Sprintf("rate limited or overloaded after %d retries; raise --max-retries or try later", e.retries)
	}
	if h := tooLongHint(res); h != "" {
		pe.Hint = h
	}
	return pe
}
