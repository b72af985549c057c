package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/procgroup"
)

// procgroup.KillAll ends every running tool's process group at once: what a
// second Ctrl-C does before the process exits.
func TestKillAll(t *testing.T) {
	dir := t.TempDir()
	r := loadOne(t, "name: hang\ndescription: d\nrun: tool.sh\n", "#!/bin/sh\ntrap '' TERM\ntouch \""+dir+"/$AGENTLOOP_CALL_ID\"\nsleep 30\n", Options{})
	var wg sync.WaitGroup
	results := make([]Result, 2)
	for i := range results {
		wg.Go(func() { results[i] = r.Call(context.Background(), "hang", []string{"a", "b"}[i], nil) })
	}
	waitFor(t, filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	start := time.Now()
	if n := procgroup.KillAll(); n != 2 {
		t.Errorf("procgroup.KillAll() = %d, want 2", n)
	}
	wg.Wait()
	if time.Since(start) > 20*time.Second {
		t.Errorf("the calls took %v to end after procgroup.KillAll", time.Since(start))
	}
	for _, res := range results {
		if !res.IsError || !strings.Contains(res.Content, "killed by signal 9") {
			t.Errorf("result = %+v", res)
		}
	}
	if n := procgroup.KillAll(); n != 0 {
		t.Errorf("procgroup.KillAll() after the calls ended = %d", n)
	}
}

// waitFor waits until the files exist.
func waitFor(t *testing.T, paths ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a loaded machine's delay; over once they are there
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

// Tool files that are not text, are nested without end, expand without
// end, or loop: each is refused naming the file, and the line of what the
// YAML decoder refuses; none hangs, panics or recurses without bound. A
// byte order mark and CRLF line ends are fine. (TestLoadErrors covers the
// content of well-formed YAML.)
func TestLoadMalformedFiles(t *testing.T) {
	deep := func(open, close string) string {
		return strings.Repeat(open, 100000) + "1" + strings.Repeat(close, 100000)
	}
	tests := []struct{ name, yaml, want string }{
		{"byte order mark", "\xef\xbb\xbfname: x\ndescription: d\nrun: ok.sh\n", ""},
		{"CRLF line ends", "name: x\r\ndescription: d\r\nrun: ok.sh\r\n", ""},
		{"a NUL byte", "name: x\x00\ndescription: d\nrun: ok.sh\n", "t.yaml:1: invalid YAML: control characters are not allowed"},
		{"not UTF-8", "name: x\ndescription: caf\xe9\nrun: ok.sh\n", "t.yaml:2: invalid YAML: invalid trailing UTF-8 octet"},
		{"binary", "\x89PNG\r\n\x1a\n\x00\x00", "t.yaml:1: invalid YAML: invalid leading UTF-8 octet"},
		{"sequences nested 100,000 deep", "name: x\ndescription: d\nrun: ok.sh\nparameters:\n  a: {type: array, default: " + deep("[", "]") + "}\n",
			"t.yaml:5: invalid YAML: exceeded max depth of 10000"},
		{"mappings nested 100,000 deep", "name: x\ndescription: d\nrun: ok.sh\nparameters:\n  a: " + deep("{a: ", "}") + "\n",
			"t.yaml:5: invalid YAML: exceeded max depth of 10000"},
		{"an alias bomb", "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n",
			"t.yaml:2: YAML aliases (*a) are not supported in tool definitions; write the value out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"t.yaml": tt.yaml, "ok.sh": okScript})
			_, err := Load([]string{dir}, Options{Getenv: testEnv(nil)})
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			}
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
	t.Run("a symlink loop", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink("loop.yaml", filepath.Join(dir, "loop.yaml")); err != nil {
			t.Skip(err)
		}
		_, err := Load([]string{dir}, Options{})
		if want := filepath.Join(dir, "loop.yaml") + ": cannot read: too many levels of symbolic links"; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
}
