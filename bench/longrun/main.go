// Command longrun measures agentloop's own cost over a long run: a model
// (a fake Chat Completions server in this process) that calls one tool a
// step for -steps steps, each call answered by a tool that prints 8 KiB,
// then answers. agentloop runs as a child process, so its CPU time and peak
// memory are its own; the tool processes' CPU, measured apart by running
// the same tool as often, is taken off.
//
//	go run ./bench/longrun -bin bin/agentloop -steps 200
//	go run ./bench/longrun -bin bin/agentloop -steps 200 -context-limit 32000
//	go run ./bench/longrun -bin bin/agentloop -steps 200 -stream
//
// It prints one line of figures: CPU (agentloop's own; with the tools', user and
// system apart), peak RSS, the bytes of every request sent, the largest
// request, and the final conversation's size (the messages of the
// transcript); then a line of agentloop's memory read from /proc as the last
// request arrives: its peak and current RSS, and how much of it is its own
// (anonymous) and how much the pages of its binary.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/agentloop", "the agentloop binary")
	steps := flag.Int("steps", 200, "tool-calling steps before the answer")
	size := flag.Int("result", 8192, "bytes of each tool result")
	limit := flag.Int("context-limit", 0, "--context-limit for the run (0: none)")
	stream := flag.Bool("stream", false, "--stream: the model's answers as events, as on a terminal")
	runs := flag.Int("runs", 1, "runs; with more than one, a last line of medians")
	flag.Parse()
	var cpus, rsss []float64
	for range max(*runs, 1) {
		cpu, rss, err := run(*bin, *steps, *size, *limit, *stream)
		if err != nil {
			fmt.Fprintln(os.Stderr, "longrun:", err)
			os.Exit(1)
		}
		cpus, rsss = append(cpus, cpu), append(rsss, rss)
	}
	if *runs > 1 {
		fmt.Printf("steps %d  context-limit %d%s:  median of %d runs: agentloop CPU %.2f s  peak RSS %.1f MB\n",
			*steps, *limit, streamedText(*stream), *runs, median(cpus), median(rsss))
	}
}

// median is the middle value (the mean of the two middle ones).
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// model plays the model: a call a step, then the answer. It reads each
// request whole and keeps only its size: its own cost is not agentloop's.
type model struct {
	steps int
	mu    sync.Mutex
	sizes []int
	// cleared counts the placeholders of the last request.
	cleared int
	// pid is agentloop's; its memory is read from /proc when the last
	// request arrives, while it waits for the answer.
	pid    int
	memory map[string]int // VmHWM, VmRSS, RssAnon, RssFile in kB
}

// readMemory reads the kB figures of /proc/PID/status that say where a
// process's memory is: its peak and current resident set, and how much of
// it is its own (anonymous) or pages of files it maps (its binary).
func readMemory(pid int) map[string]int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	m := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch k {
		case "VmHWM", "VmRSS", "RssAnon", "RssFile":
			m[k], _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return m
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.sizes = append(m.sizes, len(body))
	n := len(m.sizes)
	m.cleared = bytes.Count(body, []byte("[cleared to save context"))
	if n == m.steps+1 {
		m.memory = readMemory(m.pid)
	}
	m.mu.Unlock()
	msg := `{"role":"assistant","content":"Done reading."}`
	finish := "stop"
	if n <= m.steps {
		msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":"call_%d","type":"function","function":{"name":"page","arguments":"{}"}}]}`, n)
		finish = "tool_calls"
	}
	if bytes.HasPrefix(body, []byte(`{"stream":true`)) {
		// The same turn as events: the message whole as one delta (a
		// tool call's delta has its index), then the finish, then usage.
		delta := msg
		if n <= m.steps {
			delta = fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"page","arguments":"{}"}}]}`, n)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := `data: {"id":"c%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[%s]%s}` + "\n\n"
		fmt.Fprintf(w, chunk, n, `{"index":0,"delta":`+delta+`,"finish_reason":null}`, "")
		fmt.Fprintf(w, chunk, n, `{"index":0,"delta":{},"finish_reason":"`+finish+`"}`, "")
		fmt.Fprintf(w, chunk, n, "", fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":20,"total_tokens":%d}`, len(body)/4, len(body)/4+20))
		fmt.Fprint(w, "data: [DONE]\n\n")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// A token for every four bytes, as a request's share of a context.
	fmt.Fprintf(w, `{"id":"c%d","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":{"prompt_tokens":%d,"completion_tokens":20,"total_tokens":%d}}`,
		n, msg, finish, len(body)/4, len(body)/4+20)
}

// run runs agentloop once and prints its figures; it returns its own CPU
// seconds and peak RSS in MB.
func run(bin string, steps, size, limit int, stream bool) (cpuSeconds, rssMB float64, err error) {
	dir, err := os.MkdirTemp("", "longrun")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "page.txt")
	line := "the quick brown fox jumps over the lazy dog, and again, and again.\n"
	text := strings.Repeat(line, size/len(line)+1)[:size]
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		return 0, 0, err
	}
	tools := filepath.Join(dir, "tools.d")
	if err := os.Mkdir(tools, 0o755); err != nil {
		return 0, 0, err
	}
	def := fmt.Sprintf("name: page\ndescription: Reads the next page.\nparameters: {}\ncommand: [cat, %s]\nmax_output: 1MiB\n", page)
	if err := os.WriteFile(filepath.Join(tools, "page.yaml"), []byte(def), 0o644); err != nil {
		return 0, 0, err
	}

	m := &model{steps: steps}
	srv := httptest.NewServer(m)
	defer srv.Close()

	transcript := filepath.Join(dir, "t.jsonl")
	args := []string{"run", "--base-url", srv.URL + "/v1", "--tools-dir", tools, "--max-steps", strconv.Itoa(steps + 2),
		"-o", transcript, "read every page"}
	if limit > 0 {
		args = append(args, "--context-limit", strconv.Itoa(limit))
	}
	if stream {
		args = append(args, "--stream")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	err = cmd.Start()
	if err == nil {
		m.mu.Lock()
		m.pid = cmd.Process.Pid
		m.mu.Unlock()
		err = cmd.Wait()
	}
	wall := time.Since(start)
	out := stdout.Bytes()
	if err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, stderr.String())
	}
	if strings.TrimSpace(string(out)) != "Done reading." {
		return 0, 0, fmt.Errorf("unexpected answer %q", out)
	}
	// ru_maxrss of a child started with vfork is at least its parent's
	// high-water mark at the exec: this harness's, a few MB at that point,
	// well under agentloop's start-up alone.
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := tv(ru.Utime) + tv(ru.Stime)

	// The tools' own CPU: the same command, as many times, from here.
	var toolCPU time.Duration
	for range steps {
		c := exec.Command("cat", page)
		c.Stdout = io.Discard
		if err := c.Run(); err != nil {
			return 0, 0, err
		}
		tr := c.ProcessState.SysUsage().(*syscall.Rusage)
		toolCPU += tv(tr.Utime) + tv(tr.Stime)
	}

	conv, err := conversationBytes(transcript)
	if err != nil {
		return 0, 0, err
	}
	var total, largest int
	for _, s := range m.sizes {
		total += s
		largest = max(largest, s)
	}
	own := cpu - toolCPU
	fmt.Printf("steps %d  result %d B  context-limit %d%s:  agentloop CPU %.2f s (%.2f s with the tools': user %.2f s, system %.2f s)  peak RSS %.1f MB  "+
		"sent %.1f MB in %d requests (largest %.2f MB, last with %d results cleared)  final conversation %.2f MB  "+
		"%.0f MB sent a second of own CPU  wall %.2f s\n",
		steps, size, limit, streamedText(stream), own.Seconds(), cpu.Seconds(), tv(ru.Utime).Seconds(), tv(ru.Stime).Seconds(), float64(ru.Maxrss)/1024,
		float64(total)/1e6, len(m.sizes), float64(largest)/1e6, m.cleared, float64(conv)/1e6,
		float64(total)/1e6/own.Seconds(), wall.Seconds())
	if mem := m.memory; mem != nil {
		fmt.Printf("  at the last request, from /proc: peak RSS %.1f MB, RSS %.1f MB = %.1f MB its own (anonymous) + %.1f MB of mapped files (the binary)\n",
			float64(mem["VmHWM"])/1024, float64(mem["VmRSS"])/1024, float64(mem["RssAnon"])/1024, float64(mem["RssFile"])/1024)
	}
	return own.Seconds(), float64(ru.Maxrss) / 1024, nil
}

func tv(t syscall.Timeval) time.Duration {
	return time.Duration(t.Sec)*time.Second + time.Duration(t.Usec)*time.Microsecond
}

// conversationBytes is the size of a transcript's messages: the
// conversation as the API would be sent it whole.
func conversationBytes(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		var rec struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Type == "message" {
			n += len(rec.Message) + 1
		}
	}
	return n, sc.Err()
}

// streamedText marks the figures of a streamed run.
func streamedText(stream bool) string {
	if stream {
		return "  streamed"
	}
	return ""
}
