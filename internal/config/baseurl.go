package config

import (
	"net/url"
	"strings"
)

// SameBaseURL reports whether two base URLs name one address: the scheme
// and host compared without case, a default port (80 for http, 443 for
// https) the same as none, a trailing slash the same as none. A URL that
// does not parse is the same only as itself.
func SameBaseURL(a, b string) bool {
	if a == b {
		return true
	}
	na, okA := normalBaseURL(a)
	nb, okB := normalBaseURL(b)
	return okA && okB && na == nb
}

// normalBaseURL is a base URL written one way for each address.
func normalBaseURL(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address
	}
	if port != "" {
		host += ":" + port
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	out := scheme + "://" + host + path
	if u.User != nil {
		out = scheme + "://" + u.User.String() + "@" + host + path
	}
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, true
}

// ConfiguredBaseURL finds, among the base URLs the configuration file
// names (its top level's and every profile's), one that is the same
// address as raw (SameBaseURL): the address as the file writes it and
// where. A base URL a transcript recorded is used only when it is one of
// these, or one a flag or a variable gives: the user chose it, where a
// transcript could name any server to have the key sent to.
func (c *Config) ConfiguredBaseURL(raw string) (string, Source, bool) {
	if c.file == nil {
		return "", Source{}, false
	}
	match := func(v Value, profile string) (string, Source, bool) {
		s, _ := v.Value.(string)
		if s == "" || !SameBaseURL(s, raw) {
			return "", Source{}, false
		}
		return s, Source{Kind: SourceFile, File: c.file.Path, Line: v.Line, Profile: profile}, true
	}
	if v, ok := c.file.Top["base_url"]; ok {
		if s, src, ok := match(v, ""); ok {
			return s, src, true
		}
	}
	for _, name := range c.file.ProfileOrder {
		if v, ok := c.file.Profiles[name].Values["base_url"]; ok {
			if s, src, ok := match(v, name); ok {
				return s, src, true
			}
		}
	}
	return "", Source{}, false
}
