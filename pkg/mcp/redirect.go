package mcp

import (
	"fmt"
	"net/http"

	"github.com/agentloop/agentloop/internal/httpretry"
)

// redirectError is an HTTP server's address that sent agentloop to another
// server (another scheme, host or port): not followed, since the server's
// headers go with every request and only to the address given.
type redirectError struct {
	from string // the server's url as configured (see Config.Shown)
	to   string // where it sent the request, credentials hidden
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server at %s redirected to %s, another server; agentloop does not follow a redirect to another server, since the server's headers go to the address given only: if %s is the server's address, give it as url: in the declaration", e.from, e.to, e.to)
}

// checkRedirect follows a redirect within the server, as a model provider's
// client does (httpretry.SameServerRedirects), and says which server another
// one went to.
func checkRedirect(shown string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		err := httpretry.SameServerRedirects(req, via)
		if err == nil || len(via) >= maxRedirects {
			return err
		}
		return &redirectError{from: shown, to: redactURL(req.URL.Redacted())}
	}
}

// maxRedirects is how many redirects within a server are followed
// (httpretry.SameServerRedirects stops there; below it, its error is a
// redirect to another server).
const maxRedirects = 10
