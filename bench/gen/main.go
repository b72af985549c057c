// Command gen writes large, realistic agentloop transcripts or Claude Code
// session logs for benchmarks:
//
//	go run ./bench/gen -shape openai -size 1GB -o /tmp/t.jsonl
//	go run ./bench/gen -shape anthropic -steps 1000 -o /tmp/run.jsonl   # a run with timings
//	go run ./bench/gen -runs 10000 -size 1MB -dir /tmp/transcripts      # a transcript folder
//
// See internal/benchgen for what the transcript holds.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/internal/benchgen"
)

func main() {
	shape := flag.String("shape", "openai", "what to write: an agentloop transcript of shape openai or anthropic, or a claude-code session log")
	size := flag.String("size", "100MB", "approximate output size (KB, MB, GB)")
	out := flag.String("o", "", "output file (default: standard output)")
	seed := flag.Uint64("seed", 1, "random seed")
	steps := flag.Int("steps", 0, "write a run of this many steps, with latencies and durations, instead of -size bytes")
	runs := flag.Int("runs", 0, "write this many transcripts of -size each into -dir")
	dir := flag.String("dir", "", "folder for -runs")
	from := flag.String("from", "", "with -shape claude-code: build the log from these real session files (a glob), their ids made new in each copy")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(2)
	}
	if *runs > 0 {
		if *dir == "" {
			fmt.Fprintln(os.Stderr, "gen: -runs needs -dir")
			os.Exit(2)
		}
		if err := benchgen.WriteFolder(*dir, *runs, n, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		return
	}
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	write := func() error { return benchgen.Write(w, *shape, n, *seed) }
	if *from != "" {
		files, err := readGlob(*from)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(2)
		}
		write = func() error { return benchgen.WriteClaudeCodeFrom(w, files, n) }
	}
	if *steps > 0 {
		write = func() error { return benchgen.WriteRun(w, *shape, *steps, *seed) }
	}
	if err := write(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// readGlob reads the files a pattern names, in order.
func readGlob(pattern string) ([][]byte, error) {
	names, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("-from %s: no such files", pattern)
	}
	var files [][]byte
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		files = append(files, b)
	}
	return files, nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	u := strings.ToUpper(strings.TrimSpace(s))
	for _, suf := range []struct {
		s string
		m int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			mult, u = suf.m, strings.TrimSuffix(u, suf.s)
			break
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(u), 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad -size %q (want e.g. 500MB or 1GB)", s)
	}
	return int64(v * float64(mult)), nil
}
