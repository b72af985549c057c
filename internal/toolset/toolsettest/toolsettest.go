// Package toolsettest makes tool sets for tests: a folder of tool
// definitions written out and loaded as agentloop loads a tools folder.
package toolsettest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentloop/agentloop/internal/toolset"
	"github.com/agentloop/agentloop/pkg/tools"
)

// Folder writes files (name → text, each executable) into a new temporary
// folder, loads it as a tools folder whose tools see only PATH of the
// environment, and returns the set and the folder.
func Folder(t testing.TB, files map[string]string) (*toolset.Set, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reg, err := tools.Load([]string{dir}, tools.Options{Getenv: func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &toolset.Set{Reg: reg}, dir
}
