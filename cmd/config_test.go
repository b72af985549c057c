package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// configEnv is a test's environment: a home, a config folder holding the
// given config.yaml (none when file is ""), and the variables given.
type configEnv struct {
	home, cfgDir, path string
	vars               map[string]string
}

func newConfigEnv(t *testing.T, file string, vars ...string) *configEnv {
	t.Helper()
	home := t.TempDir()
	e := &configEnv{home: home, cfgDir: filepath.Join(home, "cfg"), vars: map[string]string{"HOME": home}}
	e.vars["XDG_CONFIG_HOME"] = e.cfgDir
	e.vars["XDG_STATE_HOME"] = filepath.Join(home, "state")
	e.path = filepath.Join(e.cfgDir, "agentloop", "config.yaml")
	if file != "" {
		if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.path, []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(vars); i += 2 {
		e.vars[vars[i]] = vars[i+1]
	}
	return e
}

func (e *configEnv) ios() *iostreams.IOStreams {
	ios, _, _, _ := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	return ios
}

// showConfig runs config show's flag parsing with args (and --profile, as
// the root command has it) and returns the resolved configuration.
func showConfig(t *testing.T, e *configEnv, args ...string) (*config.Config, error) {
	t.Helper()
	var got *config.Config
	c := newCmdConfigShow(e.ios(), func(o *ConfigShowOptions) error { got = o.Config; return nil })
	c.PersistentFlags().String("profile", "", "")
	c.SetArgs(args)
	c.SetOut(&strings.Builder{})
	c.SetErr(&strings.Builder{})
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	return got, err
}

const precedenceFile = `model: file-model
provider: openai
base_url: http://file.example/v1
tools_dirs: [file-tools, ~/tools]
max_steps: 11
parallel: 3
transcript_dir: ~/transcripts
max_retries: 4
timeout: 1m
idle_timeout: 5m
system: from the file
models: [a, b]
max_total_tokens: 1000
max_cost: 1.5
context_limit: 8000
context_keep: 4
context_keep_tools: [plan]
context_clear_at_least: 500
context_editing: server
mcp_config: [~/servers.json]
mcp_servers: {}
sandbox: workspace-write
sandbox_required: true
otel: true
schema: "city, temp int"
schema_retries: 2
schema_mode: prompt
batch_api: true
profiles:
  p:
    model: profile-model
    provider: anthropic
    base_url: http://profile.example
    tools_dirs: [profile-tools]
    max_steps: 12
    parallel: 5
    transcript_dir: /profile/transcripts
    max_retries: 6
    timeout: 2m
    idle_timeout: 6m
    system: from the profile
    models: [c]
    max_total_tokens: 2000
    max_cost: 2.5
    context_limit: 9000
    context_keep: 5
    context_keep_tools: [note]
    context_clear_at_least: 600
    context_editing: client
    mcp_config: [profile.json]
    mcp_servers: {}
    sandbox: off
    sandbox_required: false
    otel: false
    schema: "verdict, score int"
    schema_retries: 0
    schema_mode: native
    batch_api: false
`

// Each key at each level: default, file, profile, environment, flag.
func TestConfigPrecedence(t *testing.T) {
	type want struct {
		model, provider, system, transcriptDir string
		toolsDirs                              []string
		maxSteps, parallel, maxRetries         int
		timeout, idle                          time.Duration
		models                                 []string
		src                                    string // the source kind of every key but models
	}
	allEnv := []string{
		"AGENTLOOP_MODEL", "env-model", "AGENTLOOP_PROVIDER", "openai", "AGENTLOOP_TOOLS_DIRS", "e1:~/e2",
		"AGENTLOOP_MAX_STEPS", "13", "AGENTLOOP_PARALLEL", "7", "AGENTLOOP_TRANSCRIPT_DIR", "~/env-transcripts",
		"AGENTLOOP_MAX_RETRIES", "0", "AGENTLOOP_TIMEOUT", "90s", "AGENTLOOP_IDLE_TIMEOUT", "7m", "AGENTLOOP_SYSTEM", "from the env",
		"AGENTLOOP_MAX_TOTAL_TOKENS", "3000", "AGENTLOOP_MAX_COST", "3.5", "AGENTLOOP_CONTEXT_LIMIT", "10000",
		"AGENTLOOP_CONTEXT_KEEP", "6", "AGENTLOOP_CONTEXT_CLEAR_AT_LEAST", "700", "AGENTLOOP_CONTEXT_EDITING", "server",
		"AGENTLOOP_MCP_CONFIG", "env.json", "AGENTLOOP_SANDBOX", "read-only", "AGENTLOOP_SANDBOX_REQUIRED", "1",
		"AGENTLOOP_OTEL", "true",
		"AGENTLOOP_SCHEMA", "verdict, score int", "AGENTLOOP_SCHEMA_RETRIES", "0", "AGENTLOOP_SCHEMA_MODE", "native",
		"AGENTLOOP_BATCH_API", "true",
	}
	allFlags := []string{
		"--model", "flag-model", "--provider", "anthropic", "--tools-dir", "f1", "--tools-dir", "f2",
		"--max-steps", "14", "--parallel", "9", "--max-retries", "1", "--timeout", "3m", "--idle-timeout", "8m", "--system", "from the flag",
		"--max-total-tokens", "4000", "--max-cost", "4.5", "--context-limit", "11000",
		"--mcp-config", "flag.json", "--sandbox", "workspace-write", "--sandbox-required=false",
		"--otel=false",
		"--schema", "city, temp int", "--schema-retries", "3", "--schema-mode", "prompt",
	}
	tests := []struct {
		name  string
		file  string
		env   []string
		args  []string
		check func(t *testing.T, e *configEnv, c *config.Config)
		want  func(home string) want
	}{
		{
			name: "default",
			want: func(home string) want {
				return want{model: config.DefaultModel, transcriptDir: filepath.Join(home, "state", "agentloop", "transcripts"),
					maxSteps: 10, parallel: 8, maxRetries: 2, idle: 10 * time.Minute, src: config.SourceDefault}
			},
		},
		{
			name: "file",
			file: precedenceFile,
			want: func(home string) want {
				return want{model: "file-model", provider: "openai", system: "from the file",
					transcriptDir: filepath.Join(home, "transcripts"), toolsDirs: []string{"file-tools", filepath.Join(home, "tools")},
					maxSteps: 11, parallel: 3, maxRetries: 4, timeout: time.Minute, idle: 5 * time.Minute, models: []string{"a", "b"}, src: config.SourceFile}
			},
		},
		{
			name: "profile over file",
			file: precedenceFile,
			args: []string{"--profile", "p"},
			want: func(home string) want {
				return want{model: "profile-model", provider: "anthropic", system: "from the profile",
					transcriptDir: "/profile/transcripts", toolsDirs: []string{"profile-tools"},
					maxSteps: 12, parallel: 5, maxRetries: 6, timeout: 2 * time.Minute, idle: 6 * time.Minute, models: []string{"c"}, src: config.SourceFile}
			},
		},
		{
			name: "env over profile",
			file: precedenceFile,
			env:  append([]string{"AGENTLOOP_PROFILE", "p"}, allEnv...),
			want: func(home string) want {
				return want{model: "env-model", provider: "openai", system: "from the env",
					transcriptDir: filepath.Join(home, "env-transcripts"), toolsDirs: []string{"e1", filepath.Join(home, "e2")},
					maxSteps: 13, parallel: 7, maxRetries: 0, timeout: 90 * time.Second, idle: 7 * time.Minute, models: []string{"c"}, src: config.SourceEnv}
			},
		},
		{
			name: "flag over env",
			file: precedenceFile,
			env:  allEnv,
			args: append([]string{"--profile", "p"}, allFlags...),
			want: func(home string) want {
				// transcript_dir has no flag: the variable still gives it.
				return want{model: "flag-model", provider: "anthropic", system: "from the flag",
					transcriptDir: filepath.Join(home, "env-transcripts"), toolsDirs: []string{"f1", "f2"},
					maxSteps: 14, parallel: 9, maxRetries: 1, timeout: 3 * time.Minute, idle: 8 * time.Minute, models: []string{"c"}, src: config.SourceFlag}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newConfigEnv(t, tt.file, tt.env...)
			c, err := showConfig(t, e, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.want(e.home)
			got := want{model: c.Model, provider: c.Provider, system: c.System, transcriptDir: c.TranscriptDir,
				toolsDirs: c.ToolsDirs, maxSteps: c.MaxSteps, parallel: c.Parallel, maxRetries: c.MaxRetries,
				timeout: c.Timeout, idle: c.IdleTimeout, models: c.Models, src: w.src}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			for _, k := range config.Keys {
				// Lists and MCP servers are the file's only; a key without
				// a flag still comes from its variable.
				// batch_api's flag is batch's, not config show's.
				if k.Kind == config.List || k.Kind == config.Servers || (k.Flag == "" && w.src == config.SourceFlag) || k.Name == "base_url" ||
					(k.Name == "batch_api" && w.src == config.SourceFlag) {
					continue
				}
				if s := c.Source(k.Name); s.Kind != w.src {
					t.Errorf("%s: source %+v, want %s", k.Name, s, w.src)
				}
			}
		})
	}
}

func TestConfigEnvProblems(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"AGENTLOOP_MAX_STEPS", "ten"}, "AGENTLOOP_MAX_STEPS=ten: not a whole number"},
		{[]string{"AGENTLOOP_MAX_STEPS", "0"}, "AGENTLOOP_MAX_STEPS=0: must be at least 1"},
		{[]string{"AGENTLOOP_PARALLEL", "-1"}, "AGENTLOOP_PARALLEL=-1: must be at least 1"},
		{[]string{"AGENTLOOP_TIMEOUT", "soon"}, "AGENTLOOP_TIMEOUT=soon: not a duration"},
		{[]string{"AGENTLOOP_PROVIDER", "gemini"}, "AGENTLOOP_PROVIDER=gemini: use openai, responses or anthropic"},
		{[]string{"AGENTLOOP_BASE_URL", "ftp://x"}, "AGENTLOOP_BASE_URL=ftp://x: want an http:// or https:// URL"},
		{[]string{"AGENTLOOP_PROFILE", "ollama"}, "AGENTLOOP_PROFILE=ollama: there is no configuration file ("},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := newConfigEnv(t, "", tt.env...)
			_, err := showConfig(t, e)
			var ee *ExitError
			if !errors.As(err, &ee) || ee.Code != ExitUsage {
				t.Fatalf("err %v, want exit 2", err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err %q, want %q", err, tt.want)
			}
		})
	}
}

func TestConfigFlagProblems(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-steps", "0"}, "--max-steps 0: must be at least 1"},
		{[]string{"--provider", "gemini"}, `--provider "gemini": use openai, responses or anthropic`},
		{[]string{"--timeout", "-1s"}, "--timeout -1s: must be positive"},
		{[]string{"--base-url", "localhost"}, `--base-url "localhost": want an http:// or https:// URL`},
	} {
		e := newConfigEnv(t, "")
		_, err := showConfig(t, e, tt.args...)
		var fe *FlagError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want a usage error %q", tt.args, err, tt.want)
		}
	}
}

func TestConfigProfileSelection(t *testing.T) {
	file := "profiles:\n  ollama: {model: llama3.2}\n  work: {model: gpt-4o}\n"
	t.Run("flag over env", func(t *testing.T) {
		e := newConfigEnv(t, file, "AGENTLOOP_PROFILE", "work")
		c, err := showConfig(t, e, "--profile", "ollama")
		if err != nil {
			t.Fatal(err)
		}
		if c.Profile != "ollama" || c.Model != "llama3.2" || c.Source("profile").Kind != config.SourceFlag {
			t.Errorf("profile %q (%+v), model %q", c.Profile, c.Source("profile"), c.Model)
		}
		if !reflect.DeepEqual(c.Profiles, []string{"ollama", "work"}) {
			t.Errorf("profiles %q", c.Profiles)
		}
	})
	t.Run("env", func(t *testing.T) {
		e := newConfigEnv(t, file, "AGENTLOOP_PROFILE", "work")
		c, err := showConfig(t, e)
		if err != nil {
			t.Fatal(err)
		}
		if c.Model != "gpt-4o" || c.Source("profile").Kind != config.SourceEnv {
			t.Errorf("model %q, profile source %+v", c.Model, c.Source("profile"))
		}
	})
	t.Run("unknown", func(t *testing.T) {
		e := newConfigEnv(t, file)
		_, err := showConfig(t, e, "--profile", "olama")
		want := "--profile olama: no such profile in " + e.path + " (did you mean 'ollama'?); it defines ollama, work"
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || err.Error() != want {
			t.Errorf("err %v\nwant %s", err, want)
		}
	})
	t.Run("no file", func(t *testing.T) {
		e := newConfigEnv(t, "")
		_, err := showConfig(t, e, "--profile", "ollama")
		if err == nil || !strings.Contains(err.Error(), "there is no configuration file ("+e.path+")") {
			t.Errorf("err %v", err)
		}
	})
}

func TestConfigUnreadable(t *testing.T) {
	e := newConfigEnv(t, "")
	if err := os.MkdirAll(e.path, 0o755); err != nil { // a folder where the file goes
		t.Fatal(err)
	}
	_, err := showConfig(t, e)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), e.path+" is a folder") {
		t.Errorf("err %v", err)
	}
}

// Several problems are printed one a line, then counted.
func TestResolveConfigPrintsProblems(t *testing.T) {
	e := newConfigEnv(t, "modle: a\nmax_steps: 0\n")
	ios, _, _, errOut := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	_, err := resolveConfig(ios, nil)
	if err == nil || err.Error() != "2 problems in the configuration" {
		t.Fatalf("err %v", err)
	}
	want := e.path + ":1: unknown key 'modle' (did you mean 'model'?)\n" + e.path + ":2: max_steps 0: must be at least 1\n"
	if errOut.String() != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

func TestConfigNoHome(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	c, err := resolveConfig(ios, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "" || c.Found || c.Model != config.DefaultModel {
		t.Errorf("%+v", c)
	}
	if err := runConfigPath(&ConfigPathOptions{IO: ios}); err == nil {
		t.Error("config path without a home: no error")
	}
}
