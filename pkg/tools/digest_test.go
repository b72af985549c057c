package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// The digest of a tools folder changes with anything that changes what its
// tools do, and only then.
func TestDigest(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "tools.d")
	writeFiles(t, base, map[string]string{
		"tools.d/a.yaml":     "name: a\ndescription: d\nrun: a.sh\n",
		"tools.d/a.sh":       okScript,
		"tools.d/lib/x.sh":   okScript,
		"tools.d/list.yaml":  "tools:\n  - {name: b, description: d, run: ../scripts/b.sh}\n  - {name: c, description: d, command: [../bin/c.sh, -x]}\n",
		"scripts/b.sh":       okScript,
		"bin/c.sh":           okScript,
		"scripts/unnamed.sh": okScript,
		"tools.d/srv.yaml":   "mcp:\n  command: [../bin/srv, --stdio]\n",
		"tools.d/srv2.yaml":  "mcp:\n  command: ../bin/srv2\n  args: [--stdio]\n",
		"bin/srv":            okScript,
		"bin/srv2":           okScript,
	})
	digest := func() string {
		t.Helper()
		d, err := Digest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	prev := digest()
	if again := digest(); again != prev {
		t.Fatalf("two digests of the same folder differ: %s %s", prev, again)
	}
	steps := []struct {
		name    string
		change  func()
		changes bool
	}{
		{"a script's bytes", func() { os.WriteFile(filepath.Join(dir, "a.sh"), []byte(okScript+"rm -rf ~\n"), 0o755) }, true},
		{"a tool file's bytes", func() {
			os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\ndescription: e\nrun: a.sh\n"), 0o644)
		}, true},
		{"a file in a subfolder", func() { os.WriteFile(filepath.Join(dir, "lib", "x.sh"), []byte("#!/bin/sh\n"), 0o755) }, true},
		{"a new file", func() { os.WriteFile(filepath.Join(dir, "new.yaml"), nil, 0o644) }, true},
		{"a renamed file", func() { os.Rename(filepath.Join(dir, "new.yaml"), filepath.Join(dir, "new2.yaml")) }, true},
		{"an execute bit", func() { os.Chmod(filepath.Join(dir, "new2.yaml"), 0o755) }, true},
		{"a run: script outside the folder", func() { os.WriteFile(filepath.Join(base, "scripts", "b.sh"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"a command: program outside the folder", func() { os.WriteFile(filepath.Join(base, "bin", "c.sh"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"an MCP server's program outside the folder (an argv list)", func() { os.WriteFile(filepath.Join(base, "bin", "srv"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"an MCP server's program outside the folder (a program and args)", func() { os.WriteFile(filepath.Join(base, "bin", "srv2"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"a tool file that is a link to one outside", func() {
			os.WriteFile(filepath.Join(base, "linked.yaml"), []byte("name: l\ndescription: d\nrun: ../bin/l.sh\n"), 0o644)
			os.WriteFile(filepath.Join(base, "bin", "l.sh"), []byte(okScript), 0o755)
			os.Symlink(filepath.Join(base, "linked.yaml"), filepath.Join(dir, "linked.yaml"))
		}, true},
		{"the program a linked tool file names outside", func() { os.WriteFile(filepath.Join(base, "bin", "l.sh"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"a link to a file outside", func() { os.Symlink(filepath.Join(base, "scripts", "unnamed.sh"), filepath.Join(dir, "link.sh")) }, true},
		{"the linked file's bytes", func() { os.WriteFile(filepath.Join(base, "scripts", "unnamed.sh"), []byte("#!/bin/sh\nid\n"), 0o755) }, true},
		{"a file outside no tool names", func() { os.WriteFile(filepath.Join(base, "README"), []byte("x"), 0o644) }, false},
	}
	for _, s := range steps {
		s.change()
		d := digest()
		if (d != prev) != s.changes {
			t.Errorf("%s: digest changed = %v, want %v", s.name, d != prev, s.changes)
		}
		prev = d
	}

	// A folder reached through a symbolic link has the digest of the folder.
	link := filepath.Join(base, "via-link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if d, err := Digest(link); err != nil || d != prev {
		t.Errorf("through a link: %s, %v; want %s", d, err, prev)
	}
	if _, err := Digest(filepath.Join(base, "nope")); err == nil {
		t.Error("a folder that does not exist has a digest")
	}
}
