// Command leaks watches one long-lived agentloop process for resources
// that grow with the work it does or outlive it: it runs `agentloop batch`
// (or one `agentloop run` of many steps) against a fake Chat Completions
// server in this process, samples /proc/PID while it runs, and checks
// what is left when it has exited.
//
//	go run ./bench/leaks -bin bin/agentloop -items 5000 -j 1,16
//	go run ./bench/leaks -bin bin/agentloop -scenario steps -steps 500
//
// Scenarios:
//
//	tools   each item calls script tools: one that answers, one that fails,
//	        one that times out, one that leaves a background child in its
//	        group, one that prints a lot; every fifth item's first request
//	        is answered 500 (a retry), every seventh item's turn asks for a
//	        tool that does not exist
//	mcp     each item calls a stdio MCP server and a streamable HTTP one;
//	        some calls time out (the server is slow) and the 26th item's
//	        crashes the stdio server (it is restarted, once per batch)
//	errors  items whose requests fail: 400 (no retry), 500 until retries
//	        run out, a connection cut mid-answer, a server that hangs past
//	        the item's --timeout
//	answers items answered at once with 8 KB each, no tools: what the
//	        batch keeps of each finished item
//	steps   one `agentloop run` of -steps tool-calling steps
//
// A scenario named with "+int" (tools+int) is sent SIGINT at the -mark'th
// item, as Ctrl-C would, then run again to go on.
//
// For each run it prints, at the 100th item (or step) and at the last: open
// file descriptors, threads, RSS, child processes and zombies of agentloop;
// the most of each seen; and after the exit, any process of the run still
// alive (this program is the subreaper of the run, so a process that
// escaped agentloop becomes its child) and any file left in the run's
// TMPDIR. It exits 1 when something survived the run.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/internal/mcptest"
)

var (
	bin       = flag.String("bin", "bin/agentloop", "the agentloop binary")
	items     = flag.Int("items", 1000, "items in the batch")
	jobs      = flag.String("j", "1,16", "the -j values to run")
	scenarios = flag.String("scenario", "tools,mcp,errors", "the scenarios to run (tools, mcp, errors, steps)")
	steps     = flag.Int("steps", 500, "steps of the steps scenario")
	mark      = flag.Int("mark", 100, "the item (or step) at which the first sample is taken")
	work      = flag.String("dir", "bench/out/leaks", "working folder")
	keep      = flag.Bool("keep", false, "keep the working folder")
	provider  = flag.String("provider", "openai", "the API the fake server speaks: openai, responses or anthropic")
	stream    = flag.Bool("stream", false, "steps: --stream, the answers read as events")
)

// fakeServer is the fake API of any provider.
type fakeServer interface {
	BaseURL() string
	Check() error
	Close()
	Requests() []fakeapi.Request
}

// newServer starts the fake API of -provider playing c.
func newServer(c *fakeapi.Conversations) fakeServer {
	switch *provider {
	case "anthropic":
		return fakeapi.NewAnthropicConversations(c, "")
	case "responses":
		return fakeapi.NewResponsesConversations(c, "")
	}
	return fakeapi.NewOpenAIConversations(c, "")
}

func main() {
	// The same program serves as the stdio MCP server of the mcp scenario.
	if len(os.Args) > 1 && os.Args[1] == "mcpserver" {
		os.Exit(mcptest.Main(os.Args[2:]))
	}
	flag.Parse()
	var err error
	*bin, err = filepath.Abs(*bin)
	check(err)
	*work, err = filepath.Abs(*work)
	check(err)
	// Processes a run leaves behind are reparented to this one, not to
	// init: what is still our child after the run is what survived it.
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0)
	if errno != 0 {
		fmt.Fprintln(os.Stderr, "leaks: cannot become a subreaper:", errno)
	}
	fmt.Printf("leaks: %s, agentloop %s\n", time.Now().UTC().Format(time.DateOnly), *bin)
	bad := false
	for _, sc := range strings.Split(*scenarios, ",") {
		if sc == "steps" {
			bad = runSteps() || bad
			continue
		}
		for _, js := range strings.Split(*jobs, ",") {
			j, err := strconv.Atoi(js)
			check(err)
			bad = runBatch(sc, j) || bad
		}
	}
	if !*keep {
		_ = os.RemoveAll(*work)
	}
	if bad {
		os.Exit(1)
	}
}

// sample is what /proc says of agentloop at one moment.
type sample struct {
	done, fds, threads, rssKB, children, zombies, outFiles int
}

func (s sample) String() string {
	return fmt.Sprintf("fds %3d (%d in OUTDIR)  threads %2d  RSS %5.1f MB  children %2d  zombies %d", s.fds, s.outFiles, s.threads, float64(s.rssKB)/1024, s.children, s.zombies)
}

// watch samples pid every 20 ms until it exits; progress says how far
// the run is. It returns the first sample at mark or later, the last
// sample taken, and the most of each seen.
func watch(pid int, outDir string, progress func() int, onMark func(), exited <-chan struct{}) (atMark, last, peak sample) {
	seenMark := false
	for {
		select {
		case <-exited:
			return atMark, last, peak
		case <-time.After(100 * time.Millisecond):
		}
		// What the run's tools left is reparented to this program, whose
		// zombies would fill /proc: reap them as init would.
		reapAdopted(pid)
		s, ok := read(pid, outDir)
		if !ok {
			continue
		}
		s.done = progress()
		if onMark != nil && s.done >= *mark {
			onMark()
			onMark = nil
		}
		last = s
		if !seenMark && s.done >= *mark {
			atMark, seenMark = s, true
		}
		peak.fds, peak.threads, peak.rssKB = max(peak.fds, s.fds), max(peak.threads, s.threads), max(peak.rssKB, s.rssKB)
		peak.children, peak.zombies, peak.outFiles = max(peak.children, s.children), max(peak.zombies, s.zombies), max(peak.outFiles, s.outFiles)
	}
}

// read samples /proc/PID.
func read(pid int, outDir string) (sample, bool) {
	var s sample
	dir := "/proc/" + strconv.Itoa(pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil || len(fds) == 0 {
		return s, false // gone, or exiting
	}
	s.fds = len(fds)
	for _, fd := range fds {
		if target, err := os.Readlink(dir + "/fd/" + fd.Name()); err == nil && strings.HasPrefix(target, outDir) {
			s.outFiles++
		}
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return s, false
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		switch k {
		case "Threads":
			s.threads, _ = strconv.Atoi(f[0])
		case "VmRSS":
			s.rssKB, _ = strconv.Atoi(f[0])
		}
	}
	for _, p := range processes() {
		if p.ppid == pid {
			s.children++
			if p.state == "Z" {
				s.zombies++
			}
		}
	}
	return s, true
}

type proc struct {
	pid, ppid, pgrp int
	state, comm     string
}

// processes lists every process /proc shows.
func processes() []proc {
	entries, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if i < 0 || j < i {
			continue
		}
		p := proc{pid: pid, comm: string(stat[i+1 : j])}
		if _, err := fmt.Sscan(string(stat[j+1:]), &p.state, &p.ppid, &p.pgrp); err != nil {
			continue
		}
		ps = append(ps, p)
	}
	return ps
}

// survivors are the processes of the run this program adopted that still
// run (those that ended are reaped first).
func survivors() []proc {
	reap()
	me := os.Getpid()
	var left []proc
	for _, p := range processes() {
		if p.ppid == me && p.state != "Z" {
			left = append(left, p)
		}
	}
	return left
}

// reapAdopted reaps the exited processes this program adopted, leaving
// alone the run's own process (pid), whose exit exec.Cmd waits for.
func reapAdopted(pid int) {
	me := os.Getpid()
	for _, p := range processes() {
		if p.ppid == me && p.state == "Z" && p.pid != pid {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// reap waits for every adopted child that has exited, so that the next
// run starts from none.
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// runBatch runs one scenario at -j j and reports it; true when something
// outlived the run.
func runBatch(sc string, j int) bool {
	sc, interrupt := strings.CutSuffix(sc, "+int")
	dir := filepath.Join(*work, fmt.Sprintf("%s-j%d", sc, j))
	check(os.RemoveAll(dir))
	tmp := filepath.Join(dir, "tmp")
	check(os.MkdirAll(tmp, 0o700))
	check(os.MkdirAll(filepath.Join(dir, "tools.d"), 0o755))
	conv := &fakeapi.Conversations{Prompts: map[string][]fakeapi.Step{}}
	var extra []string
	switch sc {
	case "tools":
		writeToolsScenario(dir, conv)
	case "mcp":
		srv := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
		defer srv.Close()
		writeMCPScenario(dir, srv.URL, conv)
	case "errors":
		writeErrorsScenario(conv)
		extra = []string{"--timeout", "1s"}
	case "answers":
		long := strings.Repeat("an answer of some length. ", 320) + "{{prompt}}"
		conv.Prompts["answers"] = []fakeapi.Step{{Text: &long}}
	default:
		check(fmt.Errorf("unknown scenario %q", sc))
	}
	api := newServer(conv)
	defer api.Close()

	var in bytes.Buffer
	for i := range *items {
		fmt.Fprintf(&in, "{\"id\":\"i%d\",\"prompt\":\"item %d %s\"}\n", i, i, kind(sc, i))
	}
	check(os.WriteFile(filepath.Join(dir, "in.jsonl"), in.Bytes(), 0o644))
	out := filepath.Join(dir, "out")
	args := append([]string{"batch", "in.jsonl", "-d", out, "-j", strconv.Itoa(j), "--base-url", api.BaseURL(), "--tools-dir", "tools.d", "-q", "--max-steps", "6", "--provider", *provider}, extra...)
	name := sc
	if interrupt {
		name += "+int"
	}
	bad := false
	// An interrupted batch is run again, as its message says: it goes on
	// with the items stopped.
	for attempt := range 1 + btoi(interrupt) {
		if attempt > 0 {
			name = sc + " rerun"
		}
		bad = runBatchOnce(name, j, dir, tmp, out, args, interrupt && attempt == 0) || bad
	}
	if err := api.Check(); err != nil {
		fmt.Printf("  fake API: %v\n", err)
	}
	return bad
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runBatchOnce runs agentloop batch once, watches it, and reports it;
// true when something outlived it.
func runBatchOnce(name string, j int, dir, tmp, out string, args []string, interrupt bool) bool {
	c := exec.Command(*bin, args...)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + tmp, "OPENAI_API_KEY=sk-test", "ANTHROPIC_API_KEY=sk-test",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(dir, ".state")}
	var stderr bytes.Buffer
	c.Stderr = &stderr
	results := filepath.Join(out, "results.jsonl")
	progress := func() int {
		b, _ := os.ReadFile(results)
		return bytes.Count(b, []byte("\n"))
	}
	before := progress()
	start := time.Now()
	check(c.Start())
	exited := make(chan struct{})
	var werr error
	go func() { werr = c.Wait(); close(exited) }()
	var onMark func()
	if interrupt {
		// Ctrl-C in the middle of the batch: every item stops.
		onMark = func() { _ = c.Process.Signal(os.Interrupt) }
	}
	atMark, last, peak := watch(c.Process.Pid, out, progress, onMark, exited)
	<-exited
	wall := time.Since(start)
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	time.Sleep(1500 * time.Millisecond) // what is left had time to end
	left := survivors()
	tmpLeft, _ := os.ReadDir(tmp)
	var partial []string
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			partial = append(partial, e.Name())
		}
	}
	fmt.Printf("%-6s -j %-2d %d items in %s, exit %d, %d results (%d before)\n", name, j, *items, wall.Round(time.Millisecond), code, progress(), before)
	fmt.Printf("  at item %-5d %s\n", atMark.done, atMark)
	fmt.Printf("  at item %-5d %s\n", last.done, last)
	fmt.Printf("  most seen     %s\n", peak)
	bad := false
	if len(left) > 0 {
		bad = true
		fmt.Printf("  LEFT RUNNING after the run: %d processes:", len(left))
		for i, p := range left {
			if i == 10 {
				fmt.Printf(" …")
				break
			}
			fmt.Printf(" %d %s (%s, group %d)", p.pid, p.comm, p.state, p.pgrp)
		}
		fmt.Println()
	}
	if len(tmpLeft) > 0 {
		bad = true
		fmt.Printf("  LEFT in TMPDIR: %d files, e.g. %s\n", len(tmpLeft), tmpLeft[0].Name())
	}
	if len(partial) > 0 {
		bad = true
		fmt.Printf("  LEFT in OUTDIR: %d temporary files, e.g. %s\n", len(partial), partial[0])
	}
	if code != 0 && code != 1 {
		fmt.Printf("  stderr: %s\n", lastLines(stderr.String(), 5))
	}
	return bad
}

// kind is what an item of a scenario does, by its index: the text its
// prompt carries, which picks its script.
func kind(sc string, i int) string {
	switch sc {
	case "tools":
		switch {
		case i%7 == 3:
			return "unknown"
		case i%5 == 1:
			return "retry"
		}
		return "tools"
	case "mcp":
		if i == 25 {
			return "crash" // restarted once, for the rest of the batch
		}
		if i%4 == 2 {
			return "slow"
		}
		return "mcp"
	case "errors":
		return []string{"bad-request", "server-error", "cut", "hang", "fine"}[i%5]
	case "answers":
		return "answers"
	}
	return ""
}

func answer() *string { s := "done {{prompt}}"; return &s }

func call(id, name, args string) fakeapi.ToolCall {
	return fakeapi.ToolCall{ID: id, Name: name, Arguments: args}
}

// writeToolsScenario writes the script tools and the items' scripts.
func writeToolsScenario(dir string, conv *fakeapi.Conversations) {
	tools := map[string]string{
		"ok.yaml":    "name: ok\ndescription: Answers.\nparameters: {}\ncommand: [cat]\n",
		"fail.yaml":  "name: fail\ndescription: Fails.\nparameters: {}\ncommand: [sh, -c, 'echo broken >&2; exit 3']\n",
		"slow.yaml":  "name: slow\ndescription: Times out.\nparameters: {}\ntimeout: 100ms\ncommand: [sh, -c, 'sleep 30']\n",
		"bg.yaml":    "name: bg\ndescription: Leaves a child running in its group.\nparameters: {}\ncommand: [sh, -c, 'sleep 30 > /dev/null 2>&1 & echo started']\n",
		"holds.yaml": "name: holds\ndescription: Leaves a child holding its stdout.\nparameters: {}\ncommand: [sh, -c, 'sleep 30 & echo started']\n",
		"big.yaml":   "name: big\ndescription: Prints a lot.\nparameters: {}\nmax_output: 1KiB\ncommand: [sh, -c, 'head -c 300000 /dev/zero | tr \"\\0\" x']\n",
	}
	for name, body := range tools {
		check(os.WriteFile(filepath.Join(dir, "tools.d", name), []byte(body), 0o644))
	}
	turn := fakeapi.Step{ToolCalls: []fakeapi.ToolCall{call("c1", "ok", "{}"), call("c2", "fail", "{}"), call("c3", "bg", "{}")}}
	turn2 := fakeapi.Step{ToolCalls: []fakeapi.ToolCall{call("c4", "slow", "{}"), call("c5", "holds", "{}"), call("c6", "big", "{}")}}
	conv.Prompts["tools"] = []fakeapi.Step{turn, turn2, {Text: answer()}}
	conv.Prompts["retry"] = []fakeapi.Step{{Status: 500, Error: "The server had an error while processing your request."}, turn, {Text: answer()}}
	conv.Prompts["unknown"] = []fakeapi.Step{{ToolCalls: []fakeapi.ToolCall{call("c1", "nothing", "{}"), call("c2", "ok", "not json")}}, {Text: answer()}}
}

// writeMCPScenario declares a stdio server (this program) and an HTTP one.
func writeMCPScenario(dir, url string, conv *fakeapi.Conversations) {
	self, err := os.Executable()
	check(err)
	check(os.WriteFile(filepath.Join(dir, "tools.d", "stdio.yaml"), fmt.Appendf(nil, "mcp:\n  command: [%q, mcpserver, --child]\n  timeout: 200ms\n", self), 0o644))
	check(os.WriteFile(filepath.Join(dir, "tools.d", "web.yaml"), fmt.Appendf(nil, "mcp:\n  url: %q\n  timeout: 200ms\n", url+"/"), 0o644))
	conv.Prompts["mcp"] = []fakeapi.Step{{ToolCalls: []fakeapi.ToolCall{call("c1", "stdio_echo", `{"text":"x"}`), call("c2", "web_echo", `{"text":"y"}`), call("c3", "stdio_fail", "{}")}}, {Text: answer()}}
	conv.Prompts["slow"] = []fakeapi.Step{{ToolCalls: []fakeapi.ToolCall{call("c1", "stdio_slow", `{"ms":5000}`), call("c2", "web_slow", `{"ms":5000}`)}}, {Text: answer()}}
	conv.Prompts["crash"] = []fakeapi.Step{{ToolCalls: []fakeapi.ToolCall{call("c1", "stdio_crash", `{}`)}}, {Text: answer()}}
}

// writeErrorsScenario scripts the failing API.
func writeErrorsScenario(conv *fakeapi.Conversations) {
	fail := func(status int) fakeapi.Step {
		return fakeapi.Step{Status: status, Error: "The server had an error while processing your request."}
	}
	conv.Prompts["bad-request"] = []fakeapi.Step{{Status: 400, Error: "Invalid value for 'model'."}}
	conv.Prompts["server-error"] = []fakeapi.Step{fail(500), fail(500), fail(500), fail(500), fail(500)}
	conv.Prompts["cut"] = []fakeapi.Step{{Cut: true}, {Cut: true}, {Cut: true}, {Cut: true}, {Cut: true}}
	conv.Prompts["hang"] = []fakeapi.Step{{Hang: true}}
	conv.Prompts["fine"] = []fakeapi.Step{{Text: answer()}}
}

// runSteps runs one `agentloop run` of -steps steps, each calling a tool
// that answers, and reports it as runBatch does, by step.
func runSteps() bool {
	dir := filepath.Join(*work, "steps")
	check(os.RemoveAll(dir))
	tmp := filepath.Join(dir, "tmp")
	check(os.MkdirAll(tmp, 0o700))
	check(os.MkdirAll(filepath.Join(dir, "tools.d"), 0o755))
	check(os.WriteFile(filepath.Join(dir, "tools.d", "ok.yaml"), []byte("name: ok\ndescription: Answers.\nparameters: {}\ncommand: [sh, -c, 'echo answer; sleep 30 > /dev/null 2>&1 &']\n"), 0o644))
	var script []fakeapi.Step
	for i := range *steps {
		script = append(script, fakeapi.Step{ToolCalls: []fakeapi.ToolCall{call(fmt.Sprintf("c%d", i), "ok", "{}")}})
	}
	script = append(script, fakeapi.Step{Text: answer()})
	api := newServer(&fakeapi.Conversations{Steps: script})
	defer api.Close()
	tr := filepath.Join(dir, "run.jsonl")
	args := []string{"run", "--base-url", api.BaseURL(), "--tools-dir", "tools.d", "-q", "--max-steps", strconv.Itoa(*steps + 2), "-o", tr, "--provider", *provider}
	if *stream {
		args = append(args, "--stream")
	}
	c := exec.Command(*bin, append(args, "go")...)
	c.Dir = dir
	c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + tmp, "OPENAI_API_KEY=sk-test", "ANTHROPIC_API_KEY=sk-test",
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"), "XDG_STATE_HOME=" + filepath.Join(dir, ".state")}
	start := time.Now()
	check(c.Start())
	exited := make(chan struct{})
	var werr error
	go func() { werr = c.Wait(); close(exited) }()
	progress := func() int { return len(api.Requests()) }
	atMark, last, peak := watch(c.Process.Pid, dir, progress, nil, exited)
	<-exited
	wall := time.Since(start)
	time.Sleep(1500 * time.Millisecond)
	left := survivors()
	tmpLeft, _ := os.ReadDir(tmp)
	fmt.Printf("steps  run of %d steps in %s, %v\n", *steps, wall.Round(time.Millisecond), werr)
	fmt.Printf("  at step %-5d %s\n", atMark.done, atMark)
	fmt.Printf("  at step %-5d %s\n", last.done, last)
	fmt.Printf("  most seen     %s\n", peak)
	bad := false
	if len(left) > 0 {
		bad = true
		fmt.Printf("  LEFT RUNNING after the run: %d processes\n", len(left))
	}
	if len(tmpLeft) > 0 {
		bad = true
		fmt.Printf("  LEFT in TMPDIR: %d files\n", len(tmpLeft))
	}
	return bad
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaks:", err)
		os.Exit(1)
	}
}
