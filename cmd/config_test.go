package cmd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/internal/suggest"
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

func (e *configEnv) ios() *IOStreams {
	ios, _, _, _ := Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	return ios
}

// showConfig runs config show's flag parsing with args (and --profile, as
// the root command has it) and returns the resolved configuration.
func showConfig(t *testing.T, e *configEnv, args ...string) (*Config, error) {
	t.Helper()
	var got *Config
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
system: from the file
models: [a, b]
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
    system: from the profile
    models: [c]
`

// Each key at each level: default, file, profile, environment, flag.
func TestConfigPrecedence(t *testing.T) {
	type want struct {
		model, provider, system, transcriptDir string
		toolsDirs                              []string
		maxSteps, parallel, maxRetries         int
		timeout                                time.Duration
		models                                 []string
		src                                    string // the source kind of every key but models
	}
	allEnv := []string{
		"AGENTLOOP_MODEL", "env-model", "AGENTLOOP_PROVIDER", "openai", "AGENTLOOP_TOOLS_DIRS", "e1:~/e2",
		"AGENTLOOP_MAX_STEPS", "13", "AGENTLOOP_PARALLEL", "7", "AGENTLOOP_TRANSCRIPT_DIR", "~/env-transcripts",
		"AGENTLOOP_MAX_RETRIES", "0", "AGENTLOOP_TIMEOUT", "90s", "AGENTLOOP_SYSTEM", "from the env",
	}
	allFlags := []string{
		"--model", "flag-model", "--provider", "anthropic", "--tools-dir", "f1", "--tools-dir", "f2",
		"--max-steps", "14", "--parallel", "9", "--max-retries", "1", "--timeout", "3m", "--system", "from the flag",
	}
	tests := []struct {
		name  string
		file  string
		env   []string
		args  []string
		check func(t *testing.T, e *configEnv, c *Config)
		want  func(home string) want
	}{
		{
			name: "default",
			want: func(home string) want {
				return want{model: DefaultModel, transcriptDir: filepath.Join(home, "state", "agentloop", "transcripts"),
					maxSteps: 10, parallel: 8, maxRetries: 2, src: sourceDefault}
			},
		},
		{
			name: "file",
			file: precedenceFile,
			want: func(home string) want {
				return want{model: "file-model", provider: "openai", system: "from the file",
					transcriptDir: filepath.Join(home, "transcripts"), toolsDirs: []string{"file-tools", filepath.Join(home, "tools")},
					maxSteps: 11, parallel: 3, maxRetries: 4, timeout: time.Minute, models: []string{"a", "b"}, src: sourceFile}
			},
		},
		{
			name: "profile over file",
			file: precedenceFile,
			args: []string{"--profile", "p"},
			want: func(home string) want {
				return want{model: "profile-model", provider: "anthropic", system: "from the profile",
					transcriptDir: "/profile/transcripts", toolsDirs: []string{"profile-tools"},
					maxSteps: 12, parallel: 5, maxRetries: 6, timeout: 2 * time.Minute, models: []string{"c"}, src: sourceFile}
			},
		},
		{
			name: "env over profile",
			file: precedenceFile,
			env:  append([]string{"AGENTLOOP_PROFILE", "p"}, allEnv...),
			want: func(home string) want {
				return want{model: "env-model", provider: "openai", system: "from the env",
					transcriptDir: filepath.Join(home, "env-transcripts"), toolsDirs: []string{"e1", filepath.Join(home, "e2")},
					maxSteps: 13, parallel: 7, maxRetries: 0, timeout: 90 * time.Second, models: []string{"c"}, src: sourceEnv}
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
					maxSteps: 14, parallel: 9, maxRetries: 1, timeout: 3 * time.Minute, models: []string{"c"}, src: sourceFlag}
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
				timeout: c.Timeout, models: c.Models, src: w.src}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
			for _, k := range settingKeys {
				if k.name == "models" || (k.name == "transcript_dir" && w.src == sourceFlag) || k.name == "base_url" {
					continue
				}
				if s := c.source(k.name); s.kind != w.src {
					t.Errorf("%s: source %+v, want %s", k.name, s, w.src)
				}
			}
		})
	}
}

func TestConfigSourceDescribe(t *testing.T) {
	home := "/home/me"
	tests := []struct {
		src  source
		want string
	}{
		{source{kind: sourceDefault}, "default"},
		{source{kind: sourceFlag, name: "--model"}, "flag"},
		{source{kind: sourceEnv, name: "AGENTLOOP_MODEL"}, "env AGENTLOOP_MODEL"},
		{source{kind: sourceFile, file: "/home/me/.config/agentloop/config.yaml", line: 3}, "file ~/.config/agentloop/config.yaml"},
		{source{kind: sourceFile, file: "/etc/agentloop/config.yaml", profile: "ollama"}, "file /etc/agentloop/config.yaml (profile ollama)"},
	}
	for _, tt := range tests {
		if got := tt.src.describe(home); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.src, got, tt.want)
		}
	}
}

// base_url: flag > AGENTLOOP_BASE_URL > the provider's own variable > file > default.
func TestConfigBaseURL(t *testing.T) {
	file := "base_url: http://file.example/v1\nprofiles:\n  claude: {model: claude-sonnet-4-5}\n"
	tests := []struct {
		name     string
		file     string
		env      []string
		args     []string
		want     string
		wantFrom string
	}{
		{"default", "", nil, nil, "", "default"},
		{"file", file, nil, nil, "http://file.example/v1", "file"},
		{"provider variable over file", file, []string{"OPENAI_BASE_URL", "http://openai-env.example/v1"}, nil, "http://openai-env.example/v1", "env OPENAI_BASE_URL"},
		{"the other provider's variable does not count", file, []string{"ANTHROPIC_BASE_URL", "http://anthropic-env.example"}, nil, "http://file.example/v1", "file"},
		{"anthropic's variable for a claude model", file, []string{"ANTHROPIC_BASE_URL", "http://anthropic-env.example"}, []string{"--profile", "claude"}, "http://anthropic-env.example", "env ANTHROPIC_BASE_URL"},
		{"AGENTLOOP_BASE_URL over the provider variable", file, []string{"OPENAI_BASE_URL", "http://openai-env.example/v1", "AGENTLOOP_BASE_URL", "http://agentloop-env.example/v1"}, nil, "http://agentloop-env.example/v1", "env AGENTLOOP_BASE_URL"},
		{"flag over all", file, []string{"OPENAI_BASE_URL", "http://openai-env.example/v1", "AGENTLOOP_BASE_URL", "http://agentloop-env.example/v1"}, []string{"--base-url", "http://flag.example/v1"}, "http://flag.example/v1", "flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newConfigEnv(t, tt.file, tt.env...)
			c, err := showConfig(t, e, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			got, src := c.baseURL(c.providerName())
			if got != tt.want || !strings.HasPrefix(src.describe(e.home), tt.wantFrom) {
				t.Errorf("base URL %q from %q, want %q from %q", got, src.describe(e.home), tt.want, tt.wantFrom)
			}
		})
	}
}

func TestConfigProblems(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // the problems, after "config.yaml:"
	}{
		{"unknown key", "modle: x\n", []string{"1: unknown key 'modle' (did you mean 'model'?)"}},
		{"unknown key without suggestion", "flavour: x\n", []string{"1: unknown key 'flavour'"}},
		{"unknown key in a profile", "profiles:\n  a:\n    max_step: 3\n", []string{"3: profile 'a': unknown key 'max_step' (did you mean 'max_steps'?)"}},
		{"api key", "api_key: sk-abc\n", []string{"1: api_key: API keys are never read from the configuration file; set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment"}},
		{"api key in a profile", "profiles:\n  a:\n    openai_api_key: sk-abc\n", []string{"3: profile 'a': openai_api_key: API keys are never read"}},
		{"negative steps", "max_steps: -1\n", []string{"1: max_steps -1: must be at least 1"}},
		{"zero parallel", "parallel: 0\n", []string{"1: parallel 0: must be at least 1"}},
		{"negative retries", "max_retries: -2\n", []string{"1: max_retries -2: must be 0 or more"}},
		{"timeout soon", "timeout: soon\n", []string{`1: timeout "soon": not a duration`}},
		{"negative timeout", "timeout: -5s\n", []string{"1: timeout -5s: must be positive"}},
		{"quoted number", "max_steps: \"5\"\n", []string{`1: max_steps "5": not a whole number (write it without quotes)`}},
		{"float", "max_steps: 2.5\n", []string{`1: max_steps "2.5": not a whole number`}},
		{"provider", "provider: gemini\n", []string{`1: provider "gemini": use openai, responses or anthropic`}},
		{"base url", "base_url: localhost:11434\n", []string{`1: base_url "localhost:11434": want an http:// or https:// URL`}},
		{"empty model", "model: \"\"\n", []string{`1: model "": must not be empty`}},
		{"no value", "model:\n", []string{"1: model: no value"}},
		{"list wanted", "tools_dirs: tools.d\n", []string{"1: tools_dirs: want a list, e.g. [tools.d, ~/agentloop-tools]"}},
		{"list of lists", "models: [[a]]\n", []string{"1: models: each entry must be a string"}},
		{"mapping for a scalar", "model: {a: b}\n", []string{"1: model: want a single value"}},
		{"duplicate key", "model: a\nmodel: b\n", []string{"2: duplicate key 'model' (first at line 1)"}},
		{"duplicate profile", "profiles:\n  a: {}\n  a: {}\n", []string{"3: duplicate profile 'a' (first at line 2)"}},
		{"nested profiles", "profiles:\n  a:\n    profiles: {}\n", []string{"3: profile 'a': profiles cannot be nested"}},
		{"profiles not a mapping", "profiles: [a]\n", []string{"1: profiles: want a mapping of profile names"}},
		{"profile not a mapping", "profiles:\n  a: [1]\n", []string{"2: profile 'a': want a mapping of settings"}},
		{"not a mapping", "- model\n", []string{"1: the file must be a mapping"}},
		{"syntax", "model: [a\n", []string{"1: did not find expected ',' or ']'"}},
		{"every problem at once", "modle: a\nmax_steps: 0\nprofiles:\n  x:\n    timeout: later\n", []string{
			"1: unknown key 'modle'", "2: max_steps 0: must be at least 1", `5: profile 'x': timeout "later": not a duration`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, probs := parseConfig("config.yaml", []byte(tt.file), "/home/me")
			if len(probs) != len(tt.want) {
				t.Fatalf("problems %q, want %d", probs, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(probs[i], "config.yaml:"+w) {
					t.Errorf("problem %q, want it to start with %q", probs[i], "config.yaml:"+w)
				}
			}
		})
	}
}

func TestConfigFileAccepted(t *testing.T) {
	for _, file := range []string{
		"", "# nothing yet\n", "~\n", "profiles:\n", "profiles:\n  empty:\n",
		"system: \"\"\nbase_url: \"\"\ntimeout: 0\n",
		"defaults: &d {model: a}\nprofiles:\n  x: *d\n" + "", // an anchor is not a key: refused below
	} {
		_, probs := parseConfig("c.yaml", []byte(file), "")
		if strings.HasPrefix(file, "defaults") {
			if len(probs) != 1 || !strings.Contains(probs[0], "unknown key 'defaults'") {
				t.Errorf("%q: %q", file, probs)
			}
			continue
		}
		if len(probs) > 0 {
			t.Errorf("%q: %q", file, probs)
		}
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
		if c.Profile != "ollama" || c.Model != "llama3.2" || c.source("profile").kind != sourceFlag {
			t.Errorf("profile %q (%+v), model %q", c.Profile, c.source("profile"), c.Model)
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
		if c.Model != "gpt-4o" || c.source("profile").kind != sourceEnv {
			t.Errorf("model %q, profile source %+v", c.Model, c.source("profile"))
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
	ios, _, _, errOut := Test()
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
	ios, _, _, _ := Test()
	c, err := resolveConfig(ios, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "" || c.Found || c.Model != DefaultModel {
		t.Errorf("%+v", c)
	}
	if err := runConfigPath(&ConfigPathOptions{IO: ios}); err == nil {
		t.Error("config path without a home: no error")
	}
}

// run takes its defaults from the configuration; a flag still wins.
func TestRunUsesConfig(t *testing.T) {
	e := newConfigEnv(t, precedenceFile, "AGENTLOOP_MAX_STEPS", "21", "OPENAI_BASE_URL", "http://openai-env.example/v1")
	var got *RunOptions
	c := newCmdRun(e.ios(), func(_ context.Context, o *RunOptions) error { got = o; return nil })
	c.SetArgs([]string{"--parallel", "2", "hello"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	m := got.Model
	if m.Model != "file-model" || m.Provider != "openai" || m.BaseURL != "http://openai-env.example/v1" || m.System != "from the file" ||
		m.MaxRetries != 4 || m.Timeout != time.Minute || got.MaxSteps != 21 || got.Parallel != 2 ||
		got.TranscriptDir != filepath.Join(e.home, "transcripts") || !reflect.DeepEqual(got.ToolsDirs, []string{"file-tools", filepath.Join(e.home, "tools")}) ||
		got.toolsDirsSet {
		t.Errorf("options %+v", got)
	}
}

// replay --resume: a flag, then the transcript's header, then the
// configuration.
func TestReplayResumeConfigOrder(t *testing.T) {
	e := newConfigEnv(t, "model: file-model\nsystem: file system\nbase_url: http://file.example/v1\n", "AGENTLOOP_MODEL", "env-model")
	var got *ReplayOptions
	c := newCmdReplay(e.ios(), func(_ context.Context, o *ReplayOptions) error { got = o; return nil })
	c.SetArgs([]string{"--resume", "--system", "flag system", "t.jsonl"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Model.Model != "" || got.Model.BaseURL != "" || got.Config == nil {
		t.Fatalf("the model settings should wait for the header: %+v", got.Model)
	}
	mo := got.Model
	mo.Model, mo.Provider = "header-model", "openai" // as runReplayResume takes them from the header
	got.Config.fillModel(&mo)
	if mo.Model != "header-model" || mo.System != "flag system" || mo.BaseURL != "http://file.example/v1" {
		t.Errorf("after the header: %+v", mo)
	}
	mo = got.Model
	mo.Provider = "openai"
	got.Config.fillModel(&mo)
	if mo.Model != "env-model" {
		t.Errorf("without a header: model %q, want the variable's", mo.Model)
	}
}

// The tools commands read tools_dirs; a --tools-dir flag beats it, and
// tools show --provider is a wire form, not the provider setting.
func TestToolsCommandsUseConfig(t *testing.T) {
	e := newConfigEnv(t, "tools_dirs: [mine]\nprovider: anthropic\n")
	for _, tt := range []struct {
		args     []string
		dirs     []string
		explicit bool
	}{
		{[]string{"x"}, []string{"mine"}, false},
		{[]string{"x", "--tools-dir", "other"}, []string{"other"}, true},
		{[]string{"x", "--provider", "openai"}, []string{"mine"}, false},
	} {
		var got *ToolsShowOptions
		c := newCmdToolsShow(e.ios(), func(o *ToolsShowOptions) error { got = o; return nil })
		c.SetArgs(tt.args)
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.ToolsDirs, tt.dirs) || got.ExplicitDirs != tt.explicit || got.Provider != "openai" && tt.args[len(tt.args)-1] == "openai" {
			t.Errorf("%v: %+v", tt.args, got)
		}
	}
}

// Configured folders that do not exist are left out, as the default ones
// are; a --tools-dir that does not exist is an error.
func TestToolsDirsConfigured(t *testing.T) {
	dir := t.TempDir()
	ios, _, _, _ := Test()
	got := toolsDirs(ios, []string{dir, filepath.Join(dir, "missing")}, false)
	if !reflect.DeepEqual(got, []string{dir}) {
		t.Errorf("configured: %q", got)
	}
	if _, err := loadTools(ios, []string{filepath.Join(dir, "missing")}, true); err == nil {
		t.Error("a missing --tools-dir is no error")
	}
}

func TestDidYouMean(t *testing.T) {
	keys := []string{"model", "models", "max_steps", "max_retries", "timeout"}
	for in, want := range map[string]string{
		"modle": " (did you mean 'model'?)", "max_step": " (did you mean 'max_steps'?)", "MODEL": " (did you mean 'model'?)",
		"timeuot": " (did you mean 'timeout'?)", "colour": "", "x": "",
	} {
		if got := suggest.DidYouMean(in, keys); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "apiKey": true, "OPENAI_API_KEY": true, "anthropic-key": true, "token": true, "auth_token": true,
		"password": true, "model": false, "base_url": false, "max_steps": false,
	} {
		if isSecretKey(name) != want {
			t.Errorf("%s: %v", name, !want)
		}
	}
}
