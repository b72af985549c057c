package toolset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/tools"
)

// A script tool's line is its sandbox as the kernel enforces it; a tool
// not loaded has none.
func TestSandboxLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\ndescription: a\ncommand: [echo, a]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Load([]string{dir}, tools.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := &Set{Reg: reg}
	_, e, _ := reg.Sandbox("a")
	if got := ts.SandboxLine("a"); !strings.HasPrefix(got, "sandbox: ") || got != "sandbox: "+e.Describe() {
		t.Errorf("%q", got)
	}
	if got := ts.SandboxLine("absent"); got != "" {
		t.Errorf("a tool not loaded: %q", got)
	}
}
