package mcp

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentloop/agentloop/internal/sandbox"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// credentials are the variables agentloop holds for its providers. No
// server has a reason to see them, so a reference to one is refused, as a
// script tool's env: entry naming one is.
var credentials = []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}

// baseEnv are the variables every stdio server gets, as every script tool
// does. Their values are not secrets.
var baseEnv = []string{"PATH", "HOME", "LANG", "TMPDIR"}

// defaultPath is the PATH a server gets when agentloop's own is empty.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// refPattern matches ${VAR}, ${env:VAR} (Cursor's form) and ${VAR:-default}
// (Claude Code's).
// It is compiled when first needed, not at every start of agentloop.
var refPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}`)
})

// expander expands the ${VAR} references of one server's values and keeps
// the values it put in, which are secrets.
type expander struct {
	getenv  Getenv
	secrets []string
}

// expand replaces the references in s; what names the value in an error.
func (e *expander) expand(s, what string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var err error
	out := refPattern().ReplaceAllStringFunc(s, func(ref string) string {
		m := refPattern().FindStringSubmatch(ref)
		name, def, hasDef := m[1], m[2], strings.Contains(ref, ":-")
		if slices.Contains(credentials, name) && err == nil {
			err = fmt.Errorf("%s: ${%s} is agentloop's own provider credential and is never passed to a server", what, name)
			return ""
		}
		v := e.getenv.get(name)
		if v == "" {
			if !hasDef {
				if err == nil {
					err = fmt.Errorf("%s: ${%s} is not set in the environment", what, name)
				}
				return ""
			}
			v = def
		}
		e.secrets = append(e.secrets, v)
		return v
	})
	if err != nil {
		return "", err
	}
	if rest := refPattern().ReplaceAllString(s, ""); strings.Contains(rest, "${") {
		return "", fmt.Errorf("%s: %q holds a ${ that is not a reference such as ${HOME}", what, s)
	}
	return out, nil
}

// launch is what it takes to start a server, its references expanded.
type launch struct {
	argv    []string
	dir     string
	env     []string
	url     string
	headers http.Header
	// secrets are the values taken from the environment or the
	// configuration that a transcript, a terminal or a log must not show.
	secrets []string
	// policy is a stdio server's sandbox, under settings.
	policy   sandbox.Policy
	settings sandbox.Settings
}

// resolve expands the server's values. getenv is agentloop's environment;
// workDir is agentloop's working directory ("" for the process's own).
func (c *Config) resolve(getenv Getenv, workDir string) (*launch, error) {
	e := &expander{getenv: getenv}
	l := &launch{}
	var err error
	if c.URL != "" {
		if l.url, err = e.expand(c.URL, "url"); err != nil {
			return nil, err
		}
		l.headers = http.Header{}
		names := make([]string, 0, len(c.Headers))
		for k := range c.Headers {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			v, err := e.expand(c.Headers[k], "headers."+k)
			if err != nil {
				return nil, err
			}
			l.headers.Set(k, v)
			e.secrets = append(e.secrets, v)
			// "Bearer abc" also leaks as "abc" in an error message.
			if _, tok, ok := strings.Cut(v, " "); ok {
				e.secrets = append(e.secrets, tok)
			}
		}
		l.secrets = e.secrets
		return l, nil
	}

	for i, a := range c.Command {
		v, err := e.expand(a, fmt.Sprintf("command[%d]", i))
		if err != nil {
			return nil, err
		}
		l.argv = append(l.argv, v)
	}
	l.dir = workDir
	if c.Cwd != "" {
		d, err := e.expand(c.Cwd, "cwd")
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(c.Dir, d)
		}
		l.dir = d
	}
	path := getenv.get("PATH")
	if path == "" {
		path = defaultPath
	}
	l.env = []string{"PATH=" + path}
	set := map[string]bool{"PATH": true}
	for _, v := range c.Env {
		if !v.HasValue {
			continue
		}
		val, err := e.expand(v.Value, "env."+v.Name)
		if err != nil {
			return nil, err
		}
		l.env = append(l.env, v.Name+"="+val)
		e.secrets = append(e.secrets, val)
		set[v.Name] = true
	}
	for _, k := range baseEnv {
		if val := getenv.get(k); val != "" && !set[k] {
			l.env = append(l.env, k+"="+val)
			set[k] = true
		}
	}
	for _, v := range c.Env {
		if v.HasValue || set[v.Name] {
			continue
		}
		if val := getenv.get(v.Name); val != "" && !strings.ContainsRune(val, 0) {
			l.env = append(l.env, v.Name+"="+val)
			e.secrets = append(e.secrets, val)
			set[v.Name] = true
		}
	}
	l.secrets = e.secrets
	return l, nil
}

// redactURL is a URL as it may be shown: without a password or a key in
// its query.
func redactURL(raw string) string { return transcript.RedactURL(raw) }
