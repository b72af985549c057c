package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/procgroup"
	"github.com/agentloop/agentloop/pkg/wire"
)

func TestEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-parent-process")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-parent")
	t.Setenv("AGENTLOOP_LEAK", "x")
	y := "name: e\ndescription: d\nrun: tool.sh\nenv: [GITHUB_TOKEN, EDITOR]\n"
	script := `#!/bin/sh
echo "openai=$OPENAI_API_KEY"
echo "anthropic=$ANTHROPIC_API_KEY"
env | cut -d= -f1 | sort | tr '\n' ' '
`
	t.Run("Getenv", func(t *testing.T) {
		getenv := testEnv(map[string]string{
			"OPENAI_API_KEY": "sk-secret", "ANTHROPIC_API_KEY": "sk-ant-secret", "AWS_SECRET_ACCESS_KEY": "x",
			"HOME": "/home/u", "LANG": "C.UTF-8", "TMPDIR": "/tmp/u", "GITHUB_TOKEN": "ghp_x", "USER": "u",
		})
		r := loadOne(t, y, script, Options{Getenv: getenv})
		res := mustCall(t, r, "e", `{}`)
		want := "openai=\nanthropic=\nAGENTLOOP_CALL_ID AGENTLOOP_TOOL GITHUB_TOKEN HOME LANG PATH PWD TMPDIR "
		if res.Content != want {
			t.Errorf("content:\n got  %q\n want %q", res.Content, want)
		}
	})
	t.Run("process environment", func(t *testing.T) {
		// With no Getenv the process's own environment is the source, and
		// still only the allowed names pass.
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"tool.yaml": y, "tool.sh": script})
		r, err := Load([]string{dir}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := mustCall(t, r, "e", `{}`)
		if !strings.HasPrefix(res.Content, "openai=\nanthropic=\n") || strings.Contains(res.Content, "AGENTLOOP_LEAK") || strings.Contains(res.Content, "sk-") {
			t.Errorf("content = %q", res.Content)
		}
	})
}

// A variable every tool gets may be listed in env: as well; it is still
// set once.
func TestEnvListsAVariableOnce(t *testing.T) {
	getenv := testEnv(map[string]string{"HOME": "/home/u", "PATH": "/bin", "GITHUB_TOKEN": "ghp_x"})
	r := loadOne(t, "name: e\ndescription: d\nrun: tool.sh\nenv: [HOME, PATH, GITHUB_TOKEN]\n", okScript, Options{Getenv: getenv})
	env := r.env(r.tools["e"], "c", &prepared{})
	want := []string{"PATH=/bin", "HOME=/home/u", "GITHUB_TOKEN=ghp_x", "AGENTLOOP_TOOL=e", "AGENTLOOP_CALL_ID=c"}
	if !slices.Equal(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
}

func TestExitError(t *testing.T) {
	script := `#!/bin/sh
echo "partial result"
i=1
while [ $i -le 30 ]; do echo "warning $i" >&2; i=$((i+1)); done
echo "fatal: no such city" >&2
exit 3
`
	r := loadOne(t, "name: w\ndescription: d\nrun: tool.sh\n", script, Options{})
	res := r.Call(context.Background(), "w", "c", nil)
	var lines []string
	for i := 12; i <= 30; i++ {
		lines = append(lines, fmt.Sprintf("warning %d", i))
	}
	want := "tool exited with code 3\nstderr:\n…\n" + strings.Join(lines, "\n") + "\nfatal: no such city\nstdout:\npartial result"
	if !res.IsError || res.Kind != wire.KindExit || res.ExitCode != 3 || res.Content != want {
		t.Errorf("result = %+v\nwant content %q", res, want)
	}
	if res.Bytes != int64(len("partial result\n")) {
		t.Errorf("bytes = %d", res.Bytes)
	}
}

func TestKilledBySignal(t *testing.T) {
	r := loadOne(t, "name: k\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\nkill -KILL $$\n", Options{})
	res := r.Call(context.Background(), "k", "c", nil)
	if res.Kind != wire.KindExit || res.ExitCode != -1 || res.Content != "tool was killed by signal 9 (killed)" {
		t.Errorf("result = %+v", res)
	}
}

// readPid waits for a file the tool writes its pid to.
func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the tool did not write %s: %v", path, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %v", err)
	}
	return pid
}

// assertGone checks that no live process is left in the group or with pid.
func assertGone(t *testing.T, pgid int, pids ...int) {
	t.Helper()
	// Killed processes may linger a moment as zombies until reaped, and
	// longer on a loaded machine; the wait ends as soon as they are gone.
	deadline := time.Now().Add(20 * time.Second)
	for {
		live, err := procgroup.LiveMember(pgid)
		if err != nil {
			t.Fatal(err)
		}
		var alive []int
		for _, pid := range pids {
			if processAlive(pid) {
				alive = append(alive, pid)
			}
		}
		if !live && len(alive) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: group %d has a live process: %v; of pids %v: %v", pgid, live, pids, alive)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(-%d, 0): %v", pgid, err)
	}
}

// processAlive reports a process that exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && !strings.HasPrefix(string(b[i+1:]), " Z") && !strings.HasPrefix(string(b[i+1:]), " X")
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	for _, tc := range []struct{ name, trap string }{
		{"dies on SIGTERM", ""},
		{"ignores SIGTERM", "trap '' TERM\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script := "#!/bin/sh\n" + tc.trap + "echo $$ > '" + dir + "/leader'\nsleep 300 &\necho $! > '" + dir + "/child'\nwhile :; do echo spam spam spam; done\n"
			r := loadOne(t, "name: spam\ndescription: d\nrun: tool.sh\ntimeout: 1s\n", script, Options{})
			// The tool prints forever: only the kill at its timeout ends
			// the call, SIGKILL after the grace when SIGTERM is ignored.
			// The bound is for a hang, far past any load's delay.
			start := time.Now()
			res := r.Call(context.Background(), "spam", "c", nil)
			if elapsed := time.Since(start); elapsed > time.Minute {
				t.Errorf("Call took %v: the group was not killed at the timeout", elapsed)
			}
			// The start of what it printed is shown, cut as it is more
			// than is quoted.
			if want := "timed out after 1s; the tool's process group was killed\nstdout:\nspam spam spam\n"; res.Kind != wire.KindTimeout || !res.IsError || !strings.HasPrefix(res.Content, want) || !strings.HasSuffix(res.Content, "\n…") {
				t.Errorf("result = %+v\nwant content starting %q and ending with …", res, want)
			}
			if !res.Truncated || res.Bytes <= DefaultMaxOutput {
				t.Errorf("truncated = %v, bytes = %d", res.Truncated, res.Bytes)
			}
			assertGone(t, readPid(t, dir+"/leader"), readPid(t, dir+"/child"))
		})
	}
}

func TestCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho $$ > '" + dir + "/leader'\nsleep 300\n"
	r := loadOne(t, "name: slow\ndescription: d\nrun: tool.sh\n", script, Options{})
	ctx, cancel := context.WithCancelCause(context.Background())
	// Cancel once the tool is running (it has written its pid): on a busy
	// machine 300 ms may pass before the shell gets that far.
	go func() {
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, err := os.ReadFile(dir + "/leader"); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
		cancel(errors.New("interrupted"))
	}()
	start := time.Now()
	res := r.Call(ctx, "slow", "c", nil)
	if time.Since(start) > 20*time.Second {
		t.Errorf("Call took %v after cancel", time.Since(start))
	}
	if res.Kind != wire.KindCanceled || res.Content != "canceled before the tool finished (interrupted); the tool's process group was killed" {
		t.Errorf("result = %+v", res)
	}
	assertGone(t, readPid(t, dir+"/leader"))

	// Canceled already: the tool does not start.
	marker := filepath.Join(dir, "ran")
	r = loadOne(t, "name: m\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\ntouch '"+marker+"'\n", Options{})
	res = r.Call(ctx, "m", "c", nil)
	if res.Kind != wire.KindCanceled || res.Content != "canceled before the tool started: interrupted" {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a canceled call ran the tool")
	}
}

// What a tool printed before it timed out or was canceled is in the result,
// as it is for a tool that exits with an error. The timeouts leave a loaded
// machine time to start the tool and let it print; the cancel comes once it
// has.
func TestStoppedToolShowsItsOutput(t *testing.T) {
	script := "#!/bin/sh\necho 'half an answer'\necho 'still working' >&2\nsleep 300\n"
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		r := loadOne(t, "name: slow\ndescription: d\nrun: tool.sh\ntimeout: 2s\n", script, Options{})
		res := r.Call(context.Background(), "slow", "c", nil)
		want := "timed out after 2s; the tool's process group was killed\nstderr:\nstill working\nstdout:\nhalf an answer"
		if res.Kind != wire.KindTimeout || res.Content != want || res.Truncated || res.Bytes != int64(len("half an answer\n")) {
			t.Errorf("result = %+v\nwant content %q", res, want)
		}
	})

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		printed := filepath.Join(t.TempDir(), "printed")
		script := strings.Replace(script, "sleep", "touch '"+printed+"'\nsleep", 1)
		r := loadOne(t, "name: slow\ndescription: d\nrun: tool.sh\n", script, Options{})
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			for _, err := os.Stat(printed); err != nil && ctx.Err() == nil; _, err = os.Stat(printed) {
				time.Sleep(10 * time.Millisecond)
			}
			cancel(errors.New("interrupted"))
		}()
		res := r.Call(ctx, "slow", "c", nil)
		want := "canceled before the tool finished (interrupted); the tool's process group was killed\nstderr:\nstill working\nstdout:\nhalf an answer"
		if res.Kind != wire.KindCanceled || res.Content != want {
			t.Errorf("result = %+v\nwant content %q", res, want)
		}
	})

	// Truncated says that stdout went past max_output; what is shown of it
	// says so too.
	t.Run("capped", func(t *testing.T) {
		t.Parallel()
		r := loadOne(t, "name: big\ndescription: d\nrun: tool.sh\ntimeout: 2s\nmax_output: 10\n", "#!/bin/sh\necho 0123456789abcdef\nsleep 300\n", Options{})
		res := r.Call(context.Background(), "big", "c", nil)
		want := "timed out after 2s; the tool's process group was killed\nstdout:\n0123456789\n…"
		if res.Content != want || !res.Truncated || res.Bytes != 17 {
			t.Errorf("result = %+v\nwant content %q", res, want)
		}
	})
}

// A tool that exits but leaves a child holding its stdout does not hold up
// the call, and the child does not outlive it.
func TestLeftoverChildIsKilled(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho $$ > '" + dir + "/leader'\nsleep 300 &\necho $! > '" + dir + "/child'\necho done\n"
	r := loadOne(t, "name: bg\ndescription: d\nrun: tool.sh\n", script, Options{})
	// Waiting for the child would take its 300 s; the bound is for that
	// hang, far past any load's delay.
	start := time.Now()
	res := mustCall(t, r, "bg", `{}`)
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("Call took %v: it waited for the child holding stdout", elapsed)
	}
	if res.Content != "done\n" {
		t.Errorf("content = %q", res.Content)
	}
	assertGone(t, readPid(t, dir+"/leader"), readPid(t, dir+"/child"))
}

func TestOutputCap(t *testing.T) {
	tests := []struct {
		name, script, max, want string
		bytes                   int64
	}{
		{
			name:   "cut with marker",
			script: "#!/bin/sh\nprintf 'abcdefghij%.0s' $(seq 100)\n",
			max:    "25",
			want:   "abcdefghijabcdefghijabcde\n[output truncated: 25 of 1000 bytes shown]",
			bytes:  1000,
		},
		{
			name:   "no half characters",
			script: "#!/bin/sh\nprintf 'abcd\\303\\251fgh'\n",
			max:    "5",
			want:   "abcd\n[output truncated: 4 of 9 bytes shown]",
			bytes:  9,
		},
		{
			name:   "exactly the cap",
			script: "#!/bin/sh\nprintf 12345\n",
			max:    "5",
			want:   "12345",
			bytes:  5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := loadOne(t, "name: o\ndescription: d\nrun: tool.sh\nmax_output: "+tt.max+"\n", tt.script, Options{})
			res := mustCall(t, r, "o", `{}`)
			if res.Content != tt.want || res.Bytes != tt.bytes || res.Truncated != (tt.bytes > 5 && tt.name != "exactly the cap") {
				t.Errorf("result = %+v\nwant content %q", res, tt.want)
			}
		})
	}
}

// A tool printing hundreds of megabytes costs the caller its cap, not its
// output.
func TestOutputMemoryBounded(t *testing.T) {
	const total = 300 << 20
	r := loadOne(t, "name: flood\ndescription: d\nrun: tool.sh\n", fmt.Sprintf("#!/bin/sh\nhead -c %d /dev/zero\n", total), Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := mustCall(t, r, "flood", `{}`)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 {
		t.Errorf("reading the output allocated %d MiB", alloc>>20)
	}
	if res.Bytes != total || !res.Truncated {
		t.Errorf("bytes = %d truncated = %v", res.Bytes, res.Truncated)
	}
	want := strings.Repeat("\u2400", DefaultMaxOutput) + fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", DefaultMaxOutput, total)
	if res.Content != want {
		t.Errorf("content has %d bytes, want %d", len(res.Content), len(want))
	}
}

func TestOutputMadeValidUTF8(t *testing.T) {
	r := loadOne(t, "name: u\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\nprintf 'caf\\303\\251 \\377\\376ok\\000end'\n", Options{})
	res := mustCall(t, r, "u", `{}`)
	if want := "café \uFFFDok\u2400end"; res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

// A tool may ignore or close its stdin, even with a payload larger than a
// pipe holds.
func TestStdinClosedEarly(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	for name, script := range map[string]string{
		"closes":         "#!/bin/sh\nexec 0<&-\necho ok\n",
		"ignores":        "#!/bin/sh\necho ok\n",
		"reads a little": "#!/bin/sh\nhead -c 10 >/dev/null\necho ok\n",
	} {
		t.Run(name, func(t *testing.T) {
			// A writer blocked on the closed pipe would hold the call until
			// its timeout, which ends it as a timeout error instead of "ok".
			r := loadOne(t, "name: s\ndescription: d\nparameters:\n  text: {type: string}\nrun: tool.sh\ntimeout: 20s\n", script, Options{})
			res := mustCall(t, r, "s", `{"text":"`+big+`"}`)
			if res.Content != "ok\n" || res.Kind != wire.KindOK {
				t.Errorf("content = %q, kind %q", res.Content, res.Kind)
			}
		})
	}
}

// A value too long for the environment is on stdin only; the call works.
func TestLongArgumentOnStdinOnly(t *testing.T) {
	big := strings.Repeat("y", 200<<10)
	r := loadOne(t, "name: s\ndescription: d\nparameters:\n  text: {type: string}\n  n: {type: integer}\nrun: tool.sh\n",
		"#!/bin/sh\necho \"${#ARG_TEXT} $ARG_N\"\nwc -c\n", Options{})
	res := mustCall(t, r, "s", `{"text":"`+big+`","n":7}`)
	if want := fmt.Sprintf("0 7\n%d\n", len(`{"n":7,"text":"`+big+`"}`)+1); res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

func TestDeletedScript(t *testing.T) {
	r := loadOne(t, "name: gone\ndescription: d\nrun: tool.sh\n", okScript, Options{})
	d, _ := r.Lookup("gone")
	if err := os.Remove(d.Run); err != nil {
		t.Fatal(err)
	}
	res := r.Call(context.Background(), "gone", "c", nil)
	want := "cannot start the tool: " + d.Run + " does not exist (was it removed after loading?)"
	if res.Kind != wire.KindStart || res.ExitCode != -1 || res.Content != want {
		t.Errorf("result = %+v\nwant %q", res, want)
	}
}

func TestUnknownTool(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"ok.sh":  okScript,
		"t.yaml": "tools:\n  - {name: calc, description: d, run: ok.sh}\n  - {name: get_weather, description: d, run: ok.sh}\n  - {name: now, description: d, run: ok.sh}\n",
	})
	r, err := Load([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"get_wether": `unknown tool "get_wether" (did you mean "get_weather"?) (available: calc, get_weather, now)`,
		"shell":      `unknown tool "shell" (available: calc, get_weather, now)`,
	} {
		res := r.Call(context.Background(), name, "c", []byte(`{}`))
		if res.Kind != wire.KindUnknownTool || res.Content != want || res.ExitCode != -1 {
			t.Errorf("result = %+v, want %q", res, want)
		}
	}
	if res := r.Without("calc", "get_weather", "now").Call(context.Background(), "calc", "c", nil); res.Content != `unknown tool "calc" (no tools are loaded)` {
		t.Errorf("content = %q", res.Content)
	}
}

func TestWorkingDirectory(t *testing.T) {
	work := t.TempDir()
	r := loadOne(t, "name: pwd\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\npwd -P\n", Options{Dir: work})
	want, _ := filepath.EvalSymlinks(work)
	if res := mustCall(t, r, "pwd", `{}`); res.Content != want+"\n" {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"bin/greet.sh": "#!/bin/sh\necho \"hello $ARG_WHO\"\n",
		"t.yaml": `tools:
  - name: argv
    description: d
    command: [printf, "%s|%s|%s\n", "$HOME", "a b", ";rm -rf /"]
  - name: greet
    description: d
    parameters:
      who: {type: string}
    command: [./bin/greet.sh]
`,
	})
	r, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if res := mustCall(t, r, "argv", `{}`); res.Content != "$HOME|a b|;rm -rf /\n" {
		t.Errorf("argv: content = %q", res.Content)
	}
	if res := mustCall(t, r, "greet", `{"who":"$(id)"}`); res.Content != "hello $(id)\n" {
		t.Errorf("greet: content = %q", res.Content)
	}
}

// With no PATH, a tool gets the default one, and a command: program is
// looked up on that one when loading too: it loads if it would run.
func TestCommandWithoutPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"t.yaml": "name: c\ndescription: d\ncommand: [sh, -c, 'echo \"$PATH\"']\n"})
	r, err := Load([]string{dir}, Options{Getenv: testEnv(map[string]string{"PATH": ""})})
	if err != nil {
		t.Fatal(err)
	}
	if res := mustCall(t, r, "c", `{}`); res.Content != defaultPath+"\n" {
		t.Errorf("content = %q, want the default PATH", res.Content)
	}
}

// A command: program is looked up on PATH at each call.
func TestCommandMissingAtCallTime(t *testing.T) {
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"mytool": "#!/bin/sh\necho mine\n"})
	os.Chmod(filepath.Join(bin, "mytool"), 0o755)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"t.yaml": "name: m\ndescription: d\ncommand: [mytool]\n"})
	r, err := Load([]string{dir}, Options{Getenv: testEnv(map[string]string{"PATH": bin})})
	if err != nil {
		t.Fatal(err)
	}
	if res := mustCall(t, r, "m", `{}`); res.Content != "mine\n" {
		t.Errorf("content = %q", res.Content)
	}
	os.Remove(filepath.Join(bin, "mytool"))
	res := r.Call(context.Background(), "m", "c", nil)
	if res.Kind != wire.KindStart || res.Content != `cannot start the tool: "mytool" not found on PATH` {
		t.Errorf("result = %+v", res)
	}
}

// No more than MaxProcs tool processes run at once.
func TestMaxProcs(t *testing.T) {
	slots := t.TempDir()
	script := "#!/bin/sh\ntouch '" + slots + "/'\"$AGENTLOOP_CALL_ID\"\nls '" + slots + "' | wc -l\nsleep 0.2\nrm '" + slots + "/'\"$AGENTLOOP_CALL_ID\"\n"
	r := loadOne(t, "name: slot\ndescription: d\nrun: tool.sh\n", script, Options{MaxProcs: 2})
	var wg sync.WaitGroup
	results := make([]Result, 6)
	for i := range results {
		wg.Go(func() { results[i] = r.Call(context.Background(), "slot", fmt.Sprint("call_", i), nil) })
	}
	wg.Wait()
	peak := 0
	for _, res := range results {
		if res.IsError {
			t.Fatalf("result = %+v", res)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(res.Content))
		peak = max(peak, n)
	}
	if peak > 2 || peak == 0 {
		t.Errorf("peak concurrency = %d, want 1 or 2", peak)
	}
}

func TestCallRecordsDuration(t *testing.T) {
	r := loadOne(t, "name: nap\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\nsleep 0.1\n", Options{})
	res := mustCall(t, r, "nap", `{}`)
	if res.Duration < 100*time.Millisecond || res.ExitCode != 0 || res.Kind != "" || res.Content != "" {
		t.Errorf("result = %+v", res)
	}
}

// A call waiting for a free process slot gives up when its context ends,
// not when the slot frees.
func TestCancelWhileWaitingForASlot(t *testing.T) {
	dir := t.TempDir()
	r := loadOne(t, "name: hold\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\ntouch '"+dir+"/started'\nsleep 30\ntouch '"+dir+"/finished'\n", Options{MaxProcs: 1})
	firstCtx, stopFirst := context.WithCancel(context.Background())
	var first sync.WaitGroup
	defer first.Wait()
	defer stopFirst()
	first.Go(func() { r.Call(firstCtx, "hold", "first", nil) })
	waitFor(t, dir+"/started")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res := r.Call(ctx, "hold", "second", nil)
	if res.Kind != wire.KindCanceled || !strings.HasPrefix(res.Content, "canceled before the tool started") {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(dir + "/finished"); err == nil {
		t.Error("the second call waited for the first to free its slot")
	}
}
