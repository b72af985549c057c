package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Code blocks of the docs preceded by <!-- file: NAME --> are written into
// every script's $WORK/doc/NAME, so the doc_*.txtar scripts run the
// examples exactly as the docs show them.
var (
	docBlocksOnce sync.Once
	docBlocks     map[string]string
	docBlocksErr  error
	docBlockRE    = regexp.MustCompile("(?s)<!-- file: ([\\w.-]+) -->\\s*```[a-z]*\\n(.*?)```")
)

func loadDocBlocks() (map[string]string, error) {
	docBlocksOnce.Do(func() {
		docBlocks = map[string]string{}
		files, _ := filepath.Glob("docs/*.md")
		for _, f := range append([]string{"README.md"}, files...) {
			b, err := os.ReadFile(f)
			if err != nil {
				docBlocksErr = err
				return
			}
			for _, m := range docBlockRE.FindAllSubmatch(b, -1) {
				docBlocks[string(m[1])] = string(m[2])
			}
		}
	})
	return docBlocks, docBlocksErr
}

func writeDocBlocks(dir string) error {
	blocks, err := loadDocBlocks()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "doc"), 0o755); err != nil {
		return err
	}
	for name, body := range blocks {
		if err := os.WriteFile(filepath.Join(dir, "doc", name), []byte(body), 0o755); err != nil {
			return err
		}
	}
	return nil
}

func TestDocBlocksFound(t *testing.T) {
	blocks, err := loadDocBlocks()
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
	prefix := regexp.MustCompile(`^(OPENAI_API_KEY=\S+ )?(git diff \| )?`)
	found := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		cmd := strings.TrimSpace(line)
		if i := strings.Index(cmd, "   #"); i >= 0 {
			cmd = strings.TrimSpace(cmd[:i])
		}
		cmd = prefix.ReplaceAllString(cmd, "")
		cmd = strings.Replace(cmd, "go run . ", "agentloop ", 1)
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
}
