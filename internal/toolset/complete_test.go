package toolset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/pkg/mcp"
)

// Completion offers the tools of the files without problems when some
// have them, the tools a server lists without starting it, each name
// once, and none of those excluded or not matching the prefix.
func TestOffered(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.yaml", "name: get_time\ndescription: the time\ncommand: [date]\n")
	write("b.yml", "name: get_date\ndescription: the date\ncommand: [date]\n")
	write("broken.yaml", "name: [\n")
	write("gh.yaml", "mcp:\n  name: gh\n  command: [gh-server]\n  tools: [get_issue, search]\n")

	defs := QuietDefinitions([]string{dir}, os.Getenv)
	if len(defs) != 2 || defs[0].Name != "get_date" || defs[1].Name != "get_time" {
		t.Fatalf("definitions: %v", defs)
	}
	src := Sources{Dirs: []string{dir}, Getenv: os.Getenv}
	var got []string
	for _, tl := range Offered(src, nil, true, "get_", []string{"get_time"}) {
		got = append(got, tl.Name+": "+tl.Description)
	}
	if len(got) != 1 || got[0] != "get_date: the date" {
		t.Errorf("offered for get_: %q", got)
	}
	got = nil
	for _, tl := range Offered(src, nil, true, "", nil) {
		got = append(got, tl.Name)
	}
	if len(got) != 4 || got[2] != "gh_get_issue" || got[3] != "gh_search" {
		t.Errorf("offered: %q", got)
	}
	if n := len(Offered(src, nil, false, "gh", nil)); n != 0 {
		t.Errorf("servers offered when not asked: %d", n)
	}
	if k := Known(&mcp.Config{Name: "x"}, nil); len(k) != 0 {
		t.Errorf("known of an unlisted server with no cache: %v", k)
	}
}
