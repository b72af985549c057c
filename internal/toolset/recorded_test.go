package toolset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/tools"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// The tools a recording offered that are not offered now, each with the
// server the recording says offered it and whether that server is here.
func TestAbsent(t *testing.T) {
	dir := t.TempDir()
	def := "name: calc\ndescription: Adds.\nparameters: {}\ncommand: [true]\n"
	if err := os.WriteFile(filepath.Join(dir, "calc.yaml"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Load([]string{dir}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{Reg: reg, Servers: []*mcp.Config{{Name: "fs", Prefix: "fs_"}}}
	h := &transcript.Header{
		Tools: []json.RawMessage{
			json.RawMessage(`{"type":"function","function":{"name":"calc"}}`),
			json.RawMessage(`{"type":"function","function":{"name":"gone"}}`),
			json.RawMessage(`{"name":"fs_read"}`),
			json.RawMessage(`{"name":"gh_search"}`),
			json.RawMessage(`{"name":"denied"}`),
			json.RawMessage(`{"name":"gone"}`),
		},
		MCPServers: []transcript.MCPServer{
			{Name: "fs", Transport: "stdio", Tools: []string{"fs_read"}},
			{Name: "gh", Transport: "http", Tools: []string{"gh_search"}},
		},
	}
	got := set.Absent(h, []string{"denied"})
	want := []Absent{
		{Name: "gone"},
		{Name: "fs_read", Server: "fs", Declared: true},
		{Name: "gh_search", Server: "gh"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Absent:\n got %+v\nwant %+v", got, want)
	}
	if got := set.Absent(nil, nil); got != nil {
		t.Errorf("no header: %+v", got)
	}
}
