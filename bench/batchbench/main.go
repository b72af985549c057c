// Command batchbench measures `agentloop batch` against a local fake API
// that answers every request after a fixed latency, and the same set run as
// a shell loop of `agentloop run` under xargs -P:
//
//	go run ./bench/batchbench -bin bin/agentloop -items 1000 -latency 10ms
//
// Every item makes 3 model calls: two turns call a tool the tools folder
// does not define (answered without a process, so the CPU and memory
// measured are agentloop's own), then an answer. It prints, for -j 1, 8 and
// 32: the wall time against the ideal items × steps × latency / j, CPU
// time and peak RSS per item; the same for xargs -P; one row with a real
// tool process per call; and a run against a server that refuses requests
// over a rate with 429 (a "429 storm"), counting what reached it.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

var (
	bin     = flag.String("bin", "bin/agentloop", "the agentloop binary")
	items   = flag.Int("items", 1000, "items in the set")
	latency = flag.Duration("latency", 10*time.Millisecond, "the server's latency per request")
	jobs    = flag.String("j", "1,8,32", "the -j values to measure")
	rate    = flag.Int("rate", 20, "requests a second the 429 storm's server allows")
	work    = flag.String("dir", "bench/out/batch", "working folder")
)

func main() {
	flag.Parse()
	abs, err := filepath.Abs(*bin)
	check(err)
	*bin = abs
	abs, err = filepath.Abs(*work)
	check(err)
	*work = abs
	check(os.RemoveAll(*work))
	check(os.MkdirAll(filepath.Join(*work, "tools.d"), 0o755))
	check(os.WriteFile(filepath.Join(*work, "tools.d", "echo.yaml"), []byte("name: echo\ndescription: Says its input back.\nparameters: {}\ncommand: [cat]\n"), 0o644))
	writeInput(*items)

	fmt.Printf("batch benchmark: %d items × 3 steps, %v per request, %s\n", *items, *latency, time.Now().UTC().Format(time.DateOnly))
	for _, j := range parseJobs(*jobs) {
		ideal := time.Duration(*items*3) * *latency / time.Duration(j)
		b := measure("batch", j, "nothing", *items)
		x := measure("xargs", j, "nothing", *items)
		fmt.Printf("-j %-3d ideal %8s | batch %8s (%.2f× ideal) %6.2f ms CPU/item, peak RSS %5.1f MB | xargs -P %d agentloop run %8s (%.2f× ideal) %6.2f ms CPU/item\n",
			j, ideal.Round(time.Millisecond), b.wall.Round(time.Millisecond), ratio(b.wall, ideal), b.cpuPerItem(), b.rssMB(), j, x.wall.Round(time.Millisecond), ratio(x.wall, ideal), x.cpuPerItem())
	}
	// Memory that grows with the set: the same run with a tenth of it.
	small := measure("batch", 32, "nothing", *items/10)
	big := measure("batch", 32, "nothing", *items)
	fmt.Printf("peak RSS at -j 32: %.1f MB for %d items, %.1f MB for %d: %.1f KB more per item\n",
		small.rssMB(), *items/10, big.rssMB(), *items, float64(big.maxRSS-small.maxRSS)/float64(*items-*items/10))
	tool := measure("batch", 32, "echo", *items)
	fmt.Printf("-j 32 with a tool process per call (cat): %s, %.2f ms CPU/item (agentloop and its 2 tool processes)\n", tool.wall.Round(time.Millisecond), tool.cpuPerItem())

	storm("batch")
	storm("xargs")
}

// result is one measured run.
type result struct {
	wall   time.Duration
	cpu    time.Duration
	maxRSS int64 // KB
	n      int
	code   int
}

func (r result) cpuPerItem() float64 { return float64(r.cpu.Microseconds()) / 1000 / float64(r.n) }
func (r result) rssMB() float64      { return float64(r.maxRSS) / 1024 }

// measure runs n items with j at once, as one batch or as xargs -P j of
// agentloop run, against a fresh fake server; tool is what turns 1 and 2
// call.
func measure(how string, j int, tool string, n int) result {
	c := &fakeapi.Conversations{Steps: steps(tool), Latency: fakeapi.Duration(*latency)}
	srv := fakeapi.NewOpenAIConversations(c, "")
	defer srv.Close()
	r := run(how, j, n, srv.BaseURL(), nil)
	if err := srv.Check(); err != nil {
		fmt.Fprintln(os.Stderr, "batchbench:", err)
		os.Exit(1)
	}
	if r.code != 0 || srv.Conversations() != n {
		fmt.Fprintf(os.Stderr, "batchbench: %s -j %d: exit %d, %d conversations of %d\n", how, j, r.code, srv.Conversations(), n)
		os.Exit(1)
	}
	return r
}

func steps(tool string) []fakeapi.Step {
	text := "answer to {{prompt}}"
	return []fakeapi.Step{
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: tool, Arguments: `{}`}}},
		{ToolCalls: []fakeapi.ToolCall{{ID: "call_2", Name: tool, Arguments: `{}`}}},
		{Text: &text},
	}
}

// run runs the set and returns its wall time and the resources of the
// process tree (agentloop, or xargs and every agentloop run it started).
func run(how string, j, n int, url string, extra []string) result {
	out := filepath.Join(*work, fmt.Sprintf("%s-%d-%d", how, j, time.Now().UnixNano()))
	in := fmt.Sprintf("in-%d", n)
	var c *exec.Cmd
	if how == "batch" {
		args := append([]string{"batch", in + ".jsonl", "-d", out, "-j", strconv.Itoa(j), "--base-url", url, "--tools-dir", "tools.d", "-q"}, extra...)
		c = exec.Command(*bin, args...)
	} else {
		check(os.MkdirAll(out, 0o700))
		args := append([]string{"-d", "\n", "-P", strconv.Itoa(j), "-I{}", *bin, "run", "--base-url", url, "--tools-dir", "tools.d", "-q", "-o", out + "/{}.jsonl"}, extra...)
		c = exec.Command("xargs", append(args, "{}")...)
		f, err := os.Open(filepath.Join(*work, in+".txt"))
		check(err)
		defer f.Close()
		c.Stdin = f
	}
	c.Dir = *work
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + *work, "XDG_CONFIG_HOME=" + filepath.Join(*work, ".config"), "XDG_STATE_HOME=" + filepath.Join(*work, ".state")}
	start := time.Now()
	err := c.Run()
	r := result{wall: time.Since(start), n: n}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		check(err)
	}
	// The process's own resources and those of the children it waited for.
	ru := c.ProcessState.SysUsage().(*syscall.Rusage)
	r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	r.maxRSS = ru.Maxrss
	return r
}

// storm runs the set against a server that allows -rate requests a
// second and answers the others 429 (Retry-After: 1), at -j 32, and
// reports what reached the server.
func storm(how string) {
	n := min(*items, 100)
	c := &fakeapi.Conversations{Steps: steps("nothing"), Latency: fakeapi.Duration(*latency),
		RateLimit: &fakeapi.RateLimit{Limit: *rate, Window: fakeapi.Duration(time.Second), RetryAfter: "1"}}
	srv := fakeapi.NewOpenAIConversations(c, "")
	defer srv.Close()
	r := run(how, 32, n, srv.BaseURL(), nil)
	reqs := srv.Requests()
	times := make([]time.Time, len(reqs))
	for i, q := range reqs {
		times[i] = q.Time
	}
	sort.Slice(times, func(a, b int) bool { return times[a].Before(times[b]) })
	// The most requests that reached the server in any second, refused ones
	// included, against the rate it allows: over the whole run, and from
	// the end of the first pause on (before the first 429 nobody knows the
	// limit).
	first := srv.FirstRefused()
	peak, after, lo := 0, 0, 0
	for hi := range times {
		for times[hi].Sub(times[lo]) >= time.Second {
			lo++
		}
		peak = max(peak, hi-lo+1)
		if !first.IsZero() && times[lo].After(first.Add(time.Second)) {
			after = max(after, hi-lo+1)
		}
	}
	span := times[len(times)-1].Sub(times[0])
	failed := 0
	if r.code != 0 {
		failed = countFailed(how, n)
	}
	name := "batch -j 32"
	if how == "xargs" {
		name = "xargs -P 32 agentloop run"
	}
	fmt.Printf("429 storm, %d items, server allows %d req/s: %s: %d requests in %s (%.1f/s), at most %d in any second (%d once the first 429's wait was over), %d refused with 429 (%.0f%%), %d items failed (exit %d)\n",
		n, *rate, name, len(reqs), span.Round(time.Millisecond), float64(len(reqs))/span.Seconds(), peak, after, srv.Refused(), 100*float64(srv.Refused())/float64(len(reqs)), failed, r.code)
}

// countFailed counts the items that did not answer in the last run's
// output folder.
func countFailed(how string, n int) int {
	dirs, _ := filepath.Glob(filepath.Join(*work, how+"-32-*"))
	sort.Strings(dirs)
	last := dirs[len(dirs)-1]
	if how == "batch" {
		data, _ := os.ReadFile(filepath.Join(last, "results.jsonl"))
		return strings.Count(string(data), `"reason":"error"`)
	}
	answered := 0
	files, _ := filepath.Glob(filepath.Join(last, "*.jsonl"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), `"reason":"stop"`) {
			answered++
		}
	}
	return n - answered
}

// writeInput writes the set as JSONL (for batch) and one prompt a line
// (for xargs), and a tenth of it.
func writeInput(n int) {
	for _, m := range []int{n, n / 10, min(n, 100)} {
		var jl, txt strings.Builder
		for i := 1; i <= m; i++ {
			fmt.Fprintf(&jl, "{\"id\": \"item-%d\", \"prompt\": \"item-%d\"}\n", i, i)
			fmt.Fprintf(&txt, "item-%d\n", i)
		}
		check(os.WriteFile(filepath.Join(*work, fmt.Sprintf("in-%d.jsonl", m)), []byte(jl.String()), 0o644))
		check(os.WriteFile(filepath.Join(*work, fmt.Sprintf("in-%d.txt", m)), []byte(txt.String()), 0o644))
	}
}

func parseJobs(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		j, err := strconv.Atoi(strings.TrimSpace(f))
		check(err)
		out = append(out, j)
	}
	return out
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "batchbench:", err)
		os.Exit(1)
	}
}
