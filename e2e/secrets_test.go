package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/fakeapi"
)

// Planted secrets, seven kinds. The OpenAI key has a known key's shape;
// the Anthropic one does not, so only its exact value can find it. The
// rest are what a tool or a model might print: a GitHub token, an AWS key
// id, a Bearer header, the password of a URL and the signature of a
// signed URL's query.
const (
	plantedOpenAI    = "sk-proj-PLANTEDopenai0123456789abcdefXYZ"
	plantedAnthropic = "PLANTED-anthropic-exact-value-42"
	plantedGitHub    = "ghp_PLANTED0123456789abcdefghijklmnopqrstu"
	plantedAWS       = "AKIAPLNTD0123456789A"
	plantedBearer    = "PLANTEDbearer0123456789abcdef"
	plantedURLPass   = "PLANTEDurlpassword"
	plantedSignature = "PLANTEDsignature0123456789abcdef"
)

var planted = []string{plantedOpenAI, plantedAnthropic, plantedGitHub, plantedAWS, plantedBearer, plantedURLPass, plantedSignature}

// signedURL is a presigned download link, as S3 gives one.
const signedURL = "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=" + plantedSignature

const leakTool = `name: leak
description: Prints credentials, and the environment it was given.
parameters:
  note: {type: string}
run: leak.sh
`

// The tool prints credential-shaped strings, and every variable it was
// given: the API keys must not be among them.
const leakScript = `#!/bin/sh
echo "token ` + plantedGitHub + `"
echo "aws ` + plantedAWS + `"
echo "Authorization: Bearer ` + plantedBearer + `"
echo "download: ` + signedURL + `"
env
`

// TestSecretsNeverWritten plants API keys in the environment, credentials
// in a tool's output, a key in the prompt and in the model's text and call
// arguments, a key in a provider's error message and a password in
// --base-url, runs agentloop with -v, --json and the default transcript
// path, and finds none of them in any file the runs wrote, nor on stdout
// or stderr. The tool never sees the keys.
func TestSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	toolsDir := t.TempDir() // outside dir: the script holds the planted values
	for name, content := range map[string]string{"leak.yaml": leakTool, "leak.sh": leakScript} {
		if err := os.WriteFile(filepath.Join(toolsDir, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"OPENAI_API_KEY=" + plantedOpenAI, "ANTHROPIC_API_KEY=" + plantedAnthropic}
	var outputs []string

	// A run with -v: the model says a key, passes one to a tool, the tool
	// prints credentials. The request after the tool shows the tool saw
	// neither API key.
	srv := fakeapi.NewOpenAI([]fakeapi.Step{
		{Text: strp("I will use " + plantedAnthropic + " and " + plantedOpenAI + " to fetch " + signedURL + "."),
			ToolCalls: []fakeapi.ToolCall{{ID: "c1", Name: "leak", Arguments: `{"note":"` + plantedOpenAI + `"}`}}},
		{Text: strp("done"), Expect: &fakeapi.Expect{Results: map[string]string{"c1": "PATH="}, Absent: []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY"}}},
	}, plantedOpenAI)
	defer srv.Close()
	p := runAgentloop(t, dir, env, nil, "run", "-v", "--base-url", srv.BaseURL(), "--tools-dir", toolsDir, "-o", "t.jsonl",
		"my key is "+plantedOpenAI+" and "+plantedAnthropic)
	if p.code != 0 || p.stdout != "done\n" {
		t.Fatalf("run -v: exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}
	if err := srv.Check(); err != nil {
		t.Error(err)
	}
	// Every kind was there to leak: the tool printed each credential it
	// holds (the model is sent a tool's output as it is).
	if reqs := srv.Requests(); len(reqs) == 2 {
		for _, s := range []string{plantedGitHub, plantedAWS, plantedBearer, plantedSignature} {
			if !strings.Contains(string(reqs[1].Body), s) {
				t.Errorf("the tool's output did not hold %s: the test plants nothing", s)
			}
		}
	}
	if !strings.Contains(p.stderr, "  ← c1 leak: ok") || !strings.Contains(p.stderr, "[REDACTED]") {
		t.Errorf("the -v trace does not show the call, redacted:\n%s", p.stderr)
	}
	outputs = append(outputs, p.stdout, p.stderr)
	checkTranscript(t, filepath.Join(dir, "t.jsonl"), false)

	// A provider error that echoes the key, with --json and without.
	for _, args := range [][]string{{"-o", "err.jsonl"}, {"--json", "-o", "err-json.jsonl"}} {
		srv := fakeapi.NewOpenAI([]fakeapi.Step{{Status: 400, Error: "Incorrect API key provided: " + plantedOpenAI + " (also tried " + plantedAnthropic + ")"}}, "")
		p := runAgentloop(t, dir, env, nil, append([]string{"run", "--base-url", srv.BaseURL(), "--tools-dir", toolsDir, "--max-retries", "0"}, append(args, "hi")...)...)
		srv.Close()
		if p.code != 4 || !strings.Contains(p.stderr+p.stdout, "400 Bad Request: Incorrect API key provided: [REDACTED] (also tried [REDACTED])") {
			t.Errorf("error run %v: exit %d\n%s%s", args, p.code, p.stdout, p.stderr)
		}
		outputs = append(outputs, p.stdout, p.stderr)
	}

	// A password in --base-url, and the default transcript path.
	srv2 := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("ok")}}, "")
	defer srv2.Close()
	withPass := strings.Replace(srv2.BaseURL(), "http://", "http://user:"+plantedURLPass+"@", 1)
	p = runAgentloop(t, dir, env, nil, "run", "-v", "--base-url", withPass, "--tools-dir", toolsDir, "hi")
	if p.code != 0 {
		t.Fatalf("run with a password in --base-url: exit %d\n%s", p.code, p.stderr)
	}
	if auth := srv2.Requests()[0].Header.Get("Authorization"); auth != "Bearer "+plantedOpenAI {
		t.Errorf("the request's Authorization is %q: the key should go to the server, and only there", auth)
	}
	outputs = append(outputs, p.stdout, p.stderr)
	checkPrivate(t, dir)

	// Resuming that transcript needs the address again: its password was not kept.
	var defaultPath string
	filepath.WalkDir(filepath.Join(dir, ".state"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			defaultPath = path
		}
		return nil
	})
	// Of the run stopped after its prompt: the finished one has nothing to
	// resume, which it says before it looks at the address.
	recorded, err := os.ReadFile(defaultPath)
	if err != nil {
		t.Fatal(err)
	}
	stopped := filepath.Join(t.TempDir(), "stopped.jsonl")
	if err := os.WriteFile(stopped, []byte(strings.Join(strings.SplitAfter(string(recorded), "\n")[:2], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	p = runAgentloop(t, dir, env, nil, "replay", "--resume", "--no-transcript", stopped)
	if p.code != 2 || !strings.Contains(p.stderr, "whose credentials a transcript does not keep; give the address again with --base-url") {
		t.Errorf("resume: exit %d\n%s", p.code, p.stderr)
	}
	outputs = append(outputs, p.stdout, p.stderr)

	// A batch whose item's answer repeats the keys and a token: its
	// results file holds them no more than the item's transcript does.
	srv3 := fakeapi.NewOpenAI([]fakeapi.Step{{Text: strp("keys " + plantedOpenAI + " " + plantedAnthropic + " " + plantedGitHub)}}, plantedOpenAI)
	defer srv3.Close()
	if err := os.WriteFile(filepath.Join(dir, "in.jsonl"), []byte(`{"id":"a","prompt":"say them"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p = runAgentloop(t, dir, env, nil, "batch", "in.jsonl", "-d", "out", "--base-url", srv3.BaseURL(), "--tools-dir", toolsDir)
	if p.code != 0 {
		t.Fatalf("batch: exit %d\n%s", p.code, p.stderr)
	}
	outputs = append(outputs, p.stdout, p.stderr)
	os.Remove(filepath.Join(dir, "in.jsonl"))
	os.Remove(filepath.Join(dir, "out", ".lock"))

	// What reads the runs back: the transcript shown and drawn as a page,
	// the history, the settings (with both keys in the environment).
	for _, args := range [][]string{
		{"replay", "--show", "t.jsonl"},
		{"replay", "--html", "t.html", "t.jsonl"},
		{"log", "show", "--html", "-", "last"},
		{"log", "--json"},
		{"config", "show"},
		{"config", "show", "--json"},
	} {
		p := runAgentloop(t, dir, env, nil, args...)
		if p.code != 0 {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), p.code, p.stderr)
		}
		outputs = append(outputs, p.stdout, p.stderr)
	}

	// Nothing the runs wrote holds a planted secret.
	files := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range planted {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %s:\n%s", path, s, b)
			}
		}
		if strings.HasSuffix(path, ".html") {
			return nil
		}
		if !json.Valid([]byte(strings.SplitN(string(b), "\n", 2)[0])) {
			t.Errorf("%s: the first line is not JSON after redaction", path)
		}
		return nil
	})
	if files != 8 {
		t.Errorf("%d files written, want 5 transcripts, a batch's results, the history's index of the runs written with -o and a page", files)
	}
	for _, out := range outputs {
		for _, s := range planted {
			if strings.Contains(out, s) {
				t.Errorf("stdout or stderr holds %s:\n%s", s, out)
			}
		}
	}
}

// checkPrivate asserts that every transcript under dir is 0600 and every
// directory agentloop made for them (the default state path) 0700.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	state := filepath.Join(dir, ".state")
	seen := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		switch {
		case d.IsDir() && strings.HasPrefix(path, state):
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("%s: mode %v, want 0700", path, fi.Mode().Perm())
			}
		case !d.IsDir():
			seen++
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", path, fi.Mode().Perm())
			}
		}
		return nil
	})
	want := filepath.Join(state, "agentloop", "transcripts")
	if _, err := os.Stat(want); err != nil || seen == 0 {
		t.Errorf("no transcript under the default path %s: %v", want, err)
	}
}
