package tools

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads a folder of 200 tool definitions, each with a few
// parameters of different kinds, as a large tools.d would be.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{"tool.sh": okScript}
	for i := range 200 {
		files[fmt.Sprintf("tool%03d.yaml", i)] = fmt.Sprintf(`name: tool_%03d
description: Tool number %d. Use it when the benchmark says so.
parameters:
  query: {type: string, description: What to look for}
  limit: {type: integer, required: false, default: 10, enum: [10, 20, 50]}
  tags: {type: array, items: {type: string}, required: false}
  exact: {type: boolean, required: false}
run: tool.sh
timeout: 10s
max_output: 32KiB
`, i, i)
	}
	writeFiles(b, dir, files)
	opts := Options{Getenv: testEnv(nil)}
	for b.Loop() {
		r, err := Load([]string{dir}, opts)
		if err != nil || r.Len() != 200 {
			b.Fatalf("load: %v", err)
		}
	}
}

const trivialScript = "#!/bin/sh\nexit 0\n"

// BenchmarkCallTrivial is the whole cost of one call of a tool that does
// nothing: argument checking, environment, pipes, process group, reaping.
func BenchmarkCallTrivial(b *testing.B) {
	r := loadOne(b, "name: noop\ndescription: d\nparameters:\n  x: {type: string, required: false}\nrun: tool.sh\n", trivialScript, Options{})
	ctx := context.Background()
	args := []byte(`{"x":"y"}`)
	for b.Loop() {
		if res := r.Call(ctx, "noop", "call_1", args); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

// BenchmarkExecBare runs the same script with a bare exec.Command: the
// baseline BenchmarkCallTrivial is measured against.
func BenchmarkExecBare(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, map[string]string{"tool.sh": trivialScript})
	path := filepath.Join(dir, "tool.sh")
	for b.Loop() {
		if err := exec.Command(path).Run(); err != nil {
			b.Fatal(err)
		}
	}
}
