package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/toolset"
)

// A run that cannot load a tool its recording offered says why and what
// brings it back: the recorded folder it came from, left out or not here,
// for script tools and for the servers such a folder declares; the
// folders a batch does not read; --mcp-config for a server configured
// nowhere now; always --deny to go on without it.
func TestRecordedToolsError(t *testing.T) {
	e := newConfigEnv(t, "")
	ios := e.ios()
	untrusted := filepath.Join(t.TempDir(), "long tools")
	if err := os.Mkdir(untrusted, 0o700); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	q := "'" + untrusted + "'"
	tests := []struct {
		name     string
		src      toolsSource
		recorded []string
		absent   []toolset.Absent
		want     string
	}{
		{"a script tool of a folder not trusted", toolsSource{dirs: []string{untrusted}}, []string{untrusted},
			[]toolset.Absent{{Name: "read"}},
			"the conversation's tool read cannot be loaded: the tools folder " + untrusted + " the run recorded is left out: this folder is not trusted; pass --tools-dir " + q + " to use it (or review it, then run: agentloop tools trust " + q + "), or --deny read to go on without it"},
		{"a server that folder declared", toolsSource{dirs: []string{untrusted}}, []string{untrusted},
			[]toolset.Absent{{Name: "fs_read", Server: "fs"}, {Name: "fs_write", Server: "fs"}},
			"the conversation's tools fs_read, fs_write cannot be loaded: mcp server fs, which offered fs_read, is not configured here; mcp server fs, which offered fs_write, is not configured here; the tools folder " + untrusted + " the run recorded is left out: this folder is not trusted; pass --mcp-config with a {\"mcpServers\": …} file that declares fs, --tools-dir " + q + " to use it (or review it, then run: agentloop tools trust " + q + "), or --deny fs_read --deny fs_write to go on without them"},
		{"a folder not here", toolsSource{dirs: []string{gone}}, []string{gone},
			[]toolset.Absent{{Name: "read"}},
			"the conversation's tool read cannot be loaded: the tools folder " + gone + " the run recorded is not here (a folder is recorded as the run was given it); pass --tools-dir with the folder where it is now (or run from the folder the run started in), or --deny read to go on without it"},
		{"a server configured nowhere, the recorded folder not here", toolsSource{dirs: []string{gone}}, []string{gone},
			[]toolset.Absent{{Name: "fs_read", Server: "fs"}},
			"the conversation's tool fs_read cannot be loaded: mcp server fs, which offered fs_read, is not configured here; pass --mcp-config with a {\"mcpServers\": …} file that declares fs, or --deny fs_read to go on without it"},
		{"a batch that reads other folders", toolsSource{dirs: []string{"tools.d"}, setting: "--tools-dir"}, []string{untrusted},
			[]toolset.Absent{{Name: "read"}},
			"the conversation's tool read cannot be loaded: none of the tools folders read defines it now; pass --tools-dir " + q + " to read the folder the run recorded, or --deny read to go on without it"},
		{"a server configured, the tool gone from it", toolsSource{dirs: []string{untrusted}}, []string{untrusted},
			[]toolset.Absent{{Name: "gh_search", Server: "gh", Declared: true, Started: true}},
			"the conversation's tool gh_search cannot be loaded: mcp server gh does not offer gh_search now; pass --deny gh_search to go on without it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := recordedToolsError(ios, tt.src, tt.recorded, tt.absent)
			if code, _ := exitCode(err); err == nil || code != ExitUsage {
				t.Fatalf("want exit 2, got %v", err)
			}
			if err.Error() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", err, tt.want)
			}
		})
	}
}
