package toolset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/agentloop/agentloop/pkg/mcp"
)

func TestSelectionWants(t *testing.T) {
	listed := &mcp.Config{Name: "gh", Prefix: "gh_", Tools: []string{"create_issue", "search"}}
	open := &mcp.Config{Name: "fs", Prefix: "fs_"}
	tests := []struct {
		name   string
		sel    Selection
		gh, fs bool
	}{
		{"everything", Selection{}, true, true},
		{"--tool a script tool", Selection{Only: []string{"calc"}}, false, false},
		{"--tool one of gh's", Selection{Only: []string{"gh_search"}}, true, false},
		{"--tool a name fs could have", Selection{Only: []string{"fs_read"}}, false, true},
		{"every known tool of gh denied", Selection{Deny: []string{"gh_create_issue", "gh_search"}}, false, true},
		{"some denied", Selection{Deny: []string{"gh_search"}}, true, true},
		{"--tool and --deny of it", Selection{Only: []string{"gh_search"}, Deny: []string{"gh_search"}}, false, false},
		{"a replay that calls nothing", Selection{Restricted: true}, false, false},
	}
	for _, tt := range tests {
		if got := tt.sel.Wants(listed); got != tt.gh {
			t.Errorf("%s: gh wanted %v", tt.name, got)
		}
		if got := tt.sel.Wants(open); got != tt.fs {
			t.Errorf("%s: fs wanted %v", tt.name, got)
		}
	}
}

// A server declared in several places is the first one's: an mcpServers
// file's, then a tools folder's, then the configuration's; twice in one
// folder is a problem.
func TestDeclaredPrecedence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	json := write("mcp.json", `{"mcpServers": {"a": {"command": "from-json"}}}`)
	write("project/a.yaml", "mcp:\n  command: [from-project]\n")
	write("project/b.yaml", "mcp:\n  command: [b-project]\n")
	write("user/b.yaml", "mcp:\n  command: [b-user]\n")
	configured := []*mcp.Config{{Name: "b", Command: []string{"from-config"}}, {Name: "c", Command: []string{"c-config"}}}
	_, servers, problems := Declared(Sources{
		Dirs: []string{filepath.Join(dir, "project"), filepath.Join(dir, "user")}, MCPFiles: []string{json}, MCPServers: configured,
	})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var got []string
	for _, c := range servers {
		got = append(got, c.Name+"="+c.Command[0])
	}
	if strings.Join(got, " ") != "a=from-json b=b-project c=c-config" {
		t.Errorf("servers: %v", got)
	}

	write("project/again.yaml", "mcp:\n  name: b\n  command: [again]\n")
	_, _, problems = Declared(Sources{Dirs: []string{filepath.Join(dir, "project")}})
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), `b.yaml:1: mcp server "b" is declared twice in this folder (also at `) {
		t.Errorf("problems: %v", problems)
	}
}

// The servers of the user's configuration are optional unless they say
// otherwise; a project's, and a file a command line names, are required
// unless they say optional: true.
func TestDeclaredOptional(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	json := write("mcp.json", `{"mcpServers": {"j": {"command": "j"}, "jreq": {"command": "j", "optional": false}}}`)
	write("project/p.yaml", "mcp:\n  command: [p]\n")
	write("project/popt.yaml", "mcp:\n  command: [p]\n  optional: true\n")
	configured, probs := mcp.DecodeServers("config.yaml", yamlNode(t, "c: {command: [c]}\ncreq: {command: [c], optional: false}\n"))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for _, user := range []bool{false, true} {
		_, servers, problems := Declared(Sources{Dirs: []string{filepath.Join(dir, "project")}, MCPFiles: []string{json}, UserFiles: user, MCPServers: configured})
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		var got []string
		for _, c := range servers {
			if c.Optional {
				got = append(got, c.Name)
			}
		}
		want := "popt c"
		if user {
			want = "j popt c"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("files the user's configuration names: %v: optional %v, want %s", user, got, want)
		}
	}
}

func yamlNode(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// With Known, of the servers that could have a name those known to have it
// start; when none is, those whose tools are not known; when none is
// either, all that could; a script tool's name needs none.
func TestSelectionServersKnown(t *testing.T) {
	a := &mcp.Config{Name: "a", Prefix: ""}
	b := &mcp.Config{Name: "b", Prefix: ""}
	gh := &mcp.Config{Name: "gh", Prefix: "gh_"}
	all := []*mcp.Config{a, b, gh}
	cached := map[*mcp.Config][]string{a: {"echo"}, b: {"pid"}}
	known := func(c *mcp.Config) ([]string, bool) {
		names, ok := cached[c]
		return names, ok
	}
	script := func(n string) bool { return n == "hello" }
	names := func(cs []*mcp.Config) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		only  []string
		known func(*mcp.Config) ([]string, bool)
		want  string
	}{
		{[]string{"pid"}, known, "b"},
		{[]string{"echo", "pid"}, known, "a b"},
		{[]string{"gh_x"}, known, "gh"},
		{[]string{"new"}, known, "a b"},
		{[]string{"hello"}, known, ""},
		{[]string{"pid"}, nil, "a b"},
		{nil, known, "a b gh"},
	}
	for _, tt := range tests {
		sel := Selection{Only: tt.only, Known: tt.known}
		if got := names(sel.servers(all, script)); got != tt.want {
			t.Errorf("only %v (known %v): %q, want %q", tt.only, tt.known != nil, got, tt.want)
		}
	}
}
