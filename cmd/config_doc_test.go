package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/config"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

// docs/configuration.md is checked against the code: its example file loads,
// its console examples print what they say, and every key and variable is
// documented.

func readConfigDoc(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fencedBlocks returns the bodies of the doc's ```lang blocks.
func fencedBlocks(doc, lang string) []string {
	var out []string
	rest := doc
	for {
		i := strings.Index(rest, "```"+lang+"\n")
		if i < 0 {
			return out
		}
		rest = rest[i+len(lang)+4:]
		j := strings.Index(rest, "```")
		if j < 0 {
			return out
		}
		out = append(out, rest[:j])
		rest = rest[j+3:]
	}
}

func TestConfigDocExample(t *testing.T) {
	doc := readConfigDoc(t)
	blocks := fencedBlocks(doc, "yaml")
	if len(blocks) == 0 {
		t.Fatal("no yaml block in docs/configuration.md")
	}
	cf, probs := config.ParseFile("config.yaml", []byte(blocks[0]), "/home/me")
	if len(probs) > 0 {
		t.Fatalf("the example does not load:\n%s", probs)
	}
	if _, ok := cf.Profiles["ollama"]; !ok {
		t.Error("the example has no ollama profile")
	}

	home := t.TempDir()
	cfgPath := filepath.Join(home, ".config", "agentloop", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfgPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, []byte(blocks[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	consoles := fencedBlocks(doc, "console")
	if len(consoles) == 0 {
		t.Fatal("no console block")
	}
	for _, block := range consoles {
		cmdLine, want, _ := strings.Cut(block, "\n")
		t.Run(cmdLine, func(t *testing.T) {
			cmdLine, jqPath, _ := strings.Cut(strings.TrimPrefix(cmdLine, "$ "), " | jq ")
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			words := strings.Fields(cmdLine)
			for len(words) > 0 && strings.Contains(words[0], "=") {
				k, v, _ := strings.Cut(words[0], "=")
				env[k] = v
				words = words[1:]
			}
			if len(words) == 0 || words[0] != "agentloop" {
				t.Fatalf("not an agentloop command: %q", cmdLine)
			}
			ios, _, out, errOut := iostreams.Test()
			ios.SetEnv(func(k string) string { return env[k] })
			if code := Execute(context.Background(), ios, words[1:]); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := strings.ReplaceAll(out.String(), home, "/home/me")
			if jqPath != "" {
				got = jq(t, got, jqPath)
			}
			if got != want {
				t.Errorf("docs/configuration.md says\n%s\nthe command prints\n%s", want, got)
			}
		})
	}
}

// jq applies a path like .settings.model as jq prints it: indented by two,
// keys in the document's order.
func jq(t *testing.T, doc, path string) string {
	t.Helper()
	raw := json.RawMessage(doc)
	for _, k := range strings.Split(strings.TrimPrefix(path, "."), ".") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s at %s: %v", path, k, err)
		}
		raw = m[k]
	}
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	return out.String() + "\n"
}

func TestConfigDocCoversEveryKey(t *testing.T) {
	doc := readConfigDoc(t)
	for _, k := range config.Keys {
		if !strings.Contains(doc, "`"+k.Name+"`") {
			t.Errorf("docs/configuration.md does not document %s", k.Name)
		}
		if k.Env != "" && !strings.Contains(doc, "`"+k.Env+"`") {
			t.Errorf("docs/configuration.md does not name %s", k.Env)
		}
		if k.Flag != "" && !strings.Contains(doc, "`--"+k.Flag+"`") {
			t.Errorf("docs/configuration.md does not name --%s", k.Flag)
		}
	}
	for _, s := range []string{"`profiles`", "`" + config.ProfileEnv + "`", "`--profile`"} {
		if !strings.Contains(doc, s) {
			t.Errorf("docs/configuration.md does not name %s", s)
		}
	}
}

// config --help lists every key with its variable and flag, in lines that
// fit 80 columns.
func TestConfigHelpNamesEveryKey(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	help := newCmdConfig(ios).Long
	for _, k := range config.Keys {
		re := regexp.MustCompile(`(?m)^  ` + k.Name + ` +` + regexp.QuoteMeta(k.Env))
		if !re.MatchString(help) {
			t.Errorf("config --help does not list %s with %q", k.Name, k.Env)
		}
		if k.Flag != "" && !regexp.MustCompile(`(?m)^  `+k.Name+` .*--`+k.Flag+`$`).MatchString(help) {
			t.Errorf("config --help does not give %s its flag --%s", k.Name, k.Flag)
		}
	}
	for _, line := range strings.Split(help, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
}
