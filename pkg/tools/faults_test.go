package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// KillRunning ends every running tool's process group at once: what a
// second Ctrl-C does before the process exits.
func TestKillRunning(t *testing.T) {
	dir := t.TempDir()
	r := loadOne(t, "name: hang\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\ntrap '' TERM\ntouch \""+dir+"/$AGENTLOOP_CALL_ID\"\nsleep 30\n", Options{})
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i := range results {
		wg.Go(func() { results[i] = r.Call(context.Background(), "hang", []string{"a", "b"}[i], nil) })
	}
	waitFor(t, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	start := time.Now()
	if n := KillRunning(); n != 2 {
		t.Errorf("KillRunning() = %d, want 2", n)
	}
	wg.Wait()
	if time.Since(start) > 2*time.Second {
		t.Errorf("the calls took %v to end after KillRunning", time.Since(start))
	}
	for _, res := range results {
		if !res.IsError || !strings.Contains(res.Content, "killed by signal 9") {
			t.Errorf("result = %+v", res)
		}
	}
	if n := KillRunning(); n != 0 {
		t.Errorf("KillRunning() after the calls ended = %d", n)
	}
}

// waitFor waits until the files exist.
func waitFor(t *testing.T, paths ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range paths {
		for {
			if _, err := os.Stat(p); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never appeared", p)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
