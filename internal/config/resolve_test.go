package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// input is an Input reading the flags and variables given, and the file
// (none when file is "") from a temporary folder.
func input(t *testing.T, file string, flags map[string][]string, env map[string]string) Input {
	t.Helper()
	dir := t.TempDir()
	in := Input{
		Home: "/home/me", Path: filepath.Join(dir, FileName), StateDir: "/state",
		Getenv: func(k string) string { return env[k] },
		Flag: func(name string) (string, []string, bool) {
			v, ok := flags[name]
			if !ok {
				return "", nil, false
			}
			if len(v) == 1 {
				return v[0], nil, true
			}
			return strings.Join(v, ","), v, true
		},
	}
	if file != "" {
		if err := os.WriteFile(in.Path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

const allKeysFile = `model: file-model
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
    max_steps: 12
`

// Each key from each source: the value, and the source it is said to come
// from.
func TestResolvePrecedence(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		flags map[string][]string
		env   map[string]string
		key   string
		want  any
		src   string
	}{
		{"default model", "", nil, nil, "model", DefaultModel, SourceDefault},
		{"default model of anthropic", "", map[string][]string{"provider": {"anthropic"}}, nil, "model", DefaultAnthropicModel, SourceDefault},
		{"default steps", "", nil, nil, "max_steps", 10, SourceDefault},
		{"default parallel", "", nil, nil, "parallel", 8, SourceDefault},
		{"default retries", "", nil, nil, "max_retries", DefaultMaxRetries, SourceDefault},
		{"default transcript_dir", "", nil, nil, "transcript_dir", "/state/transcripts", SourceDefault},
		{"default tools_dirs", "", nil, nil, "tools_dirs", []string(nil), SourceDefault},
		{"file", allKeysFile, nil, nil, "max_steps", 11, SourceFile},
		{"file path with ~", allKeysFile, nil, nil, "tools_dirs", []string{"file-tools", "/home/me/tools"}, SourceFile},
		{"file duration", allKeysFile, nil, nil, "timeout", time.Minute, SourceFile},
		{"file list", allKeysFile, nil, nil, "models", []string{"a", "b"}, SourceFile},
		{"profile over file", allKeysFile, map[string][]string{"profile": {"p"}}, nil, "max_steps", 12, SourceFile},
		{"the file under a profile", allKeysFile, map[string][]string{"profile": {"p"}}, nil, "parallel", 3, SourceFile},
		{"env over profile", allKeysFile, map[string][]string{"profile": {"p"}}, map[string]string{"AGENTLOOP_MAX_STEPS": "13"}, "max_steps", 13, SourceEnv},
		{"env path list", "", nil, map[string]string{"AGENTLOOP_TOOLS_DIRS": "e1:~/e2::"}, "tools_dirs", []string{"e1", "/home/me/e2"}, SourceEnv},
		{"env duration", "", nil, map[string]string{"AGENTLOOP_TIMEOUT": " 90s "}, "timeout", 90 * time.Second, SourceEnv},
		{"flag over env", allKeysFile, map[string][]string{"max-steps": {"14"}}, map[string]string{"AGENTLOOP_MAX_STEPS": "13"}, "max_steps", 14, SourceFlag},
		{"repeated flag", "", map[string][]string{"tools-dir": {"f1", "f2"}}, nil, "tools_dirs", []string{"f1", "f2"}, SourceFlag},
		{"a key without a flag", "", map[string][]string{"transcript-dir": {"x"}}, map[string]string{"AGENTLOOP_TRANSCRIPT_DIR": "~/t"}, "transcript_dir", "/home/me/t", SourceEnv},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(input(t, tt.file, tt.flags, tt.env))
			if err != nil {
				t.Fatal(err)
			}
			got := c.settings[tt.key].value
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.key, got, tt.want)
			}
			if src := c.Source(tt.key); src.Kind != tt.src {
				t.Errorf("%s from %+v, want %s", tt.key, src, tt.src)
			}
		})
	}
}

// The fields of Config are the resolved values.
func TestResolveFields(t *testing.T) {
	c, err := Resolve(input(t, allKeysFile, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "file-model" || c.Provider != "openai" || c.MaxSteps != 11 || c.Parallel != 3 ||
		c.MaxRetries != 4 || c.Timeout != time.Minute || c.System != "from the file" ||
		c.TranscriptDir != "/home/me/transcripts" || !reflect.DeepEqual(c.Models, []string{"a", "b"}) ||
		!reflect.DeepEqual(c.ToolsDirs, []string{"file-tools", "/home/me/tools"}) ||
		!c.Found || !reflect.DeepEqual(c.Profiles, []string{"p"}) {
		t.Errorf("%+v", c)
	}
	if src := c.Source("model"); src.Line != 1 || src.File != c.Path {
		t.Errorf("model from %+v, want line 1 of the file", src)
	}
}

// base_url: flag > AGENTLOOP_BASE_URL > the provider's own variable > file > default.
func TestResolveBaseURL(t *testing.T) {
	file := "base_url: http://file.example/v1\n"
	tests := []struct {
		name     string
		file     string
		flags    map[string][]string
		env      map[string]string
		provider string
		want     string
		from     string
	}{
		{"default", "", nil, nil, "openai", "", SourceDefault},
		{"file", file, nil, nil, "openai", "http://file.example/v1", SourceFile},
		{"provider variable over file", file, nil, map[string]string{"OPENAI_BASE_URL": "http://o.example/v1"}, "openai", "http://o.example/v1", SourceEnv},
		{"the other provider's variable does not count", file, nil, map[string]string{"ANTHROPIC_BASE_URL": "http://a.example"}, "openai", "http://file.example/v1", SourceFile},
		{"anthropic's variable", file, nil, map[string]string{"ANTHROPIC_BASE_URL": "http://a.example"}, "anthropic", "http://a.example", SourceEnv},
		{"AGENTLOOP_BASE_URL over the provider's", file, nil, map[string]string{"OPENAI_BASE_URL": "http://o.example/v1", "AGENTLOOP_BASE_URL": "http://al.example/v1"}, "openai", "http://al.example/v1", SourceEnv},
		{"flag over all", file, map[string][]string{"base-url": {"http://flag.example/v1"}}, map[string]string{"AGENTLOOP_BASE_URL": "http://al.example/v1"}, "openai", "http://flag.example/v1", SourceFlag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(input(t, tt.file, tt.flags, tt.env))
			if err != nil {
				t.Fatal(err)
			}
			got, src := c.BaseURL(tt.provider)
			if got != tt.want || src.Kind != tt.from {
				t.Errorf("%q from %+v, want %q from %s", got, src, tt.want, tt.from)
			}
		})
	}
}

func TestResolveProblems(t *testing.T) {
	t.Run("every bad variable at once", func(t *testing.T) {
		_, err := Resolve(input(t, "", nil, map[string]string{"AGENTLOOP_MAX_STEPS": "ten", "AGENTLOOP_PROVIDER": "gemini"}))
		var probs Problems
		if !errors.As(err, &probs) {
			t.Fatalf("err %v, want Problems", err)
		}
		want := Problems{"AGENTLOOP_PROVIDER=gemini: use openai, responses or anthropic", "AGENTLOOP_MAX_STEPS=ten: not a whole number"}
		if !reflect.DeepEqual(probs, want) {
			t.Errorf("%q, want %q", probs, want)
		}
	})
	t.Run("a model name with a line end or a space around it", func(t *testing.T) {
		_, err := Resolve(input(t, "", nil, map[string]string{"AGENTLOOP_MODEL": "gpt-4o\n"}))
		var probs Problems
		want := Problems{`AGENTLOOP_MODEL="gpt-4o\n": has a space or a line end around the name; write "gpt-4o"`}
		if !errors.As(err, &probs) || !reflect.DeepEqual(probs, want) {
			t.Errorf("err %q, want %q", err, want)
		}
		_, err = Resolve(input(t, "model: \" claude-sonnet-4-5\"\n", nil, nil))
		if err == nil || !strings.HasSuffix(err.Error(), `:1: model " claude-sonnet-4-5": has a space or a line end around the name; write "claude-sonnet-4-5"`) {
			t.Errorf("file: %v", err)
		}
	})
	t.Run("a password in a variable is not repeated", func(t *testing.T) {
		_, err := Resolve(input(t, "", nil, map[string]string{"AGENTLOOP_BASE_URL": "ftp://u:secret@h"}))
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("err %v", err)
		}
	})
	for _, tt := range []struct {
		flag, value, want string
	}{
		{"max-steps", "0", "--max-steps 0: must be at least 1"},
		{"max-steps", "x", `--max-steps x: not a whole number`},
		{"timeout", "5", `--timeout 5: not a duration: write a number and a unit, e.g. 30s, 5m or 1h`},
		{"model", "gpt-4o ", `--model "gpt-4o ": has a space or a line end around the name; write "gpt-4o"`},
		{"timeout", "-1s", "--timeout -1s: must be positive (0 means no limit)"},
		{"provider", "gemini", `--provider "gemini": use openai, responses or anthropic`},
		{"base-url", "localhost", `--base-url "localhost": want an http:// or https:// URL, e.g. http://localhost:11434/v1`},
	} {
		t.Run("flag "+tt.flag, func(t *testing.T) {
			_, err := Resolve(input(t, "", map[string][]string{tt.flag: {tt.value}}, nil))
			var fe *FlagError
			if !errors.As(err, &fe) || err.Error() != tt.want {
				t.Errorf("err %v (%T), want a *FlagError %q", err, err, tt.want)
			}
		})
	}
	t.Run("the file's problems", func(t *testing.T) {
		_, err := Resolve(input(t, "modle: a\nmax_steps: 0\n", nil, nil))
		var probs Problems
		if !errors.As(err, &probs) || len(probs) != 2 {
			t.Errorf("err %v, want two problems", err)
		}
	})
	t.Run("a folder where the file goes", func(t *testing.T) {
		in := input(t, "", nil, nil)
		if err := os.Mkdir(in.Path, 0o700); err != nil {
			t.Fatal(err)
		}
		if _, err := Resolve(in); err == nil || !strings.Contains(err.Error(), "is a folder, not a file") {
			t.Errorf("err %v", err)
		}
	})
}

func TestResolveProfile(t *testing.T) {
	file := "profiles:\n  ollama: {model: llama3.2}\n  work: {model: gpt-4o}\n"
	tests := []struct {
		name    string
		file    string
		flags   map[string][]string
		env     map[string]string
		model   string
		src     string
		wantErr string
	}{
		{"flag over env", file, map[string][]string{"profile": {"ollama"}}, map[string]string{ProfileEnv: "work"}, "llama3.2", SourceFlag, ""},
		{"env", file, nil, map[string]string{ProfileEnv: "work"}, "gpt-4o", SourceEnv, ""},
		{"none", file, nil, nil, DefaultModel, SourceDefault, ""},
		{"unknown", file, map[string][]string{"profile": {"olama"}}, nil, "", "", "--profile olama: no such profile in PATH (did you mean 'ollama'?); it defines ollama, work"},
		{"unknown from the env", file, nil, map[string]string{ProfileEnv: "x"}, "", "", "AGENTLOOP_PROFILE=x: no such profile in PATH; it defines ollama, work"},
		{"no file", "", map[string][]string{"profile": {"ollama"}}, nil, "", "", "--profile ollama: there is no configuration file (PATH) to define it in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(t, tt.file, tt.flags, tt.env)
			c, err := Resolve(in)
			if tt.wantErr != "" {
				if want := strings.ReplaceAll(tt.wantErr, "PATH", in.Path); err == nil || err.Error() != want {
					t.Errorf("err %v\nwant %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tt.model || c.Source("profile").Kind != tt.src {
				t.Errorf("model %q, profile from %+v; want %q from %s", c.Model, c.Source("profile"), tt.model, tt.src)
			}
		})
	}
}

// Without a configuration folder there is no file to read.
func TestResolveNoPath(t *testing.T) {
	c, err := Resolve(Input{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Path != "" || c.Found || c.Model != DefaultModel || c.MaxSteps != 10 {
		t.Errorf("%+v", c)
	}
}

func TestProviderFor(t *testing.T) {
	for _, tt := range []struct{ provider, model, want string }{
		{"", "gpt-4o", "openai"}, {"", "claude-sonnet-4-5", "anthropic"}, {"openai", "claude-x", "openai"}, {"", "", "openai"},
		// OpenAI's reasoning models go to the Responses API unless told.
		{"", "o1", "responses"}, {"", "o3-mini", "responses"}, {"", "o4-mini-2025-04-16", "responses"},
		{"", "gpt-5", "responses"}, {"", "gpt-5-mini", "responses"}, {"", "codex-mini-latest", "responses"},
		{"openai", "o3", "openai"},
		{"", "gpt-4.1", "openai"}, {"", "gpt-4o-mini", "openai"}, {"", "omni-moderation", "openai"}, {"", "o", "openai"},
		{"", "llama3.2", "openai"}, {"", "openai/o3", "openai"},
	} {
		if got := ProviderFor(tt.provider, tt.model); got != tt.want {
			t.Errorf("ProviderFor(%q, %q) = %q, want %q", tt.provider, tt.model, got, tt.want)
		}
	}
	for provider, model := range map[string]string{"openai": DefaultModel, "responses": DefaultResponsesModel, "anthropic": DefaultAnthropicModel} {
		if got := DefaultModelFor(provider); got != model || ProviderFor("", got) != provider {
			t.Errorf("DefaultModelFor(%q) = %q, whose provider by name is %q", provider, got, ProviderFor("", got))
		}
	}
}

func TestHomePaths(t *testing.T) {
	for _, tt := range []struct{ in, home, expanded, tilde string }{
		{"~/x", "/home/me", "/home/me/x", "~/x"},
		{"~", "/home/me", "/home/me", "~"},
		{"/home/mex", "/home/me", "/home/mex", "/home/mex"},
		{"~/x", "", "~/x", "~/x"},
		{"/x", "/", "/x", "/x"},
	} {
		got := ExpandHome(tt.in, tt.home)
		if got != tt.expanded {
			t.Errorf("ExpandHome(%q, %q) = %q, want %q", tt.in, tt.home, got, tt.expanded)
		}
		if back := TildePath(got, tt.home); back != tt.tilde {
			t.Errorf("TildePath(%q, %q) = %q, want %q", got, tt.home, back, tt.tilde)
		}
	}
}
