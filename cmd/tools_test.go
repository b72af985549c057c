package cmd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/pkg/iostreams"
)

// Flag parsing stops at runF: these check what reaches the options.

func TestNewCmdToolsListFlags(t *testing.T) {
	tests := []struct {
		args    []string
		dirs    []string
		setting string
		json    bool
	}{
		{nil, nil, "", false},
		{[]string{"--json"}, nil, "", true},
		{[]string{"--tools-dir", "a", "--tools-dir=b"}, []string{"a", "b"}, "--tools-dir", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ToolsListOptions
			c := newCmdToolsList(ios, func(o *ToolsListOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.ToolsDirs, tt.dirs) || got.ToolsSetting != tt.setting || got.JSON != tt.json {
				t.Errorf("options = %+v", got)
			}
		})
	}
}

func TestNewCmdToolsCallArgs(t *testing.T) {
	tests := []struct {
		args        []string
		name, json  string
		callID      string
		wantFlagErr bool
	}{
		{args: []string{"calc"}, name: "calc", json: "{}", callID: "call_cli"},
		{args: []string{"calc", `{"expression":"1"}`, "--call-id", "c9"}, name: "calc", json: `{"expression":"1"}`, callID: "c9"},
		{args: []string{"calc", "-"}, name: "calc", json: "-", callID: "call_cli"},
		{args: []string{}, wantFlagErr: true},
		{args: []string{"a", "b", "c"}, wantFlagErr: true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ToolsCallOptions
			c := newCmdToolsCall(ios, func(o *ToolsCallOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			c.SetErr(&strings.Builder{})
			err := c.Execute()
			if tt.wantFlagErr {
				if _, ok := err.(*FlagError); !ok {
					t.Fatalf("err = %v, want a FlagError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.name || got.Args != tt.json || got.CallID != tt.callID {
				t.Errorf("options = %+v", got)
			}
		})
	}
}

func TestNewCmdToolsShowProvider(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	c := newCmdToolsShow(ios, func(o *ToolsShowOptions) error { return nil })
	c.SetArgs([]string{"calc", "--provider", "gemini"})
	c.SilenceErrors, c.SilenceUsage = true, true
	if _, ok := c.Execute().(*FlagError); !ok {
		t.Error("an unknown provider is not a usage error")
	}
}

// Behaviour: the run functions against a tools folder and fake streams.

func writeToolsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"echo.yaml": "name: echo\ndescription: |\n  Print the arguments.\n  Second line.\nparameters:\n  text: {type: string}\nrun: echo.sh\n",
		"echo.sh":   "#!/bin/sh\nprintf '%s' \"$ARG_TEXT\"\n",
		"fail.yaml": "name: fail\ndescription: Fail with a message that is long enough to be cut on a narrow terminal.\nrun: fail.sh\n",
		"fail.sh":   "#!/bin/sh\necho broken >&2\nexit 4\n",
	}
	writeFiles(t, dir, files)
	return dir
}

func testIO(env map[string]string) (*iostreams.IOStreams, *strings.Builder, *strings.Builder) {
	ios, _, _, _ := iostreams.Test()
	out, errOut := &strings.Builder{}, &strings.Builder{}
	ios.Out, ios.ErrOut = out, errOut
	ios.SetEnv(func(k string) string {
		if k == "PATH" {
			return os.Getenv("PATH")
		}
		return env[k]
	})
	return ios, out, errOut
}

func TestRunToolsList(t *testing.T) {
	full := writeToolsDir(t)
	t.Chdir(filepath.Dir(full))
	dir := filepath.Base(full) // short paths in the file column
	if dir != "001" {
		t.Fatalf("the tools folder is %s", dir)
	}
	ios, out, _ := testIO(nil)
	if err := runToolsList(context.Background(), &ToolsListOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}}); err != nil {
		t.Fatal(err)
	}
	want := "echo  001/echo.yaml:1  Print the arguments.\nfail  001/fail.yaml:1  Fail with a message that is long enough to be cut on a narrow terminal.\n"
	if out.String() != want {
		t.Errorf("piped:\n%s\nwant:\n%s", out, want)
	}

	// On a terminal the format changes to fit; the data does not.
	ios, out, _ = testIO(nil)
	ios.SetTTY(false, true, true)
	ios.SetWidth(60)
	if err := runToolsList(context.Background(), &ToolsListOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}}); err != nil {
		t.Fatal(err)
	}
	if want := "echo  001/echo.yaml:1  Print the arguments.\nfail  001/fail.yaml:1  Fail with a message that is long eno…\n"; out.String() != want {
		t.Errorf("terminal:\n%q\nwant:\n%q", out, want)
	}
}

func TestRunToolsListDefaultDirs(t *testing.T) {
	cfg := t.TempDir()
	tools := writeToolsDir(t)
	if err := os.MkdirAll(filepath.Join(cfg, "agentloop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tools, filepath.Join(cfg, "agentloop", "tools.d")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // no ./tools.d here
	ios, out, errOut := testIO(map[string]string{"XDG_CONFIG_HOME": cfg})
	if err := runToolsList(context.Background(), &ToolsListOptions{IO: ios}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "echo ") || errOut.Len() != 0 {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
	if got, _ := toolsDirs(ios, toolsSource{}, true); len(got) != 1 || got[0] != filepath.Join(cfg, "agentloop", "tools.d") {
		t.Errorf("toolsDirs = %q", got)
	}
}

func TestRunToolsCall(t *testing.T) {
	dir := writeToolsDir(t)
	ctx := context.Background()

	ios, out, _ := testIO(nil)
	err := runToolsCall(ctx, &ToolsCallOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}, Name: "echo", Args: `{"text":"hi"}`, CallID: "c"})
	if err != nil || out.String() != "hi" {
		t.Errorf("piped: err %v, stdout %q", err, out)
	}
	// A terminal gets a final newline; a pipe gets the bytes as they are.
	ios, out, _ = testIO(nil)
	ios.SetTTY(false, true, true)
	_ = runToolsCall(ctx, &ToolsCallOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}, Name: "echo", Args: `{"text":"hi"}`, CallID: "c"})
	if out.String() != "hi\n" {
		t.Errorf("terminal: stdout %q", out)
	}

	ios, _, _ = testIO(nil)
	ios.In = strings.NewReader(`{"text":"from stdin"}`)
	out = &strings.Builder{}
	ios.Out = out
	if err := runToolsCall(ctx, &ToolsCallOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}, Name: "echo", Args: "-", CallID: "c"}); err != nil || out.String() != "from stdin" {
		t.Errorf("stdin: err %v, stdout %q", err, out)
	}

	ios, out, _ = testIO(nil)
	err = runToolsCall(ctx, &ToolsCallOptions{IO: ios, ToolSourceOptions: ToolSourceOptions{ToolsDirs: []string{dir}, ToolsSetting: "--tools-dir"}, Name: "fail", Args: "{}", CallID: "c"})
	if code, msg := exitCode(err); code != ExitFailure || msg != "fail: tool exited with code 4\nstderr:\nbroken" || out.Len() != 0 {
		t.Errorf("failure: exit %d, message %q, stdout %q", code, msg, out)
	}
}

func TestLoadToolsErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("name: a\n"), 0o644)
	ios, _, errOut := testIO(nil)
	_, err := loadTools(ios, toolsSource{[]string{dir}, "--tools-dir"})
	code, msg := exitCode(err)
	if code != ExitFailure || msg != "2 problems in the tool definitions" {
		t.Errorf("exit %d, message %q", code, msg)
	}
	want := filepath.Join(dir, "a.yaml") + ":1: missing 'description': say what the tool does and when the model should use it\n" +
		filepath.Join(dir, "a.yaml") + ":1: missing 'run:' (a script path relative to this file) or 'command:' (an argv list)\n"
	if errOut.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}

	_, err = loadTools(ios, toolsSource{[]string{filepath.Join(dir, "nope")}, "--tools-dir"})
	if err == nil || err.Error() != "--tools-dir "+filepath.Join(dir, "nope")+": no such file or folder" {
		t.Errorf("missing dir: %v", err)
	}
}

// writeFiles writes files into dir; *.sh files are made executable.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
}
