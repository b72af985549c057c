package agent

import (
	"errors"
	"fmt"
	"net/http"

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
	if from.Scheme != to.Scheme || from.Host != to.Host {
		return fmt.Errorf("the server redirected the request to %s, another server: not followed, the key goes only to the address given (name that address instead, if it is right)",
			transcript.RedactURL(to.Redacted()))
	}
	return nil
}
