package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that starts leaves its tools in the cache, found by its
// declaration as it is: one changed finds nothing. The file is the user's
// alone and holds no value a server was given.
func TestNamesCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", NamesFile)
	cfg := stdioServer(t, "t", "--only", "echo,pid")
	cfg.Env = append(cfg.Env, EnvVar{Name: "TOKEN", Value: "tok-S3CR3T-0123456789", HasValue: true})
	if _, ok := (&Names{Path: path}).Lookup(cfg); ok {
		t.Fatal("found before any start")
	}
	s := Start(context.Background(), []*Config{cfg}, Options{Getenv: testEnv(nil), Names: &Names{Path: path}})
	s.Close()
	if err := s.Statuses()[0].Err; err != nil {
		t.Fatal(err)
	}
	names := &Names{Path: path}
	tools, ok := names.Lookup(cfg)
	if !ok || len(tools) != 2 || tools[0] != (NamedTool{"t_echo", "Echoes its text."}) || tools[1].Name != "t_pid" {
		t.Errorf("cached: %+v, %v", tools, ok)
	}
	if known, ok := names.Known(cfg); !ok || strings.Join(known, " ") != "t_echo t_pid" {
		t.Errorf("Known: %v, %v; want the cache's", known, ok)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file: %v, %v; want 0600", fi.Mode(), err)
	}
	if di, err := os.Stat(filepath.Dir(path)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("folder: %v, %v; want 0700", di.Mode(), err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "S3CR3T") || strings.Contains(string(b), "TOKEN") {
		t.Errorf("the file holds what the server was given:\n%s", b)
	}

	changed := *cfg
	changed.Env = append(append([]EnvVar(nil), cfg.Env[:len(cfg.Env)-1]...), EnvVar{Name: "TOKEN", Value: "other", HasValue: true})
	if _, ok := (&Names{Path: path}).Lookup(&changed); ok {
		t.Error("a changed declaration found the old names")
	}
	moved := *cfg
	moved.File, moved.Line, moved.Timeout = "elsewhere.yaml", 9, 1
	if _, ok := (&Names{Path: path}).Lookup(&moved); !ok {
		t.Error("a declaration moved, or with another timeout, lost its names")
	}

	// An allow-list is known without the cache; nothing is known of a
	// server that never started.
	listed := &Config{Name: "gh", Prefix: "gh_", Tools: []string{"search"}}
	if known, ok := (&Names{Path: path}).Known(listed); !ok || strings.Join(known, " ") != "gh_search" {
		t.Errorf("Known: %v, %v; want the tools: list", known, ok)
	}
	if _, ok := (&Names{Path: path}).Known(&Config{Name: "new", Prefix: "new_"}); ok {
		t.Error("known without a start")
	}
}

// What is not the cache is ignored, and replaced at the next start.
func TestNamesCacheNotOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), NamesFile)
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := stdioServer(t, "t", "--only", "echo")
	if _, ok := (&Names{Path: path}).Lookup(cfg); ok {
		t.Fatal("found in a file that is not the cache")
	}
	s := Start(context.Background(), []*Config{cfg}, Options{Getenv: testEnv(nil), Names: &Names{Path: path}})
	s.Close()
	if tools, ok := (&Names{Path: path}).Lookup(cfg); !ok || len(tools) != 1 {
		t.Errorf("after a start: %+v, %v", tools, ok)
	}
}
