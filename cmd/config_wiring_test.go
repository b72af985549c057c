package cmd

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentloop/agentloop/pkg/tracing"
)

// The commands take their settings from the configuration (see
// config_test.go for the helpers).

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
		got.toolsDirsSet || !strings.HasPrefix(got.toolsSetting, "tools_dirs in "+e.path+":") {
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
	fillModel(got.Config, &mo)
	if mo.Model != "header-model" || mo.System != "flag system" || mo.BaseURL != "http://file.example/v1" {
		t.Errorf("after the header: %+v", mo)
	}
	mo = got.Model
	mo.Provider = "openai"
	fillModel(got.Config, &mo)
	if mo.Model != "env-model" {
		t.Errorf("without a header: model %q, want the variable's", mo.Model)
	}
}

// The tools commands read tools_dirs; a --tools-dir flag beats it, and
// tools show --provider is a wire form, not the provider setting.
func TestToolsCommandsUseConfig(t *testing.T) {
	e := newConfigEnv(t, "tools_dirs: [mine]\nprovider: anthropic\n")
	for _, tt := range []struct {
		args    []string
		dirs    []string
		setting string
	}{
		{[]string{"x"}, []string{"mine"}, "tools_dirs in " + e.path + ":1"},
		{[]string{"x", "--tools-dir", "other"}, []string{"other"}, "--tools-dir"},
		{[]string{"x", "--provider", "openai"}, []string{"mine"}, "tools_dirs in " + e.path + ":1"},
	} {
		var got *ToolsShowOptions
		c := newCmdToolsShow(e.ios(), func(o *ToolsShowOptions) error { got = o; return nil })
		c.SetArgs(tt.args)
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.ToolsDirs, tt.dirs) || got.ToolsSetting != tt.setting || got.Provider != "openai" && tt.args[len(tt.args)-1] == "openai" {
			t.Errorf("%v: %+v", tt.args, got)
		}
	}
}

// A folder a setting names that does not exist is a usage error naming the
// setting; one agentloop chose itself is left out.
func TestToolsDirsConfigured(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	ios, _, _, _ := Test()
	for setting, want := range map[string]string{
		"--tools-dir":            "--tools-dir " + missing + ": no such file or folder",
		"AGENTLOOP_TOOLS_DIRS":   "AGENTLOOP_TOOLS_DIRS: " + missing + ": no such file or folder",
		"tools_dirs in c.yaml:4": "tools_dirs in c.yaml:4: " + missing + ": no such file or folder",
	} {
		_, err := loadTools(ios, toolsSource{[]string{dir, missing}, setting})
		if code, msg := exitCode(err); code != ExitUsage || msg != want {
			t.Errorf("%s: exit %d, %q; want %q", setting, code, msg, want)
		}
	}
	if got, err := toolsDirs(ios, toolsSource{dirs: []string{missing}}, true); err != nil || len(got) != 0 {
		t.Errorf("chosen by agentloop: %q, %v", got, err)
	}
}

// The otel setting: a profile's otel: true turns export on; an OTLP
// endpoint in the environment goes above the file's false; --otel=false
// and AGENTLOOP_OTEL=false go above the endpoint; OTEL_SDK_DISABLED above
// all. run and batch alike.
func TestOTelSetting(t *testing.T) {
	const file = "otel: false\nprofiles:\n  traced:\n    otel: true\n"
	endpoint := []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"}
	for _, tt := range []struct {
		vars []string
		args []string
		want tracing.Signals
	}{
		{nil, nil, tracing.Signals{}},
		{nil, []string{"--profile", "traced"}, tracing.Signals{Traces: true, Metrics: true}},
		{[]string{"AGENTLOOP_PROFILE", "traced"}, nil, tracing.Signals{Traces: true, Metrics: true}},
		{endpoint, nil, tracing.Signals{Traces: true, Metrics: true}},
		{endpoint, []string{"--otel=false"}, tracing.Signals{}},
		{append([]string{"AGENTLOOP_OTEL", "false"}, endpoint...), nil, tracing.Signals{}},
		{[]string{"AGENTLOOP_OTEL", "true"}, nil, tracing.Signals{Traces: true, Metrics: true}},
		{nil, []string{"--otel"}, tracing.Signals{Traces: true, Metrics: true}},
		{[]string{"OTEL_SDK_DISABLED", "true"}, []string{"--otel", "--profile", "traced"}, tracing.Signals{}},
	} {
		e := newConfigEnv(t, file, tt.vars...)
		var run *RunOptions
		c := newCmdRun(e.ios(), func(_ context.Context, o *RunOptions) error { run = o; return nil })
		c.PersistentFlags().String("profile", "", "")
		c.SetArgs(append(tt.args, "hello"))
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		if got := tracing.Wanted(e.ios().Getenv, run.OTel); got != tt.want {
			t.Errorf("run %v %v: %+v (setting %+v), want %+v", tt.vars, tt.args, got, run.OTel, tt.want)
		}
		var batch *BatchOptions
		c = newCmdBatch(e.ios(), func(_ context.Context, o *BatchOptions) error { batch = o; return nil })
		c.PersistentFlags().String("profile", "", "")
		c.SetArgs(append(tt.args, "in.jsonl", "-d", "out"))
		if err := c.Execute(); err != nil {
			t.Fatal(err)
		}
		if got := tracing.Wanted(e.ios().Getenv, batch.OTel); got != tt.want {
			t.Errorf("batch %v %v: %+v, want %+v", tt.vars, tt.args, got, tt.want)
		}
	}
}
