// Command tracebench measures what tracing costs a run: agentloop --version
// and a one-call run (one model request, no tools, against a local fake
// API) of two binaries, run interleaved so that the machine's load falls
// on both alike, with no OTEL variable set; and the new binary's run
// traced to a local OTLP receiver, and to a port nobody listens on. It
// prints the median wall time and CPU time (user + system) of each.
//
//	go run ./bench/tracebench -old /tmp/agentloop-before -new bin/agentloop
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

var (
	oldBin = flag.String("old", "", "the binary before (empty: measure -new alone)")
	newBin = flag.String("new", "bin/agentloop", "the binary after")
	runs   = flag.Int("runs", 100, "rounds")
)

type sample struct{ wall, cpu []time.Duration }

func main() {
	flag.Parse()
	work, err := os.MkdirTemp("", "tracebench")
	check(err)
	defer os.RemoveAll(work)
	text := "ok"
	conv := &fakeapi.Conversations{Steps: []fakeapi.Step{{Text: &text}}}
	srv := fakeapi.NewOpenAIConversations(conv, "")
	defer srv.Close()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer recv.Close()
	// A port that was just free: connections to it are refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	dead := "http://" + l.Addr().String()
	l.Close()

	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "XDG_CONFIG_HOME=" + filepath.Join(work, "c"), "XDG_STATE_HOME=" + filepath.Join(work, "s")}
	type job struct {
		name string
		bin  string
		args func(n int) []string
		env  []string
	}
	version := func(int) []string { return []string{"--version"} }
	oneCall := func(n int) []string {
		return []string{"run", "--base-url", srv.BaseURL(), "--no-stream", "-o", filepath.Join(work, "t.jsonl"), fmt.Sprintf("question %d", n)}
	}
	var jobs []job
	if *oldBin != "" {
		jobs = append(jobs, job{"before: --version", *oldBin, version, env}, job{"before: one-call run", *oldBin, oneCall, env})
	}
	jobs = append(jobs,
		job{"after: --version", *newBin, version, env},
		job{"after: one-call run", *newBin, oneCall, env},
		job{"after: one-call run, traced", *newBin, oneCall, append(slices.Clone(env), "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.URL)},
		job{"after: one-call run, collector down", *newBin, oneCall, append(slices.Clone(env), "OTEL_EXPORTER_OTLP_ENDPOINT="+dead)},
	)
	samples := make([]sample, len(jobs))
	n := 0
	for round := range *runs + 1 {
		for i, j := range jobs {
			n++
			c := exec.Command(j.bin, j.args(n)...)
			c.Env, c.Dir = j.env, work
			start := time.Now()
			if out, err := c.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "tracebench: %s: %v\n%s", j.name, err, out)
				os.Exit(1)
			}
			wall := time.Since(start)
			ru := c.ProcessState.SysUsage().(*syscall.Rusage)
			if round == 0 {
				continue // pages the binary in
			}
			samples[i].wall = append(samples[i].wall, wall)
			samples[i].cpu = append(samples[i].cpu, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
	}
	for i, j := range jobs {
		fmt.Printf("tracing: %-40s median wall %6.2f ms, cpu %6.2f ms over %d runs\n", j.name, ms(median(samples[i].wall)), ms(median(samples[i].cpu)), *runs)
	}
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracebench:", err)
		os.Exit(1)
	}
}
