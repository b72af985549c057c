package mcp

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/mcptest"
	"github.com/agentloop/agentloop/pkg/tools"
)

// BenchmarkCall compares one call of a tool doing the same work, "done N":
// a script tool (a process per call), and an MCP tool of a server already
// running, over stdio and over streamable HTTP on loopback.
func BenchmarkCall(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{
		"work.yaml": "name: work\ndescription: d\nparameters:\n  n: {type: string}\nrun: work.sh\n",
		"work.sh":   "#!/bin/sh\necho \"done $ARG_N\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	reg, err := tools.Load([]string{dir}, tools.Options{Getenv: testEnv(nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("script", func(b *testing.B) {
		for b.Loop() {
			if r := reg.Call(context.Background(), "work", "c", []byte(`{"n":"1"}`)); r.IsError {
				b.Fatal(r.Content)
			}
		}
	})
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer srv.Close()
	for _, tt := range []struct {
		name string
		cfg  func() *Config
	}{
		{"mcp_stdio", func() *Config { return stdioServer(b, "t") }},
		{"mcp_http", func() *Config {
			return &Config{Name: "t", URL: srv.URL, Prefix: "t_", Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, MaxOutput: DefaultMaxOutput}
		}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s := Start(context.Background(), []*Config{tt.cfg()}, Options{Getenv: testEnv(nil)})
			defer s.Close()
			if err := s.Statuses()[0].Err; err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if r := s.Call(context.Background(), "t_work", "c", []byte(`{"n":"1"}`)); r.IsError {
					b.Fatal(r.Content)
				}
			}
		})
	}
}

// BenchmarkStart starts a server and lists its tools: the Go test server
// over stdio (a process started, initialized, listed) and over HTTP.
func BenchmarkStart(b *testing.B) {
	srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	defer srv.Close()
	for _, tt := range []struct {
		name string
		cfg  *Config
	}{
		{"stdio", stdioServer(b, "t")},
		{"http", &Config{Name: "t", URL: srv.URL, Prefix: "t_", Timeout: 5 * time.Second, StartTimeout: 10 * time.Second, MaxOutput: DefaultMaxOutput}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				s := Start(context.Background(), []*Config{tt.cfg}, Options{Getenv: testEnv(nil)})
				if err := s.Statuses()[0].Err; err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkParallelCalls makes 8 calls at once to one stdio server, each
// taking 50 ms on the server. The SDK multiplexes them over the one
// connection: they overlap, and a batch takes about 50 ms, not 400.
// batch-ms is a batch's wall time, overlap how many calls ran at once.
func BenchmarkParallelCalls(b *testing.B) {
	const calls, work = 8, 50 * time.Millisecond
	cfg := stdioServer(b, "t")
	s := Start(context.Background(), []*Config{cfg}, Options{Getenv: testEnv(nil), Dir: b.TempDir()})
	defer s.Close()
	if err := s.Statuses()[0].Err; err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		var wg sync.WaitGroup
		for i := range calls {
			wg.Go(func() {
				if r := s.Call(context.Background(), "t_slow", fmt.Sprint(i), []byte(`{"ms":50}`)); r.IsError {
					b.Error(r.Content)
				}
			})
		}
		wg.Wait()
		total += time.Since(start)
	}
	batch := total / time.Duration(b.N)
	b.ReportMetric(float64(batch.Microseconds())/1000, "batch-ms")
	b.ReportMetric(float64(calls*work)/float64(batch), "overlap")
}
