package cmd

import (
	"net/url"
	"strings"
)

// checkBaseURL refuses a base URL no request can be made to, naming where
// it came from (a flag, a variable, a transcript), before any request: the
// SDKs would report it as an API error, exit 4, in their own words.
func checkBaseURL(raw, source string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return flagErrorf("%s %q is not a URL: %v", source, raw, unwrapURLError(err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return flagErrorf("%s %q: want an http:// or https:// URL, e.g. http://localhost:11434/v1", source, u.Redacted())
	case u.Hostname() == "":
		return flagErrorf("%s %q has no host", source, u.Redacted())
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
	return strings.ToUpper(provider) + "_BASE_URL"
}
