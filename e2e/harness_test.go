package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// The tests in this file's package that start agentloop as a process find
// it on PATH: testscript.Main (main_test.go) puts a copy of the test binary
// there under that name before any test runs.

// proc is a finished agentloop process.
type proc struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// agentloopCmd prepares an agentloop process in dir with a clean
// environment: no keys, no user config, state under dir, plus env.
func agentloopCmd(t *testing.T, ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.CommandContext(ctx, "agentloop", args...)
	c.Dir = dir
	c.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(dir, ".state"),
		"NO_COLOR=1",
	}, env...)
	return c
}

// runAgentloop runs agentloop to its end (30s at most) and returns what it did.
func runAgentloop(t *testing.T, dir string, env []string, stdin io.Reader, args ...string) proc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := agentloopCmd(t, ctx, dir, env, args...)
	var out, errOut bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = stdin, &out, &errOut
	start := time.Now()
	err := c.Run()
	p := proc{stdout: out.String(), stderr: errOut.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		p.code = ee.ExitCode()
	default:
		t.Fatalf("agentloop %s: %v", strings.Join(args, " "), err)
	}
	if ctx.Err() != nil {
		t.Fatalf("agentloop %s did not end within 30s\nstderr: %s", strings.Join(args, " "), p.stderr)
	}
	return p
}

// checkTranscript asserts that the file at path is a transcript whose every
// complete line is a record, that validates (pending calls allowed when
// pending is set), and returns its records.
func checkTranscript(t *testing.T, path string, pending bool) []*transcript.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("transcript: %v", err)
	}
	r := transcript.NewReader(bytes.NewReader(data))
	var recs []*transcript.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		recs = append(recs, rec)
	}
	var findings []string
	_, err = transcript.Validate(path, bytes.NewReader(data), transcript.Options{AllowPending: pending}, func(f transcript.Finding) {
		if f.Severity == transcript.Error {
			findings = append(findings, f.String())
		}
	})
	if err != nil || len(findings) > 0 {
		t.Fatalf("%s does not validate: %v %s\n%s", path, err, strings.Join(findings, "\n"), data)
	}
	if len(recs) == 0 || recs[0].Header == nil {
		t.Fatalf("%s: no header first\n%s", path, data)
	}
	return recs
}

// endOf is the transcript's end record, failing the test when there is none.
func endOf(t *testing.T, recs []*transcript.Record) *transcript.End {
	t.Helper()
	if last := recs[len(recs)-1]; last.End != nil {
		return last.End
	}
	t.Fatalf("the transcript has no end record")
	return nil
}

// oneLine asserts that stderr is exactly one line and returns it.
func oneLine(t *testing.T, stderr string) string {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
		t.Fatalf("stderr is not one line:\n%s", stderr)
	}
	return strings.TrimSuffix(stderr, "\n")
}
