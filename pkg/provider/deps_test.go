package provider_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentloop/agentloop"

// sdks are the import paths of the LLM SDKs.
var sdks = []string{"github.com/openai/openai-go", "github.com/anthropics/anthropic-sdk-go"}

func isSDK(path string) bool {
	for _, s := range sdks {
		if path == s || strings.HasPrefix(path, s+"/") {
			return true
		}
	}
	return false
}

// TestOnlyProvidersLinkSDKs holds the SDKs to the provider packages: only
// they import one, only pkg/engine (whose table builds a provider) imports
// them,
// and so the packages that read, check, replay or draw a conversation link
// none of the SDKs' packages (some fifty of them, with their init work).
func TestOnlyProvidersLinkSDKs(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the packages with")
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	own := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, module), "/") }

	providers := []string{"pkg/provider/openai", "pkg/provider/anthropic"}
	for p, imps := range imports {
		if !strings.HasPrefix(p, module) {
			continue
		}
		for _, imp := range imps {
			// bench/floor measures the SDKs' own start-up, bare.
			if isSDK(imp) && !slices.Contains(providers, own(p)) && own(p) != "bench/floor" {
				t.Errorf("%s imports %s: only the provider packages import an SDK", own(p), imp)
			}
			if strings.HasPrefix(imp, module+"/pkg/provider/") && own(p) != "pkg/engine" {
				t.Errorf("%s imports %s: only pkg/engine builds a provider", own(p), own(imp))
			}
		}
	}

	links := func(root string) string {
		seen := map[string]bool{}
		var walk func(p string) string
		walk = func(p string) string {
			if isSDK(p) {
				return p
			}
			if seen[p] {
				return ""
			}
			seen[p] = true
			for _, imp := range imports[p] {
				if sdk := walk(imp); sdk != "" {
					return own(p) + " → " + sdk
				}
			}
			return ""
		}
		return walk(module + "/" + root)
	}
	for _, p := range []string{"pkg/agent", "pkg/provider", "pkg/htmlview", "pkg/textview", "pkg/batch", "pkg/replay", "pkg/mcp", "pkg/tools", "pkg/transcript", "pkg/history", "internal/config", "internal/toolset", "internal/httpretry"} {
		if _, ok := imports[module+"/"+p]; !ok {
			t.Errorf("go list did not list %s", p)
			continue
		}
		if path := links(p); path != "" {
			t.Errorf("%s links an SDK: %s", p, path)
		}
	}
	for _, p := range providers {
		if links(p) == "" {
			t.Errorf("%s links no SDK: is the list of providers out of date?", p)
		}
	}
}
