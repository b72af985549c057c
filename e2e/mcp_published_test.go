package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentloop/agentloop/internal/scripttest"
)

// The published MCP servers the scenarios of e2e/testdata/published drive, at
// the versions tested. They come from the npm registry, into a cache folder
// of their own, the first time the test runs.
const (
	everythingPackage = "@modelcontextprotocol/server-everything@2026.8.31"
	everythingBin     = "mcp-server-everything"
	filesystemPackage = "@modelcontextprotocol/server-filesystem@2026.8.31"
	filesystemBin     = "mcp-server-filesystem"
)

// TestPublishedMCPServer drives MCP servers nobody here wrote, the
// reference servers the MCP project publishes on npm (everything and
// filesystem), through agentloop run against the fake model APIs: their
// tools listed and checked, called, their results (text, structured
// content, images, links, errors) given to the model, approval and the
// server's own limits holding, and the transcripts validated and replayed
// against the servers.
func TestPublishedMCPServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("installs a published MCP server from the npm registry; not in -short")
	}
	vars := map[string]string{
		"EVERYTHING": installNPM(t, everythingPackage, everythingBin),
		"FILESYSTEM": installNPM(t, filesystemPackage, filesystemBin),
	}
	testscript.Run(t, scripttest.Params("e2e/testdata/published", vars, false))
}

// installNPM installs an npm package, once, into the test cache folder
// ($AGENTLOOP_NPM_CACHE, else the user's cache folder) and returns the
// path of its program. Without node and npm, or when the package cannot be
// fetched, the test is skipped, saying why; with AGENTLOOP_REQUIRE_NPM set
// (CI sets it when the registry answers) it fails instead.
func installNPM(t *testing.T, pkg, bin string) string {
	t.Helper()
	cannot := t.Skipf
	if os.Getenv("AGENTLOOP_REQUIRE_NPM") != "" {
		cannot = t.Fatalf
	}
	for _, prog := range []string{"node", "npm"} {
		if _, err := exec.LookPath(prog); err != nil {
			cannot("%s is not installed: the published MCP servers run on Node.js (install node and npm, or run .ci/run, which does)", prog)
		}
	}
	dir := os.Getenv("AGENTLOOP_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		dir = filepath.Join(cache, "agentloop-tests", "npm")
	}
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel", "error", pkg)
	if out, err := cmd.CombinedOutput(); err != nil {
		cannot("cannot fetch %s from the npm registry (npm install: %v):\n%s", pkg, err, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("npm install %s did not install %s", pkg, path)
	}
	return path
}
