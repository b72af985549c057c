package batch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func result(id, reason string, code int) Result {
	return Result{ID: id, Reason: reason, ExitCode: code, Attempts: 1, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func TestResultsFileAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsName)
	f, got, torn, err := OpenResults(path)
	if err != nil || len(got) != 0 || torn != nil {
		t.Fatalf("new file: %v %v %v", got, torn, err)
	}
	for _, r := range []Result{result("a", "stop", 0), result("b", "error", 4), result("b", "stop", 0)} {
		if err := f.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Errorf("%d lines:\n%s", n, data)
	}
	got, torn, err = ReadResults(path)
	if err != nil || torn != nil || len(got) != 3 {
		t.Fatalf("%v %v %v", got, torn, err)
	}
	if l := Latest(got); len(l) != 2 || l["b"].Reason != "stop" {
		t.Errorf("latest: %+v", l)
	}
}

// TestResultsFileTornLine: a kill in the middle of a line's write leaves
// it cut short; the next open cuts it off, and appends go after the last
// whole line.
func TestResultsFileTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsName)
	whole, _ := json.Marshal(result("a", "stop", 0))
	cut, _ := json.Marshal(result("b", "stop", 0))
	if err := os.WriteFile(path, append(append(whole, '\n'), cut[:len(cut)/2]...), 0o600); err != nil {
		t.Fatal(err)
	}
	// Read-only readers leave the line out and say so.
	got, torn, err := ReadResults(path)
	if err != nil || len(got) != 1 || torn == nil || torn.Line != 2 {
		t.Fatalf("read: %v %+v %v", got, torn, err)
	}
	f, got, torn, err := OpenResults(path)
	if err != nil || len(got) != 1 || torn == nil || torn.Line != 2 || torn.Bytes != len(cut)/2 {
		t.Fatalf("open: %v %+v %v", got, torn, err)
	}
	if err := f.Append(result("c", "stop", 0)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, torn, err = ReadResults(path)
	if err != nil || torn != nil || len(got) != 2 || got[1].ID != "c" {
		t.Errorf("after the append: %v %+v %v", got, torn, err)
	}
}

func TestResultsFileBadLine(t *testing.T) {
	for name, line := range map[string]string{
		"not JSON":      "hello\n",
		"not a result":  `{"name": "x"}` + "\n",
		"no reason":     `{"id": "x"}` + "\n",
		"wrong type":    `{"id": 1, "reason": "stop"}` + "\n",
		"unknown field": `{"id": "x", "reason": "stop", "extra": 1}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ResultsName)
			good, _ := json.Marshal(result("a", "stop", 0))
			os.WriteFile(path, append(append(good, '\n'), line...), 0o600)
			_, _, _, err := OpenResults(path)
			if err == nil || !strings.Contains(err.Error(), ResultsName+":2: not a result line") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// TestResultsFileWriteFails: a results file that cannot be written (the
// disk full) fails the append, and every later one.
func TestResultsFileWriteFails(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	rf := &ResultsFile{f: f, path: "/dev/full"}
	err = rf.Append(result("a", "stop", 0))
	if err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Fatalf("append to a full disk: %v", err)
	}
	if err2 := rf.Append(result("b", "stop", 0)); err2 == nil {
		t.Error("an append after a failed one succeeded")
	}
	rf.Close()
}

func TestResultClass(t *testing.T) {
	tests := []struct {
		r     Result
		class Class
		retry bool
	}{
		{result("a", "stop", 0), Answered, false},
		{result("a", "stop", 1), Failed, false}, // an answer, then a transcript that could not be closed
		{result("a", "max_steps", 3), Budget, false},
		{result("a", "budget", 3), Budget, false},
		{result("a", "context", 3), Budget, false},
		{result("a", "max_tokens", 1), Failed, false},
		{result("a", "refusal", 1), Failed, false},
		{result("a", "error", 4), Failed, true},
		{result("a", "error", 1), Failed, true},
	}
	for _, tt := range tests {
		if got := tt.r.Class(); got != tt.class || tt.r.Retryable() != tt.retry {
			t.Errorf("%s exit %d: class %v retry %v", tt.r.Reason, tt.r.ExitCode, got, tt.r.Retryable())
		}
	}
}

// TestResultsFileConcurrentAppends: appends from many goroutines (the
// items of a batch, finishing together) each land as one whole line.
func TestResultsFileConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), ResultsName)
	f, _, _, err := OpenResults(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := result(fmt.Sprintf("item-%d", i), "stop", 0)
			r.Answer = strings.Repeat("x", 5000) // longer than a pipe's atomic write
			if err := f.Append(r); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f.Close()
	got, torn, err := ReadResults(path)
	if err != nil || torn != nil || len(Latest(got)) != 64 {
		t.Fatalf("%d results, %d ids, torn %v, %v", len(got), len(Latest(got)), torn, err)
	}
}
