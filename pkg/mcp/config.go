package mcp

import (
	"fmt"

	"github.com/agentloop/agentloop/internal/sandbox"
	"os"
	"slices"
	"strings"
	"time"
)

// Defaults of a server's optional keys.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultStartTimeout = 60 * time.Second
	DefaultMaxOutput    = 16 << 10
	// MaxMaxOutput bounds max_output, as for script tools.
	MaxMaxOutput = 64 << 20
)

// Transports.
const (
	Stdio = "stdio" // a command, spoken to over its stdin and stdout
	HTTP  = "http"  // an endpoint of the streamable HTTP transport
)

// Config is one MCP server as its declaration gives it. Values that may
// hold ${VAR} references (command, cwd, env values, url, headers) are kept
// as written: they are expanded only when the server starts, so nothing
// read from the environment is held, shown or recorded before then.
type Config struct {
	Name string
	// Command is the argv of a stdio server; URL the endpoint of an HTTP
	// one. Exactly one is set.
	Command []string
	URL     string
	// Cwd is the working directory of a stdio server; "" is agentloop's.
	Cwd string
	// Env are the variables a stdio server gets beside PATH, HOME, LANG
	// and TMPDIR: passed through from agentloop's environment, or set.
	Env []EnvVar
	// Headers are sent with every request to an HTTP server, by name.
	Headers map[string]string
	// Prefix is put before each tool's name to make the name the model
	// sees; the default is the name with an underscore.
	Prefix string
	// Tools, when not nil, are the only tools offered (the server's names).
	Tools []string
	// ConfirmAll asks before every call; Confirm names the tools (the
	// server's names) that ask.
	ConfirmAll bool
	Confirm    []string
	// Timeout bounds each call, StartTimeout the start: connecting and
	// listing the tools.
	Timeout      time.Duration
	StartTimeout time.Duration
	// MaxOutput bounds the text of a result, in bytes.
	MaxOutput int64
	// Optional turns a server that cannot start into a warning.
	Optional bool
	// optionalSaid is whether the declaration gives optional: (see
	// OptionalUnlessSaid).
	optionalSaid bool
	// Disabled servers are declared but not used.
	Disabled bool
	// Sandbox is a stdio server's sandbox: block; nil when it has none.
	Sandbox *sandbox.Block

	// File and Line are where the server is declared; Dir is the folder
	// that relative paths of its command and cwd are taken from.
	File string
	Line int
	Dir  string
}

// EnvVar is one variable of a stdio server's environment. A variable
// without Value is passed through from agentloop's environment when set
// there.
type EnvVar struct {
	Name     string
	Value    string // may hold ${VAR} references
	HasValue bool
}

// OptionalUnlessSaid makes the server optional unless its declaration
// says optional: itself. A server the user's configuration declares is
// offered in every folder: one that does not start is left out with a
// warning rather than stop every run.
func (c *Config) OptionalUnlessSaid() {
	if !c.optionalSaid {
		c.Optional = true
	}
}

// Transport is Stdio or HTTP.
func (c *Config) Transport() string {
	if c.URL != "" {
		return HTTP
	}
	return Stdio
}

// Where is the server's place of declaration, as file:line.
func (c *Config) Where() string {
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	return c.File
}

// confirms reports whether a call to the server's tool name asks first.
func (c *Config) confirms(name string) bool {
	return c.ConfirmAll || slices.Contains(c.Confirm, name)
}

// allows reports whether the server's tool name may be offered.
func (c *Config) allows(name string) bool {
	return c.Tools == nil || slices.Contains(c.Tools, name)
}

// isNameChar reports whether a tool name may hold c: both APIs take
// letters, digits, '_' and '-'.
func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// nameOnly makes each run of characters a tool name cannot hold one
// underscore.
func nameOnly(s string) string {
	var b strings.Builder
	run := false
	for i := 0; i < len(s); i++ {
		switch {
		case isNameChar(s[i]):
			b.WriteByte(s[i])
			run = false
		case !run:
			b.WriteByte('_')
			run = true
		}
	}
	return b.String()
}

// defaultPrefix is name_, with the characters a tool name cannot hold
// made underscores.
func defaultPrefix(name string) string { return nameOnly(name) + "_" }

// exposedName is the name a tool of the server is offered under. A
// character the APIs refuse in a name (MCP allows dots and slashes) becomes
// an underscore.
func (c *Config) exposedName(tool string) string {
	return c.Prefix + nameOnly(tool)
}

// MayOffer reports whether the server could offer a tool under the exposed
// name, without starting it: the name must carry its prefix and, with an
// allow-list, be one of the listed tools.
func (c *Config) MayOffer(exposed string) bool {
	if !strings.HasPrefix(exposed, c.Prefix) {
		return false
	}
	if c.Tools == nil {
		return true
	}
	for _, t := range c.Tools {
		if c.exposedName(t) == exposed {
			return true
		}
	}
	return false
}

// Known reports whether the server's exposed names are known without
// starting it (it has an allow-list), and returns them.
func (c *Config) Known() ([]string, bool) {
	if c.Tools == nil {
		return nil, false
	}
	names := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		names[i] = c.exposedName(t)
	}
	return names, true
}

// Shown is how the server is shown and recorded: the command or the URL
// as configured (${VAR} references not expanded, a URL's password and
// key-like query values hidden), never its environment or headers.
func (c *Config) Shown() string {
	if c.URL != "" {
		return redactURL(c.URL)
	}
	return shellJoin(c.Command)
}

// ShownCommand is the command as recorded in a transcript header.
func (c *Config) ShownCommand() []string {
	if c.URL != "" {
		return nil
	}
	return slices.Clone(c.Command)
}

// shellJoin writes argv as a shell would read it back.
func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '@' || r == ':' || r == '=' || r == ',' || r == '+' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
		}) {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// Getenv reads agentloop's environment; nil means os.Getenv.
type Getenv func(string) string

func (g Getenv) get(k string) string {
	if g == nil {
		return os.Getenv(k)
	}
	return g(k)
}
