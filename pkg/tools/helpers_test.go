package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name → content into dir. Names ending in .sh are made
// executable.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// testEnv is a fixed environment for tools: the real PATH and nothing else
// unless set.
func testEnv(extra map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := extra[k]; ok {
			return v
		}
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	}
}

// loadOne writes a YAML definition and a script beside it and loads them.
func loadOne(t testing.TB, yaml, script string, opts Options) *Registry {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"tool.yaml": yaml}
	if script != "" {
		files["tool.sh"] = script
	}
	writeFiles(t, dir, files)
	if opts.Getenv == nil {
		opts.Getenv = testEnv(nil)
	}
	r, err := Load([]string{dir}, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return r
}

// mustCall runs a call that must succeed.
func mustCall(t testing.TB, r *Registry, name, args string) Result {
	t.Helper()
	res := r.Call(context.Background(), name, "call_1", []byte(args))
	if res.IsError {
		t.Fatalf("call %s %s: %s: %s", name, args, res.Kind, res.Content)
	}
	return res
}

// loadErrors returns the messages of a failed Load, one per problem, with
// dir removed from the file names.
func loadErrors(t *testing.T, err error, dir string) []string {
	t.Helper()
	if err == nil {
		t.Fatal("load succeeded, want errors")
	}
	var out []string
	for _, line := range strings.Split(err.Error(), "\n") {
		out = append(out, strings.ReplaceAll(line, dir+string(filepath.Separator), ""))
	}
	return out
}
