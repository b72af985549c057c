package cmd

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

func TestRunConfigShow(t *testing.T) {
	e := newConfigEnv(t, `model: gpt-4o
system: "  padded, with sk-secret-0123456789abcdef inside"
profiles:
  ollama:
    base_url: http://user:pass@localhost:11434/v1
    model: llama3.2
`, "AGENTLOOP_MAX_STEPS", "20", "OPENAI_API_KEY", "sk-secret-0123456789abcdef")
	cfg, err := showConfig(t, e, "--profile", "ollama", "--parallel", "2")
	if err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	file := "file ~/cfg/agentloop/config.yaml"
	want := `file                    ~/cfg/agentloop/config.yaml                read
profile                 ollama                                     flag
model                   llama3.2                                   ` + file + ` (profile ollama)
provider                openai                                     default
base_url                http://user:[REDACTED]@localhost:11434/v1  ` + file + ` (profile ollama)
tools_dirs              [tools.d, ~/cfg/agentloop/tools.d]         default
max_steps               20                                         env AGENTLOOP_MAX_STEPS
parallel                2                                          flag
transcript_dir          ~/state/agentloop/transcripts              default
max_retries             2                                          default
timeout                 0s                                         default
idle_timeout            10m0s                                      default
system                  "  padded, with [REDACTED] inside"         ` + file + `
models                  []                                         default
max_total_tokens        0                                          default
max_cost                0                                          default
context_limit           0                                          default
context_keep            3                                          default
context_keep_tools      []                                         default
context_clear_at_least  0                                          default
context_editing         client                                     default
mcp_config              []                                         default
mcp_servers             []                                         default
sandbox                 read-only                                  default
sandbox_required        false                                      default
otel                    false                                      default
schema                  ""                                         default
schema_retries          1                                          default
schema_mode             native                                     default
batch_api               false                                      default
OPENAI_API_KEY          set                                        env
ANTHROPIC_API_KEY       unset                                      env

prices: none (a run's cost is unknown without its model's price; max_cost is refused)
`
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(out.String(), "sk-secret") || strings.Contains(out.String(), "pass@") {
		t.Error("a secret is shown")
	}

	out.Reset()
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg, JSON: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "sk-secret") {
		t.Error("--json shows a secret")
	}
	var got struct {
		File      string   `json:"file"`
		FileFound bool     `json:"file_found"`
		Profiles  []string `json:"profiles"`
		Settings  map[string]struct {
			Value   any    `json:"value"`
			Source  string `json:"source"`
			Flag    string `json:"flag"`
			Env     string `json:"env"`
			File    string `json:"file"`
			Line    int    `json:"line"`
			Profile string `json:"profile"`
		} `json:"settings"`
		Credentials map[string]string `json:"credentials"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := got.Settings["model"]
	if got.File != e.path || !got.FileFound || len(got.Profiles) != 1 ||
		m.Value != "llama3.2" || m.Source != "file" || m.File != e.path || m.Line != 6 || m.Profile != "ollama" ||
		got.Settings["max_steps"].Value != float64(20) || got.Settings["max_steps"].Env != "AGENTLOOP_MAX_STEPS" ||
		got.Settings["parallel"].Flag != "--parallel" || got.Settings["profile"].Source != "flag" ||
		got.Credentials["OPENAI_API_KEY"] != "set" || got.Credentials["ANTHROPIC_API_KEY"] != "unset" {
		t.Errorf("%s", out)
	}
	// The settings keep config show's order.
	order := []string{`"profile"`, `"model"`, `"provider"`, `"base_url"`, `"tools_dirs"`, `"max_steps"`, `"parallel"`,
		`"transcript_dir"`, `"max_retries"`, `"timeout"`, `"system"`, `"models"`}
	last := -1
	for _, k := range order {
		i := strings.Index(out.String(), k+": {")
		if i < last {
			t.Errorf("%s out of order", k)
		}
		last = i
	}
}

// On a terminal a long value is cut so that its source stays on the line.
func TestRunConfigShowWidth(t *testing.T) {
	e := newConfigEnv(t, "system: "+strings.Repeat("word ", 40)+"\n")
	cfg, err := showConfig(t, e)
	if err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	ios.SetTTY(false, true, true)
	ios.SetWidth(100)
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("%d columns: %s", n, line)
		}
		if strings.HasPrefix(line, "system") && (!strings.Contains(line, "…") || !strings.HasSuffix(line, "config.yaml")) {
			t.Errorf("system line: %s", line)
		}
	}
}

// The prices in effect follow the settings: each model's four prices as
// they count (those the file leaves out are input's) at the line that gives
// them, under the file's path; a model's name from the file is shown
// escaped on a terminal; --json gives the same.
func TestRunConfigShowPrices(t *testing.T) {
	e := newConfigEnv(t, "model: gpt-4o\nprices:\n  gpt-4o: {input: 2.50, output: 10}\n  \"evil\\e[2J\": {input: 1, cached_input: 0.1, cache_write: 1.25, output: 4}\n")
	cfg, err := showConfig(t, e)
	if err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	want := `
prices, US dollars per million tokens:
model     input  cached_input  cache_write  output  batch_discount  source
evil` + "\x1b" + `[2J  1      0.1           1.25         4       0.5             file ~/cfg/agentloop/config.yaml:4
gpt-4o    2.5    2.5           2.5          10      0.5             file ~/cfg/agentloop/config.yaml:3
`
	if got := out.String(); !regexp.MustCompile(`^file +~/cfg/agentloop/config\.yaml +read\n`).MatchString(got) || !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant it to end\n%s", got, want)
	}

	out.Reset()
	ios.SetTTY(false, true, true)
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `evil\u001b[2J  1 `) {
		t.Errorf("on a terminal the model's name is not escaped:\n%s", out)
	}

	out.Reset()
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg, JSON: true}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Prices map[string]config.PriceJSON `json:"prices"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if p := got.Prices["gpt-4o"]; len(got.Prices) != 2 || p != (config.PriceJSON{Input: 2.5, CachedInput: 2.5, CacheWrite: 2.5, Output: 10, BatchDiscount: 0.5, Source: "file", File: e.path, Line: 3}) {
		t.Errorf("--json prices: %+v", got.Prices)
	}
}

// Without a file, config show says where it would be read from.
func TestRunConfigShowNoFile(t *testing.T) {
	e := newConfigEnv(t, "")
	cfg, err := showConfig(t, e)
	if err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	ios.SetEnv(func(k string) string { return e.vars[k] })
	if err := runConfigShow(&ConfigShowOptions{IO: ios, Config: cfg}); err != nil {
		t.Fatal(err)
	}
	if line, _, _ := strings.Cut(out.String(), "\n"); !regexp.MustCompile(`^file +~/cfg/agentloop/config\.yaml +not there$`).MatchString(line) {
		t.Errorf("first line %q", line)
	}
}
