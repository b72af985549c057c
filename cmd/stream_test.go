package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// lockedBuffer is one terminal that both stdout and stderr write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// screen renders what a terminal shows for output written with \r and
// "erase to end of line" escapes: the lines as they end up.
func screen(out string) []string {
	var lines []string
	var cur []rune
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur = cur[:col]
			i += 3
		case out[i] == '\r':
			col = 0
			i++
		case out[i] == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
			i++
		default:
			r := []rune(out[i:])[0]
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
			i += len(string(r))
		}
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}

// On a terminal the answer streams by default, and the status line on
// stderr never shares a line with the text on stdout.
func TestRunStreamsOnATerminalWithoutMixingLines(t *testing.T) {
	text := func(s string) *string { return &s }
	srv := fakeapi.NewOpenAI([]fakeapi.Step{
		{Text: text("Let me check both cities."), ToolCalls: []fakeapi.ToolCall{
			{ID: "call_1", Name: "slow_weather", Arguments: `{"city":"Paris"}`},
			{ID: "call_2", Name: "slow_weather", Arguments: `{"city":"Dublin"}`}}},
		{Text: text("Paris is warmer today.")},
	}, "")
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "w.sh"), []byte("#!/bin/sh\nsleep 0.5\necho \"$ARG_CITY: mild\"\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "w.yaml"), []byte("name: slow_weather\ndescription: Weather, slowly.\nparameters:\n  city: {type: string}\nrun: w.sh\n"), 0o644)

	ios, _, _, _ := iostreams.Test()
	term := &lockedBuffer{}
	ios.Out, ios.ErrOut = term, term
	ios.SetTTY(false, true, true)
	ios.SetEnv(func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return ""
	})
	opts := &RunOptions{IO: ios, Prompt: []string{"warmer?"}, liveOptions: liveOptions{ToolsDirs: []string{dir}, toolsDirsSet: true, toolsSetting: "--tools-dir",
		MaxSteps: 10, Parallel: 8, NoTranscript: true, Model: modelOptions{BaseURL: srv.BaseURL()}}}
	if err := runRun(context.Background(), opts); err != nil {
		t.Fatalf("%v\n%s", err, term.b.String())
	}
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	raw := term.b.String()
	if !strings.Contains(raw, "running slow_weather") {
		t.Errorf("no status line was shown:\n%q", raw)
	}
	lines := screen(raw)
	// The run's closing line comes last, on stderr, on a line of its own.
	if n := len(lines); n == 0 || !strings.HasPrefix(lines[n-1], "2 steps · input ") {
		t.Errorf("no closing line: %q", lines)
	} else {
		lines = lines[:n-1]
	}
	want := []string{"Let me check both cities.", "", "Paris is warmer today."}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the terminal shows:\n%s\nwant:\n%s\n(raw %q)", strings.Join(lines, "\n"), strings.Join(want, "\n"), raw)
	}
	if strings.Count(raw, "Paris is warmer today.") != 1 {
		t.Errorf("the answer was printed %d times", strings.Count(raw, "Paris is warmer today."))
	}
}

// A streamed turn that ends the run with calls it will not run (cut off by
// the token limit) is the answer: printed once, not again at the end.
func TestStreamedCutOffAnswerPrintedOnce(t *testing.T) {
	text := func(s string) *string { return &s }
	srv := fakeapi.NewOpenAI([]fakeapi.Step{
		{Text: text("Partial answer here."), Finish: "length",
			ToolCalls: []fakeapi.ToolCall{{ID: "call_1", Name: "nope", Arguments: `{}`}}},
	}, "")
	defer srv.Close()
	ios, _, out, errOut := iostreams.Test()
	opts := &RunOptions{IO: ios, Prompt: []string{"q"}, liveOptions: liveOptions{ToolsDirs: []string{t.TempDir()}, toolsDirsSet: true, toolsSetting: "--tools-dir",
		MaxSteps: 10, Parallel: 8, NoTranscript: true, Stream: true, Model: modelOptions{BaseURL: srv.BaseURL()}}}
	err := runRun(context.Background(), opts)
	if err == nil || !strings.Contains(err.Error(), "cut off by the output token limit") {
		t.Fatalf("err = %v\n%s", err, errOut)
	}
	if got := out.String(); got != "Partial answer here.\n" {
		t.Errorf("stdout %q, want the streamed answer once", got)
	}
}
