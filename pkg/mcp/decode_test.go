package mcp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/yamlpos"
	"github.com/agentloop/agentloop/pkg/transcript"
)

func decodeYAMLFile(t *testing.T, name, text string) (*Config, []*Problem) {
	t.Helper()
	doc, _, err := yamlpos.Decode([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return DecodeFile(name, yamlpos.Root(doc))
}

func TestDecodeFile(t *testing.T) {
	c, probs := decodeYAMLFile(t, "/p/tools.d/github.yaml", `mcp:
  command: [npx, -y, "@modelcontextprotocol/server-github"]
  env: [GITHUB_TOKEN]
  prefix: gh_
  tools: [create_issue, search_code]
  confirm: [create_issue]
  timeout: 1m
  max_output: 64KiB
  optional: true
`)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := &Config{
		Name: "github", Command: []string{"npx", "-y", "@modelcontextprotocol/server-github"},
		Env: []EnvVar{{Name: "GITHUB_TOKEN"}}, Prefix: "gh_", Tools: []string{"create_issue", "search_code"},
		Confirm: []string{"create_issue"}, Timeout: time.Minute, StartTimeout: DefaultStartTimeout, MaxOutput: 64 << 10,
		Optional: true, optionalSaid: true, File: "/p/tools.d/github.yaml", Line: 1, Dir: "/p/tools.d",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	if !c.MayOffer("gh_search_code") || c.MayOffer("gh_delete_repo") || c.MayOffer("search_code") {
		t.Error("MayOffer does not follow the prefix and the allow-list")
	}

	c, probs = decodeYAMLFile(t, "/p/tools.d/files.yaml", "mcp:\n  name: fs\n  command: server\n  args: [--root, /srv]\n  env: {ROOT: /srv, TOKEN: \"${FS_TOKEN:-none}\"}\n  confirm: true\n")
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if c.Name != "fs" || c.Prefix != "fs_" || strings.Join(c.Command, " ") != "server --root /srv" || !c.ConfirmAll ||
		!reflect.DeepEqual(c.Env, []EnvVar{{Name: "ROOT", Value: "/srv", HasValue: true}, {Name: "TOKEN", Value: "${FS_TOKEN:-none}", HasValue: true}}) {
		t.Errorf("got %+v", c)
	}
}

func TestDecodeProblems(t *testing.T) {
	tests := []struct{ text, want string }{
		{"mcp:\n  comand: [x]\n", "f.yaml:2: unknown key 'comand' (did you mean 'command'?)"},
		{"mcp:\n  command: [x]\n  url: http://h/mcp\n", "f.yaml:3: give either 'command:' (a stdio server) or 'url:' (a streamable HTTP server), not both"},
		{"mcp:\n  prefix: x\n", "f.yaml:2: missing 'command:'"},
		{"mcp:\n  command: npx -y server\n", `f.yaml:2: command: "npx -y server" is one program name; write the command as a list, e.g. [npx, -y, server]`},
		{"mcp:\n  command: [x]\n  env: [OPENAI_API_KEY]\n", "f.yaml:3: env: OPENAI_API_KEY is agentloop's own provider credential and is never passed to a server"},
		{"mcp:\n  command: [x]\n  env: {K: \"${ANTHROPIC_API_KEY}\"}\n", "f.yaml:3: env.K: ${ANTHROPIC_API_KEY} is agentloop's own provider credential"},
		{"mcp:\n  command: [x]\n  headers: {A: b}\n", "f.yaml:3: headers: applies to a server reached by url:"},
		{"mcp:\n  url: ftp://h/\n", "f.yaml:2: url ftp://h/: want an http:// or https:// URL"},
		{"mcp:\n  url: http://h/\n  headers: {Authorization: \"Bearer ${TOKEN\"}\n", `f.yaml:3: headers.Authorization: "Bearer ${TOKEN" holds a ${ that is not a reference`},
		{"mcp:\n  command: [x]\n  prefix: \"a.b\"\n", `f.yaml:3: prefix "a.b": a tool name holds only letters, digits, '_' and '-'`},
		{"mcp:\n  command: [x]\n  tools: [a]\n  confirm: [b]\n", "f.yaml:4: confirm: b is not in tools:, so it is never offered"},
		{"mcp:\n  command: [x]\n  timeout: 10\n", `f.yaml:3: timeout: "10" is not a duration`},
		{"mcp:\n  command: [x]\nname: y\n", "f.yaml:3: a file that declares an MCP server holds only 'mcp:'"},
		{"mcp:\n  command: [x]\n  optional: yes please\n", `f.yaml:3: optional: want true or false, got "yes please"`},
		{"mcp:\n  name: \"a b\"\n  command: [x]\n", `f.yaml:2: server name "a b": use 1 to 64 characters`},
	}
	for _, tt := range tests {
		_, probs := decodeYAMLFile(t, "f.yaml", tt.text)
		var got []string
		for _, p := range probs {
			got = append(got, p.Error())
		}
		if len(got) == 0 || !strings.HasPrefix(got[0], tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.text, got, tt.want)
		}
	}
}

// A Claude Desktop file works as it is: its other settings are left alone,
// env is a mapping, a number of seconds is a timeout (Cline), and the keys
// of other programs that mean nothing here are accepted.
func TestDecodeJSON(t *testing.T) {
	data := `{
	"globalShortcut": "Ctrl+Space",
	"mcpServers": {
		"filesystem": {
			"command": "npx",
			"args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
			"env": {"DEBUG": "1"},
			"timeout": 60,
			"autoApprove": ["read_file"]
		},
		"remote": {"type": "http", "url": "https://mcp.example.com/mcp?key=${KEY}", "headers": {"X-Api-Key": "${KEY}"}},
		"off": {"command": "x", "disabled": true}
	}
}`
	cfgs, probs := DecodeJSON("claude.json", []byte(data))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	if len(cfgs) != 3 {
		t.Fatalf("%d servers", len(cfgs))
	}
	fs, remote, off := cfgs[0], cfgs[1], cfgs[2]
	if fs.Name != "filesystem" || fs.Line != 4 || fs.Timeout != time.Minute || len(fs.Command) != 4 || fs.Env[0] != (EnvVar{Name: "DEBUG", Value: "1", HasValue: true}) {
		t.Errorf("filesystem = %+v", fs)
	}
	if remote.Transport() != HTTP || remote.Headers["X-Api-Key"] != "${KEY}" || remote.Shown() != "https://mcp.example.com/mcp?key="+transcript.Redacted {
		t.Errorf("remote = %+v", remote)
	}
	if !off.Disabled {
		t.Errorf("off = %+v", off)
	}
}

func TestDecodeJSONProblems(t *testing.T) {
	tests := []struct{ text, want string }{
		{`{"mcpServers": {"a": {"comand": "x"}}}`, `c.json:1: unknown key 'comand' (did you mean 'command'?)`},
		{"{\n\"mcpServers\": {\n\"a\": {\"command\": \"x\",\n \"env\": [\"A\"]}}}", `c.json:4: env: want an object of variables and their values`},
		{`{"servers": {}}`, `c.json:1: no "mcpServers" object`},
		{"{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", `c.json:3: invalid JSON`},
		{`{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, `c.json:1: type: sse, the transport MCP replaced with streamable HTTP, is not supported`},
		{`{"mcpServers": {"a": {"command": "x", "timeout": -1}}}`, `c.json:1: timeout: must be more than 0`},
		{`[1]`, `c.json:1: want an object holding "mcpServers"`},
	}
	for _, tt := range tests {
		_, probs := DecodeJSON("c.json", []byte(tt.text))
		if len(probs) == 0 || !strings.HasPrefix(probs[0].Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %q", tt.text, probs, tt.want)
		}
	}
	_, probs := ReadJSON(filepath.Join(t.TempDir(), "missing.json"))
	if len(probs) != 1 || !strings.Contains(probs[0].Error(), "missing.json: cannot read: no such file or directory") {
		t.Errorf("missing file: %v", probs)
	}
}

func TestResolve(t *testing.T) {
	c := &Config{Name: "s", Command: []string{"srv", "--key=${KEY}"}, Env: []EnvVar{
		{Name: "PASSED"}, {Name: "UNSET"}, {Name: "SET", Value: "pre-${KEY}", HasValue: true}, {Name: "DEF", Value: "${NOPE:-fallback}", HasValue: true},
	}}
	env := map[string]string{"PATH": "/bin", "HOME": "/home/me", "KEY": "k-0123456789", "PASSED": "p-0123456789", "OTHER": "o"}
	l, err := c.resolve(func(k string) string { return env[k] }, "/work")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(l.argv, " ") != "srv --key=k-0123456789" || l.dir != "/work" {
		t.Errorf("argv %q dir %q", l.argv, l.dir)
	}
	want := []string{"PATH=/bin", "SET=pre-k-0123456789", "DEF=fallback", "HOME=/home/me", "PASSED=p-0123456789"}
	if !reflect.DeepEqual(l.env, want) {
		t.Errorf("env = %q, want %q", l.env, want)
	}
	for _, s := range []string{"k-0123456789", "p-0123456789", "pre-k-0123456789"} {
		if !strings.Contains(strings.Join(l.secrets, " "), s) {
			t.Errorf("secrets %q miss %q", l.secrets, s)
		}
	}
	if strings.Contains(strings.Join(l.secrets, " "), "/home/me") {
		t.Error("HOME is taken for a secret")
	}
}

func TestShown(t *testing.T) {
	c := &Config{Command: []string{"npx", "-y", "it's", "a b"}}
	if got := c.Shown(); got != `npx -y 'it'\''s' 'a b'` {
		t.Errorf("Shown = %s", got)
	}
	u := &Config{URL: "https://user:pw@h.example/mcp"}
	if got := u.Shown(); strings.Contains(got, "pw") {
		t.Errorf("Shown = %s", got)
	}
}

// A file with no servers is no problem.
func TestReadJSONEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.json"), []byte(`{"mcpServers": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgs, probs := ReadJSON(filepath.Join(dir, "c.json"))
	if len(cfgs) != 0 || len(probs) != 0 {
		t.Errorf("%v %v", cfgs, probs)
	}
}
