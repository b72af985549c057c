package mcp

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/internal/bytesize"
	"github.com/agentloop/agentloop/internal/sandbox/declare"
	"github.com/agentloop/agentloop/internal/suggest"
	"github.com/agentloop/agentloop/internal/yamlpos"
)

// Problem is one problem in the declaration of a server, at file:line.
type Problem struct {
	File string
	Line int // 0 when the problem is with the file as a whole
	Msg  string
}

func (p *Problem) Error() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// SortProblems orders problems by file and line.
func SortProblems(ps []*Problem) {
	slices.SortStableFunc(ps, func(a, b *Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
}

// The keys of a server's declaration. commonKeys are read in every form;
// the JSON files of other programs add the keys those programs write, which
// are read (type, disabled) or accepted and left alone (autoApprove and
// alwaysAllow: agentloop asks only for the tools confirm names).
var (
	commonKeys = []string{"command", "args", "env", "cwd", "url", "headers", "prefix", "tools", "confirm", "timeout", "start_timeout", "max_output", "optional", "disabled", "sandbox"}
	fileKeys   = append([]string{"name"}, commonKeys...)
	jsonKeys   = append(slices.Clone(commonKeys), "type", "transportType", "description", "autoApprove", "alwaysAllow")
)

// The names a declaration gives are checked by hand rather than with
// regular expressions, which would be compiled at every start of agentloop.

// validServerName: 1 to 64 characters, no space or control character.
func validServerName(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= 64 && !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// validEnvName: a letter or '_', then letters, digits and '_'.
func validEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// validPrefix: what a tool name may hold, or nothing.
func validPrefix(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// validHeaderName: an HTTP token.
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(isNameChar(c) || strings.IndexByte("!#$%&'*+.^`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// decoder reads the declarations of one file.
type decoder struct {
	file  string
	json  bool
	probs []*Problem
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	d.probs = append(d.probs, &Problem{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// DecodeFile reads the server a file of a tools folder declares: root is
// the file's top mapping, whose one key is mcp:. The server's name is its
// name: key, else the file's name without its extension.
func DecodeFile(file string, root *yaml.Node) (*Config, []*Problem) {
	d := &decoder{file: file}
	if len(root.Content) > 2 {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Value != "mcp" {
				d.errorf(k, "a file that declares an MCP server holds only 'mcp:'; move '%s' under it or into a file of its own", k.Value)
			}
		}
		return nil, d.probs
	}
	n := yamlpos.Deref(root.Content[1])
	base := filepath.Base(file)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	c := d.server(n, name, fileKeys)
	if c != nil {
		c.Line = root.Content[0].Line
	}
	return c, d.probs
}

// DecodeServers reads the mcp_servers: mapping of the configuration file,
// NAME: {keys}, in file order.
func DecodeServers(file string, n *yaml.Node) ([]*Config, []*Problem) {
	d := &decoder{file: file}
	return d.servers(n, "mcp_servers", commonKeys), d.probs
}

func (d *decoder) servers(n *yaml.Node, what string, keys []string) []*Config {
	n = yamlpos.Deref(n)
	if yamlpos.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, `%s: want a mapping of server names to their settings, e.g. {"github": {"command": ["github-mcp-server", "stdio"]}}`, what)
		return nil
	}
	var out []*Config
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlpos.Deref(n.Content[i+1])
		if first, dup := seen[k.Value]; dup {
			d.errorf(k, "%s: server '%s' given twice (first at line %d)", what, k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if !d.checkName(k, k.Value) {
			continue
		}
		if c := d.server(v, k.Value, keys); c != nil {
			c.Line = k.Line
			out = append(out, c)
		}
	}
	return out
}

func (d *decoder) checkName(n *yaml.Node, name string) bool {
	if !validServerName(name) {
		d.errorf(n, "server name %q: use 1 to 64 characters without spaces or control characters", name)
		return false
	}
	return true
}

// pair is a key and its value.
type pair struct{ key, val *yaml.Node }

// server reads one server's mapping; name is its name unless a name: key
// (in keys) says otherwise.
func (d *decoder) server(n *yaml.Node, name string, keys []string) *Config {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "an MCP server is a mapping of keys (command: or url:, ...), got %s", yamlpos.KindName(n))
		return nil
	}
	nprobs := len(d.probs)
	fields := map[string]pair{}
	// suggested holds the keys offered for unknown ones: a misspelt
	// command: is not also reported as missing.
	var suggested []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlpos.Deref(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "a key must be a plain word, got %s", yamlpos.KindName(k))
			continue
		}
		if prev, dup := fields[k.Value]; dup {
			d.errorf(k, "key '%s' given twice (first at line %d)", k.Value, prev.key.Line)
			continue
		}
		if !slices.Contains(keys, k.Value) {
			d.errorf(k, "unknown key '%s'%s", k.Value, suggest.DidYouMean(k.Value, keys))
			suggested = append(suggested, suggest.Nearest(k.Value, keys))
			continue
		}
		fields[k.Value] = pair{k, v}
	}
	c := &Config{Name: name, File: d.file, Line: n.Line, Dir: filepath.Dir(d.file), Timeout: DefaultTimeout,
		StartTimeout: DefaultStartTimeout, MaxOutput: DefaultMaxOutput}
	if abs, err := filepath.Abs(c.Dir); err == nil {
		c.Dir = abs
	}
	if p, ok := fields["name"]; ok {
		if s, ok := d.str(p, "a name"); ok && d.checkName(p.val, s) {
			c.Name = s
		}
	}
	c.Prefix = defaultPrefix(c.Name)
	d.transport(n, c, fields, suggested)
	if p, ok := fields["prefix"]; ok {
		if s, ok := d.strOrEmpty(p); ok {
			if !validPrefix(s) {
				d.errorf(p.val, "prefix %q: a tool name holds only letters, digits, '_' and '-'", s)
			} else {
				c.Prefix = s
			}
		}
	}
	if p, ok := fields["tools"]; ok {
		c.Tools = d.names(p)
		if c.Tools == nil {
			c.Tools = []string{}
		}
	}
	if p, ok := fields["confirm"]; ok {
		if p.val.Kind == yaml.ScalarNode && p.val.Tag == "!!bool" {
			c.ConfirmAll, _ = d.boolean(p)
		} else if p.val.Kind == yaml.SequenceNode {
			c.Confirm = d.names(p)
			for _, t := range c.Confirm {
				if c.Tools != nil && !slices.Contains(c.Tools, t) {
					d.errorf(p.val, "confirm: %s is not in tools:, so it is never offered", t)
				}
			}
		} else {
			d.errorf(p.val, "confirm: want true, false or a list of the server's tool names, got %s", yamlpos.KindName(p.val))
		}
	}
	for _, k := range []string{"timeout", "start_timeout"} {
		if p, ok := fields[k]; ok {
			if dur, ok := d.duration(p); ok {
				if k == "timeout" {
					c.Timeout = dur
				} else {
					c.StartTimeout = dur
				}
			}
		}
	}
	if p, ok := fields["max_output"]; ok {
		if s, ok := d.str(p, "a size"); ok {
			size, err := bytesize.Parse(s)
			switch {
			case err != nil:
				d.errorf(p.val, "max_output: %v", err)
			case size <= 0:
				d.errorf(p.val, "max_output: must be more than 0, got %s", s)
			case size > MaxMaxOutput:
				d.errorf(p.val, "max_output: %s is more than the limit of %s", s, bytesize.Format(MaxMaxOutput))
			default:
				c.MaxOutput = size
			}
		}
	}
	if p, ok := fields["optional"]; ok {
		c.Optional, c.optionalSaid = d.boolean(p)
	}
	if p, ok := fields["disabled"]; ok {
		c.Disabled, _ = d.boolean(p)
	}
	if p, ok := fields["sandbox"]; ok {
		b, probs := declare.Decode(p.val, c.Dir, Getenv(nil).get("HOME"))
		for _, pr := range probs {
			d.errorf(&yaml.Node{Line: pr.Line}, "%s", pr.Msg)
		}
		if c.URL != "" {
			d.errorf(p.key, "sandbox: an HTTP server runs outside agentloop, which cannot restrict it; only a stdio server (command:) is sandboxed")
		}
		c.Sandbox = b
	}
	if len(d.probs) > nprobs {
		return nil
	}
	return c
}

// transport reads command:, args:, env:, cwd: (stdio), url: and headers:
// (HTTP), and type:.
func (d *decoder) transport(n *yaml.Node, c *Config, fields map[string]pair, suggested []string) {
	cmdP, hasCmd := fields["command"]
	urlP, hasURL := fields["url"]
	typ := ""
	for _, k := range []string{"type", "transportType"} {
		if p, ok := fields[k]; ok {
			if s, ok := d.str(p, "a transport"); ok {
				typ = s
				switch s {
				case "stdio":
				case "http", "streamable-http", "streamableHttp", "streamable_http":
				case "sse":
					d.errorf(p.val, "%s: sse, the transport MCP replaced with streamable HTTP, is not supported; give the server's streamable HTTP endpoint as url:", k)
				default:
					d.errorf(p.val, "%s: %q is not a transport; use stdio (with command:) or http (with url:)", k, s)
				}
			}
		}
	}
	switch {
	case hasCmd && hasURL:
		d.errorf(urlP.key, "give either 'command:' (a stdio server) or 'url:' (a streamable HTTP server), not both")
		return
	case !hasCmd && !hasURL && (slices.Contains(suggested, "command") || slices.Contains(suggested, "url")):
		return
	case !hasCmd && !hasURL:
		d.errorf(n, "missing 'command:' (a stdio server, e.g. [npx, -y, \"@modelcontextprotocol/server-everything\"]) or 'url:' (a streamable HTTP server)")
		return
	case hasCmd && typ != "" && typ != "stdio":
		d.errorf(cmdP.key, "command: the transport is %s; a command is a stdio server", typ)
	case hasURL && typ == "stdio":
		d.errorf(urlP.key, "url: the transport is stdio; a URL is a streamable HTTP server")
	}
	if hasURL {
		for _, k := range []string{"args", "env", "cwd"} {
			if p, ok := fields[k]; ok {
				d.errorf(p.key, "%s: applies to a server started by a command, not to one reached by url:", k)
			}
		}
		if s, ok := d.str(urlP, "a URL"); ok {
			if msg := checkURL(s); msg != "" {
				d.errorf(urlP.val, "url %s: %s", redactURL(s), msg)
			}
			d.checkRefs(urlP.val, "url", s)
			c.URL = s
		}
		if p, ok := fields["headers"]; ok {
			c.Headers = d.headers(p)
		}
		return
	}
	if p, ok := fields["headers"]; ok {
		d.errorf(p.key, "headers: applies to a server reached by url:, not to one started by a command")
	}
	c.Command = d.command(cmdP, fields)
	for i, a := range c.Command {
		d.checkRefs(cmdP.val, fmt.Sprintf("command[%d]", i), a)
	}
	if p, ok := fields["cwd"]; ok {
		if s, ok := d.str(p, "a folder"); ok {
			d.checkRefs(p.val, "cwd", s)
			c.Cwd = s
		}
	}
	if p, ok := fields["env"]; ok {
		c.Env = d.env(p)
	}
}

// command reads command: as an argv list, or as a program with args:.
func (d *decoder) command(p pair, fields map[string]pair) []string {
	args, hasArgs := fields["args"]
	var argv []string
	switch p.val.Kind {
	case yaml.SequenceNode:
		if hasArgs {
			d.errorf(args.key, "args: command: is already an argv list; put the arguments there")
			return nil
		}
		argv = d.strings(p, "an argument")
		if len(argv) == 0 && len(d.probs) == 0 {
			d.errorf(p.val, "command: the argv list is empty")
			return nil
		}
	case yaml.ScalarNode:
		s, ok := d.str(p, "a program")
		if !ok {
			return nil
		}
		if !d.json && !hasArgs && strings.ContainsAny(s, " \t") {
			d.errorf(p.val, "command: %q is one program name; write the command as a list, e.g. [%s], which runs without a shell", s, strings.Join(strings.Fields(s), ", "))
			return nil
		}
		argv = []string{s}
		if hasArgs {
			if args.val.Kind != yaml.SequenceNode {
				d.errorf(args.val, "args: want a list of arguments, got %s", yamlpos.KindName(args.val))
				return nil
			}
			argv = append(argv, d.strings(args, "an argument")...)
		}
	default:
		d.errorf(p.val, "command: want an argv list such as [npx, -y, \"@modelcontextprotocol/server-everything\"], got %s", yamlpos.KindName(p.val))
		return nil
	}
	if len(argv) > 0 && argv[0] == "" {
		d.errorf(p.val, "command: the program name is empty")
		return nil
	}
	return argv
}

// env reads env: as a list of names passed through, or a mapping of names
// to values.
func (d *decoder) env(p pair) []EnvVar {
	var out []EnvVar
	seen := map[string]bool{}
	add := func(n *yaml.Node, v EnvVar) {
		switch {
		case !validEnvName(v.Name):
			d.errorf(n, "env: %q is not a variable name", v.Name)
		case seen[v.Name]:
			d.errorf(n, "env: %s is listed twice", v.Name)
		case slices.Contains(credentials, v.Name) && !v.HasValue:
			d.errorf(n, "env: %s is agentloop's own provider credential and is never passed to a server", v.Name)
		case v.Name == "PATH" && !v.HasValue:
			// Every server gets PATH.
			seen[v.Name] = true
		default:
			seen[v.Name] = true
			out = append(out, v)
		}
	}
	switch p.val.Kind {
	case yaml.SequenceNode:
		if d.json {
			d.errorf(p.val, `env: want an object of variables and their values, e.g. {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}`)
			return nil
		}
		for _, n := range p.val.Content {
			n = yamlpos.Deref(n)
			if n.Kind != yaml.ScalarNode || yamlpos.IsNull(n) {
				d.errorf(n, "env: %s is not a variable name", yamlpos.KindName(n))
				continue
			}
			add(n, EnvVar{Name: n.Value})
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(p.val.Content); i += 2 {
			k, v := p.val.Content[i], yamlpos.Deref(p.val.Content[i+1])
			if v.Kind != yaml.ScalarNode || yamlpos.IsNull(v) {
				d.errorf(v, "env: %s: want a value, got %s", k.Value, yamlpos.KindName(v))
				continue
			}
			d.checkRefs(v, "env."+k.Value, v.Value)
			add(k, EnvVar{Name: k.Value, Value: v.Value, HasValue: true})
		}
	default:
		d.errorf(p.val, "env: want a list of variable names passed through, e.g. [GITHUB_TOKEN], or a mapping of names to values, got %s", yamlpos.KindName(p.val))
	}
	return out
}

func (d *decoder) headers(p pair) map[string]string {
	if p.val.Kind != yaml.MappingNode {
		d.errorf(p.val, `headers: want a mapping of header names to values, e.g. {Authorization: "Bearer ${API_TOKEN}"}, got %s`, yamlpos.KindName(p.val))
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(p.val.Content); i += 2 {
		k, v := p.val.Content[i], yamlpos.Deref(p.val.Content[i+1])
		switch {
		case !validHeaderName(k.Value):
			d.errorf(k, "headers: %q is not a header name", k.Value)
		case v.Kind != yaml.ScalarNode || yamlpos.IsNull(v):
			d.errorf(v, "headers: %s: want a value, got %s", k.Value, yamlpos.KindName(v))
		case strings.ContainsAny(v.Value, "\r\n"):
			d.errorf(v, "headers: %s: a header value is one line", k.Value)
		default:
			d.checkRefs(v, "headers."+k.Value, v.Value)
			out[k.Value] = v.Value
		}
	}
	return out
}

// checkRefs reports references that can never be expanded: to agentloop's
// own credentials, and ${ without a name.
func (d *decoder) checkRefs(n *yaml.Node, what, s string) {
	for _, m := range refPattern().FindAllStringSubmatch(s, -1) {
		if slices.Contains(credentials, m[1]) {
			d.errorf(n, "%s: ${%s} is agentloop's own provider credential and is never passed to a server", what, m[1])
		}
	}
	if rest := refPattern().ReplaceAllString(s, ""); strings.Contains(rest, "${") {
		d.errorf(n, "%s: %q holds a ${ that is not a reference such as ${HOME}", what, s)
	}
}

// names reads a list of tool names, each once.
func (d *decoder) names(p pair) []string {
	if p.val.Kind != yaml.SequenceNode {
		d.errorf(p.val, "%s: want a list of the server's tool names, got %s", p.key.Value, yamlpos.KindName(p.val))
		return nil
	}
	var out []string
	for _, n := range p.val.Content {
		n = yamlpos.Deref(n)
		if n.Kind != yaml.ScalarNode || yamlpos.IsNull(n) || n.Value == "" {
			d.errorf(n, "%s: %s is not a tool name", p.key.Value, yamlpos.KindName(n))
			continue
		}
		if slices.Contains(out, n.Value) {
			d.errorf(n, "%s: %s is listed twice", p.key.Value, n.Value)
			continue
		}
		out = append(out, n.Value)
	}
	return out
}

func (d *decoder) strings(p pair, what string) []string {
	out := make([]string, 0, len(p.val.Content))
	for _, n := range p.val.Content {
		n = yamlpos.Deref(n)
		if n.Kind != yaml.ScalarNode || yamlpos.IsNull(n) {
			d.errorf(n, "%s: each entry must be %s, got %s", p.key.Value, what, yamlpos.KindName(n))
			return nil
		}
		out = append(out, n.Value)
	}
	return out
}

func (d *decoder) str(p pair, want string) (string, bool) {
	if p.val.Kind != yaml.ScalarNode || yamlpos.IsNull(p.val) || p.val.Value == "" {
		d.errorf(p.val, "%s: want %s, got %s", p.key.Value, want, yamlpos.KindName(p.val))
		return "", false
	}
	return p.val.Value, true
}

func (d *decoder) strOrEmpty(p pair) (string, bool) {
	if p.val.Kind != yaml.ScalarNode || yamlpos.IsNull(p.val) {
		d.errorf(p.val, `%s: want text ("" for none), got %s`, p.key.Value, yamlpos.KindName(p.val))
		return "", false
	}
	return p.val.Value, true
}

func (d *decoder) boolean(p pair) (bool, bool) {
	var b bool
	if p.val.Kind != yaml.ScalarNode || p.val.Tag != "!!bool" || p.val.Decode(&b) != nil {
		d.errorf(p.val, "%s: want true or false, got %s", p.key.Value, yamlpos.KindName(p.val))
		return false, false
	}
	return b, true
}

// duration reads a duration; a JSON file may give a number of seconds, as
// Cline's files do.
func (d *decoder) duration(p pair) (time.Duration, bool) {
	k := p.key.Value
	if p.val.Kind != yaml.ScalarNode || yamlpos.IsNull(p.val) {
		d.errorf(p.val, "%s: want a duration such as 30s or 2m, got %s", k, yamlpos.KindName(p.val))
		return 0, false
	}
	var dur time.Duration
	if n, err := strconv.ParseFloat(p.val.Value, 64); err == nil && d.json && p.val.Tag != "!!str" {
		dur = time.Duration(n * float64(time.Second))
	} else if dur, err = time.ParseDuration(p.val.Value); err != nil {
		d.errorf(p.val, "%s: %q is not a duration; write it like 30s, 2m or 1m30s", k, p.val.Value)
		return 0, false
	}
	if dur <= 0 {
		d.errorf(p.val, "%s: must be more than 0, got %s", k, p.val.Value)
		return 0, false
	}
	return dur, true
}

// checkURL says what makes a URL one no request can go to, or "". A URL
// with a ${VAR} reference is checked when it is expanded.
func checkURL(raw string) string {
	if strings.Contains(raw, "${") {
		return ""
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "is not a URL: " + err.Error()
	case u.Scheme != "http" && u.Scheme != "https":
		return "want an http:// or https:// URL"
	case u.Hostname() == "":
		return "has no host"
	}
	return ""
}

// maxJSONSize bounds an mcpServers file.
const maxJSONSize = 1 << 20

// ReadJSON reads the servers of a {"mcpServers": {NAME: {...}}} file, the
// form Claude Desktop, Cursor, Claude Code, llm-tools-mcp and gptscript
// write. The file's other top-level keys belong to the program that wrote
// it and are left alone; a server's unknown keys are problems.
func ReadJSON(path string) ([]*Config, []*Problem) {
	fail := func(format string, args ...any) ([]*Config, []*Problem) {
		return nil, []*Problem{{File: path, Msg: fmt.Sprintf(format, args...)}}
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail("cannot read: %v", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fail("is a folder, not an mcpServers JSON file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxJSONSize+1))
	if err != nil {
		return fail("cannot read: %v", err)
	}
	if len(data) > maxJSONSize {
		return fail("larger than %d KiB: not an mcpServers file", maxJSONSize>>10)
	}
	return DecodeJSON(path, data)
}

// DecodeJSON is ReadJSON for bytes read already.
func DecodeJSON(path string, data []byte) ([]*Config, []*Problem) {
	fail := func(line int, format string, args ...any) ([]*Config, []*Problem) {
		return nil, []*Problem{{File: path, Line: line, Msg: fmt.Sprintf(format, args...)}}
	}
	if err := json.Unmarshal(data, new(any)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fail(lineAt(data, se.Offset), "invalid JSON: %v", se)
		}
		return fail(0, "invalid JSON: %v", err)
	}
	// JSON is YAML, which keeps the line of every key; outside strings (a
	// tab inside one is escaped) a tab is only space, which YAML does not
	// always take.
	doc, _, err := yamlpos.Decode(bytes.ReplaceAll(data, []byte("\t"), []byte(" ")))
	if err != nil || doc == nil {
		return fail(0, "cannot read the JSON: %v", err)
	}
	root := yamlpos.Root(doc)
	if root.Kind != yaml.MappingNode {
		return fail(root.Line, `want an object holding "mcpServers", got %s`, yamlpos.KindName(root))
	}
	servers := yamlpos.MapValue(root, "mcpServers")
	if servers == nil {
		var keys []string
		for i := 0; i < len(root.Content); i += 2 {
			keys = append(keys, root.Content[i].Value)
		}
		hint := ""
		if n := suggest.Nearest("mcpServers", keys); n != "" {
			hint = fmt.Sprintf(` (is "%s" meant to be it?)`, n)
		}
		return fail(root.Line, `no "mcpServers" object: the servers go in {"mcpServers": {"NAME": {"command": ..., "args": [...]}}}%s`, hint)
	}
	d := &decoder{file: path, json: true}
	return d.servers(servers, "mcpServers", jsonKeys), d.probs
}

// lineAt is the 1-based line of a byte offset.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}
