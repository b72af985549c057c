package httpretry

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/agentloop/agentloop/internal/english"
)

// DefaultClient is the SDKs' default: a connection pool of its own. A
// server that sends nothing, before its response or inside it, is given up
// on by the transport's idle limit (see Wrap).
func DefaultClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// NewClient is the default client with a connection pool that keeps
// conns connections to a server open between requests: one for each
// request a batch has in flight, where the default keeps two.
func NewClient(conns int) *http.Client {
	c := DefaultClient()
	t := c.Transport.(*http.Transport)
	t.MaxIdleConnsPerHost = max(conns, 2)
	t.MaxIdleConns = max(t.MaxIdleConns, 2*conns)
	return c
}

// MaxEventLine is the longest line of an event stream the SDKs read (their
// scanners' buffer); a longer one ends the stream with bufio.ErrTooLong.
const MaxEventLine = bufio.MaxScanTokenSize << 9

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

// TooLongHint explains an error response that was not retried because the
// wait it asked for was longer than MaxRetryWait, or is "".
func TooLongHint(res *http.Response) string {
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

// BodyText is an error response's body as one line of text, for an error
// that carries no message of its own (an HTML page from a proxy).
func BodyText(res *http.Response) string {
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
	return strings.ToValidUTF8(OneLine(s), "\uFFFD")
}

var htmlTags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

// OneLine folds a server's message onto one line and caps it, so an HTML
// error page from a proxy does not flood the terminal.
func OneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 500
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
