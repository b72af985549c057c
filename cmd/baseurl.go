package cmd

import (
	"fmt"
	"net/url"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// baseURLProblem says what makes a base URL one no request can be made to,
// or "" when it is usable. The SDKs would report such an address as an API
// error, exit 4, in their own words; agentloop refuses it before any
// request, wherever it came from (a flag, a variable, the configuration
// file, a transcript).
func baseURLProblem(raw string) string {
	if raw == "" {
		return "" // the provider's default
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("is not a URL: %v", unwrapURLError(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return "want an http:// or https:// URL, e.g. http://localhost:11434/v1"
	case u.Hostname() == "":
		return "has no host"
	}
	return ""
}

// checkBaseURL refuses an unusable base URL, naming where it came from.
func checkBaseURL(raw, source string) error {
	if p := baseURLProblem(raw); p != "" {
		return flagErrorf("%s %q: %s", source, transcript.RedactURL(raw), p)
	}
	return nil
}

// unwrapURLError drops the *url.Error wrapping, which repeats the URL.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// baseURLSource names where a base URL came from: the flag, else the
// provider's variable.
func baseURLSource(flag string, provider string) string {
	if flag != "" {
		return "--base-url"
	}
	return providerEnvPrefix(provider) + "_BASE_URL"
}
