package httpretry

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// SameServerRedirects is an http.Client's CheckRedirect for requests that
// carry a key: a redirect is followed only to the same server (scheme,
// host and port). The key goes to the address given and nowhere else; a
// server that sends the request elsewhere is an error saying where.
func SameServerRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	from, to := via[0].URL, req.URL
	if !sameServer(from, to) {
		return fmt.Errorf("the server redirected the request to %s, another server: not followed, the key goes only to the address given (name that address instead, if it is right)",
			transcript.RedactURL(to.Redacted()))
	}
	return nil
}

// sameServer reports whether two addresses name one server: the scheme,
// host and port alike, a port left out being the scheme's (api.example.com
// and API.example.com:443 are one https server).
func sameServer(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		switch strings.ToLower(u.Scheme) {
		case "http":
			return "80"
		case "https":
			return "443"
		}
		return ""
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}
