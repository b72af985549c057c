package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The pages are generated, not kept: this keeps the generator working.
func TestGenerate(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600") // 2026-01-01
	dir := t.TempDir()
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, want := range []string{
		"agentloop.1", "agentloop-run.1", "agentloop-replay.1", "agentloop-validate.1",
		"agentloop-tools.1", "agentloop-tools-list.1", "agentloop-tools-show.1", "agentloop-tools-call.1",
		"agentloop-schema.1", "agentloop-schema-transcript.1", "agentloop-config.1",
		"agentloop-config-show.1", "agentloop-config-path.1", "agentloop-completion.1", "agentloop-version.1",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s among %v", want, names)
		}
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		for _, want := range []string{".TH ", ".SH NAME", ".SH SYNOPSIS", ".SH EXAMPLE", "Jan 2026"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: no %q", name, want)
			}
		}
		if strings.Contains(page, "Auto generated") {
			t.Errorf("%s: carries cobra's generated-by tag", name)
		}
	}
	run, _ := os.ReadFile(filepath.Join(dir, "agentloop-run.1"))
	if !strings.Contains(string(run), `\fB--max-steps\fP`) {
		t.Errorf("agentloop-run.1 does not list --max-steps:\n%s", run)
	}
}
