// Package e2e holds agentloop's system tests: they start agentloop as a
// process (crashes, faults of the model API, secrets, the docs' commands)
// and check the repository's docs against what it does.
package e2e

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/internal/scripttest"
)

// TestMain serves this test binary as agentloop (and the MCP test server)
// when a test starts it under that name: testscript.Main puts a copy of it
// on PATH, so no test builds the program again. Otherwise the tests run
// from the repository's root, where the docs and test data they read are
// and where the README's commands run.
func TestMain(m *testing.M) {
	testscript.Main(fromRoot{m}, scripttest.Commands())
}

// fromRoot runs the tests in the module's root folder.
type fromRoot struct{ m *testing.M }

func (r fromRoot) Run() int {
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	if _, err := os.Stat("go.mod"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: not in the module's root:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "agentloop-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	buildDir = dir
	return r.m.Run()
}
