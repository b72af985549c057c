package scripttest

import (
	"os"
	"path/filepath"
	"regexp"
	"sync"
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

// DocBlocks are the code blocks of README.md and docs/*.md (read from the
// current folder, the repository's root) by the names their markers give.
func DocBlocks() (map[string]string, error) {
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

// WriteDocBlocks writes every doc block into dir/doc.
func WriteDocBlocks(dir string) error {
	blocks, err := DocBlocks()
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
