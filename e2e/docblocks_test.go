package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentloop/agentloop/internal/scripttest"
	"github.com/agentloop/agentloop/pkg/tools"
)

func TestDocBlocksFound(t *testing.T) {
	blocks, err := scripttest.DocBlocks()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ci-ask.sh", "ci-replay.sh"} {
		if _, ok := blocks[want]; !ok {
			t.Errorf("no doc block %s", want)
		}
	}
}

// Every command the README shows is run, as written, by doc_readme.txtar.
func TestReadmeExamplesAreScripted(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/script/doc_readme.txtar")
	if err != nil {
		t.Fatal(err)
	}
	// A command may build first (make build && …) and run the binary
	// it made (bin/agentloop), which the script runs as agentloop.
	prefix := regexp.MustCompile(`^(make build && )?(OPENAI_API_KEY=\S+ )?(git diff \| )?`)
	found := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		cmd := strings.TrimSpace(line)
		if i := strings.Index(cmd, "   #"); i >= 0 {
			cmd = strings.TrimSpace(cmd[:i])
		}
		// go run . builds in a configuration of its own (cgo on, paths
		// kept): on a fresh machine, every package compiled again after
		// make build compiled them.
		if strings.HasPrefix(cmd, "go run . ") || strings.Contains(cmd, " go run . ") {
			t.Errorf("README command runs go run .; run bin/agentloop, which make build made: %s", cmd)
		}
		cmd = prefix.ReplaceAllString(cmd, "")
		cmd = strings.Replace(cmd, "bin/agentloop ", "agentloop ", 1)
		if !strings.HasPrefix(cmd, "agentloop ") {
			continue
		}
		found++
		if !strings.Contains(string(script), "exec "+cmd+"\n") && !strings.Contains(string(script), " "+cmd+"\n") {
			t.Errorf("README example not run by testdata/script/doc_readme.txtar: %s", cmd)
		}
	}
	if found < 8 {
		t.Errorf("only %d README examples found", found)
	}
	// The first command on a fresh machine builds as make build does, and
	// the README says how long that takes.
	setup := regexp.MustCompile("(?s)## Set up on a fresh machine\n.*?\n    (\\S[^\n]*)").FindSubmatch(readme)
	if setup == nil || !strings.HasPrefix(string(setup[1]), "make build && bin/agentloop ") {
		t.Errorf("the README's first command on a fresh machine is not make build && bin/agentloop …: %q", setup)
	}
	if !regexp.MustCompile(`first .make build. compiles[^.]*\d+ s of CPU time`).Match(readme) {
		t.Errorf("the README does not say how long the first make build takes")
	}
}

// docs/tools.md: the first tool's definition loads, and the commands of
// "Testing a tool" print what the doc says, run in the repository on its
// tools.d.
func TestToolsDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/tools.md")
	if err != nil {
		t.Fatal(err)
	}
	yamlBlock := regexp.MustCompile("(?s)## A first tool\\s*```yaml\\n(.*?)```").FindSubmatch(doc)
	if yamlBlock == nil {
		t.Fatal("docs/tools.md has no first tool")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "get_weather.yaml"), yamlBlock[1], 0o644)
	os.WriteFile(filepath.Join(dir, "get_weather.sh"), []byte("#!/bin/sh\necho sunny\n"), 0o755)
	if _, err := tools.Load([]string{dir}, tools.Options{}); err != nil {
		t.Errorf("the first tool of docs/tools.md does not load: %v", err)
	}

	section := regexp.MustCompile("(?s)## Testing a tool.*?```console\\n(.*?)```").FindSubmatch(doc)
	if section == nil {
		t.Fatal("docs/tools.md has no console example under Testing a tool")
	}
	type example struct {
		cmd  string
		want []string
	}
	var examples []example
	for _, line := range strings.Split(string(section[1]), "\n") {
		switch {
		case strings.HasPrefix(line, "$ "):
			examples = append(examples, example{cmd: strings.TrimPrefix(line, "$ ")})
		case line != "" && line != "..." && len(examples) > 0:
			last := &examples[len(examples)-1]
			last.want = append(last.want, line)
		}
	}
	if len(examples) < 5 {
		t.Fatalf("only %d examples found", len(examples))
	}
	home := t.TempDir()
	for _, ex := range examples {
		c := exec.Command("sh", "-c", ex.cmd)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_STATE_HOME=" + home, "NO_COLOR=1"}
		out, _ := c.CombinedOutput()
		for _, w := range ex.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("$ %s\nprints:\n%s\nwhich lacks the doc's line:\n%s", ex.cmd, out, w)
			}
		}
	}
}
