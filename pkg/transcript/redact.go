package transcript

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Redacted replaces every secret the Redactor finds.
const Redacted = "[REDACTED]"

// keyPatterns match the shapes of common credentials, so a key that was never
// named to the Redactor (one a tool printed, say) is still kept out. A key
// must start a word: after the start of the text, a character that cannot
// be part of it, or a JSON escape (a key at the start of a line of tool
// output reads "\nsk-…" in an encoded record). That prefix is captured and
// put back.
var keyPatterns = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-]|\\[nrtbf]|\\u[0-9a-fA-F]{4})(?:` + strings.Join([]string{
		`sk-ant-[A-Za-z0-9_-]{20,}`, // Anthropic
		// OpenAI: project and service keys carry dashes, legacy ones do not;
		// all hold a long random run, which a slug such as
		// "sk-hynix-memory-prices-2024" does not.
		`sk-[A-Za-z0-9_-]*[A-Za-z0-9]{16}[A-Za-z0-9_-]*`,
		`AKIA[0-9A-Z]{16}`,                                     // AWS access key id
		`gh[pousr]_[A-Za-z0-9]{36,}`,                           // GitHub tokens
		`github_pat_[A-Za-z0-9_]{22,}`,                         // GitHub fine-grained tokens
		`xox[abposr]-[A-Za-z0-9-]{10,}`,                        // Slack
		`AIza[0-9A-Za-z_-]{35}`,                                // Google API key
		`[Bb]earer\s+[A-Za-z0-9._~+-][A-Za-z0-9._~+/-]{15,}=*`, // Authorization: Bearer … (not a path)
	}, "|") + `)`)
})

// keyMarks are literal parts of keyPatterns, one of which every match
// holds: a line without any is not read by the pattern. The regular
// expression has no literal prefix to skip ahead with, and reads a few
// MB/s; a tool's long output is written to the transcript on every step.
var keyMarks = [][]byte{
	[]byte("sk-"), []byte("AKIA"), []byte("ghp_"), []byte("gho_"), []byte("ghu_"), []byte("ghs_"), []byte("ghr_"),
	[]byte("github_pat_"), []byte("xox"), []byte("AIza"), []byte("earer"),
}

// mayHoldKey reports whether b holds a part every credential keyPatterns
// matches holds.
func mayHoldKey(b []byte) bool {
	for _, m := range keyMarks {
		if bytes.Contains(b, m) {
			return true
		}
	}
	return false
}

// urlPassword matches the password of a URL's userinfo
// (scheme://user:password@host), a credential put in --base-url.
var urlPassword = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"\\]*:)[^/\s@"\\]+@`)
})

// Redactor removes secrets from text: the exact values it was given (API keys
// from the environment) and anything shaped like a common credential.
// The zero value redacts patterns only.
type Redactor struct {
	secrets [][]byte // raw and JSON-escaped forms, longest first
}

// NewRedactor returns a Redactor for the given secret values; empty values
// and values shorter than 8 bytes (too short to be keys, too likely to occur
// by chance) are ignored.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		r.secrets = append(r.secrets, []byte(s))
		if q, err := json.Marshal(s); err == nil {
			if esc := q[1 : len(q)-1]; !bytes.Equal(esc, []byte(s)) {
				r.secrets = append(r.secrets, esc)
			}
		}
	}
	slices.SortFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

// Redact returns b with every secret replaced by [REDACTED]. It returns b
// itself when there is nothing to replace. Replacements never span a JSON
// quote or backslash, so a valid JSON document stays valid.
func (r *Redactor) Redact(b []byte) []byte {
	if r != nil {
		for _, s := range r.secrets {
			if bytes.Contains(b, s) {
				b = bytes.ReplaceAll(b, s, []byte(Redacted))
			}
		}
	}
	if mayHoldKey(b) && keyPatterns().Match(b) {
		b = keyPatterns().ReplaceAll(b, []byte("${1}"+Redacted))
	}
	if bytes.Contains(b, []byte("://")) && urlPassword().Match(b) {
		b = urlPassword().ReplaceAll(b, []byte("${1}"+Redacted+"@"))
	}
	// A URL with a query: its credential-like values (Azure's api-key,
	// a signed URL's sig or X-Amz-Signature, an OAuth code) go too.
	if bytes.Contains(b, []byte("://")) && bytes.IndexByte(b, '?') >= 0 {
		b = urlWithQuery().ReplaceAllFunc(b, func(u []byte) []byte {
			// Punctuation that ends a sentence, or a bracket or parenthesis
			// around the URL, ends it; but not the bracket that ends a value
			// redacted already.
			tail := len(u)
			for tail > 0 && bytes.IndexByte([]byte(".,:;!)]"), u[tail-1]) >= 0 && !bytes.HasSuffix(u[:tail], []byte(Redacted)) {
				tail--
			}
			i := bytes.IndexByte(u, '?')
			out := append(u[:i+1:i+1], redactQuery(string(u[i+1:tail]))...)
			return append(out, u[tail:]...)
		})
	}
	return b
}

// RedactString is Redact for strings.
func (r *Redactor) RedactString(s string) string {
	return string(r.Redact([]byte(s)))
}

// urlWithQuery matches a URL up to the end of its query, in free text or
// inside a JSON string (it stops at a quote or a backslash, but for the
// \u0026 that stands for & in JSON encoding/json writes: a transcript's
// line holds a query's parameters so).
var urlWithQuery = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\\?#]*\?(?:[^\s"'<>\\#]|\\u0026)*`)
})

// RedactURL replaces the password of a URL that has one, and the values
// of its query parameters whose names look like credentials (see
// CredentialParam), with [REDACTED] (as every line and message is, so the
// two agree); anything else is returned as it is.
func RedactURL(raw string) string {
	raw = urlPassword().ReplaceAllString(raw, "${1}"+Redacted+"@")
	q := strings.IndexByte(raw, '?')
	if q < 0 {
		return raw
	}
	end := len(raw)
	if h := strings.IndexByte(raw[q:], '#'); h >= 0 {
		end = q + h
	}
	return raw[:q+1] + redactQuery(raw[q+1:end]) + raw[end:]
}

// redactQuery replaces the values of the credential-like parameters of a
// raw query string, leaving the rest of it byte for byte.
//
// The parameters are parted by & or by its JSON escape \u0026.
func redactQuery(query string) string {
	var b strings.Builder
	changed := false
	for rest := query; ; {
		p, sep := rest, ""
		i := strings.IndexByte(rest, '&')
		if j := strings.Index(rest, `\u0026`); j >= 0 && (i < 0 || j < i) {
			p, sep, rest = rest[:j], `\u0026`, rest[j+len(`\u0026`):]
		} else if i >= 0 {
			p, sep, rest = rest[:i], "&", rest[i+1:]
		}
		name, value, ok := strings.Cut(p, "=")
		if ok && value != "" && value != Redacted {
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if CredentialParam(name) {
				p = p[:len(p)-len(value)] + Redacted
				changed = true
			}
		}
		b.WriteString(p)
		if sep == "" {
			break
		}
		b.WriteString(sep)
	}
	if !changed {
		return query
	}
	return b.String()
}

// credentialWords are the words of a query parameter name that say its
// value is a credential: api-key, access_token, sig (Azure SAS),
// X-Amz-Signature, X-Amz-Credential, code (OAuth), client_secret.
var credentialWords = map[string]bool{
	"key": true, "apikey": true, "token": true, "sig": true, "signature": true, "code": true,
	"secret": true, "password": true, "passwd": true, "pwd": true, "pass": true, "auth": true,
	"credential": true, "credentials": true, "jwt": true, "session": true,
}

// CredentialParam reports whether a query parameter of that name (matched
// without regard to case) likely carries a credential: one of its words
// (split at anything but a letter or digit) is a credential word, or the
// words run together end in one (apikey, accesstoken).
func CredentialParam(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		if credentialWords[w] {
			return true
		}
	}
	joined := strings.Join(words, "")
	for _, suffix := range []string{"key", "token", "secret", "password", "signature", "credential"} {
		if strings.HasSuffix(joined, suffix) {
			return true
		}
	}
	return false
}
