package tools

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/sandbox"
)

// BenchmarkLoad loads a folder of 200 tool definitions, each with a few
// parameters of different kinds, as a large tools.d would be.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, largeToolsDir())
	opts := Options{Getenv: testEnv(nil)}
	for b.Loop() {
		r, err := Load([]string{dir}, opts)
		if err != nil || r.Len() != 200 {
			b.Fatalf("load: %v", err)
		}
	}
}

// BenchmarkDigest is the cost of checking that a trusted ./tools.d is
// still as trusted, paid by each command that uses it: the same 200 tool
// files as BenchmarkLoad.
func BenchmarkDigest(b *testing.B) {
	dir := b.TempDir()
	writeFiles(b, dir, largeToolsDir())
	for b.Loop() {
		if _, err := Digest(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func largeToolsDir() map[string]string {
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
	return files
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

// nestedTool is a tool whose parameters nest objects depth levels deep
// (then a string, one level more), written under parameters: or, with raw,
// as a schema: by hand. Flow style keeps the file's size in proportion to
// the depth, as block style's indentation would not.
func nestedTool(depth int, raw bool) string {
	var b strings.Builder
	b.WriteString("name: deep\ndescription: d\nrun: tool.sh\n")
	levels := depth
	if raw {
		b.WriteString("schema: {type: object, properties: {")
		levels-- // the schema itself is the first level
	} else {
		b.WriteString("parameters: {")
	}
	for i := range levels {
		fmt.Fprintf(&b, "p%d: {type: object, properties: {", i)
	}
	if raw {
		b.WriteString("leaf: {type: string, default: x}")
	} else {
		b.WriteString("leaf: {type: string, default: x, required: false}")
	}
	b.WriteString(strings.Repeat("}}", levels))
	if raw {
		b.WriteString("}")
	}
	b.WriteString("}\n")
	return b.String()
}

// BenchmarkLoadNested loads a tool whose parameters nest depth levels
// deep, to the limit. The time per level stays flat as depth grows: loading
// is linear in the size of the definition.
func BenchmarkLoadNested(b *testing.B) {
	for _, raw := range []bool{false, true} {
		for _, depth := range []int{8, 16, 32, 63} {
			name := fmt.Sprintf("parameters/depth=%d", depth)
			if raw {
				name = fmt.Sprintf("schema/depth=%d", depth)
			}
			b.Run(name, func(b *testing.B) {
				dir := b.TempDir()
				writeFiles(b, dir, map[string]string{"tool.yaml": nestedTool(depth, raw), "tool.sh": okScript})
				opts := Options{Getenv: testEnv(nil)}
				for b.Loop() {
					if _, err := Load([]string{dir}, opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
			})
		}
	}
}

// BenchmarkCallSandboxed is BenchmarkCallTrivial under each sandbox mode:
// the difference to off is the cost of the launcher (agentloop started
// again, restricting itself and executing the tool; here the test binary
// stands in for agentloop) and of the private TMPDIR made and removed.
func BenchmarkCallSandboxed(b *testing.B) {
	for _, mode := range sandbox.Modes {
		b.Run(string(mode), func(b *testing.B) {
			if mode != sandbox.Off && sandbox.ABI() == 0 {
				b.Skip("this kernel has no Landlock: a sandboxed call runs as off")
			}
			r := loadOne(b, "name: noop\ndescription: d\nparameters:\n  x: {type: string, required: false}\nrun: tool.sh\n", trivialScript,
				Options{Dir: b.TempDir(), Sandbox: sandbox.Settings{Mode: mode}})
			ctx := context.Background()
			args := []byte(`{"x":"y"}`)
			for b.Loop() {
				if res := r.Call(ctx, "noop", "call_1", args); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}
