// Command mangen writes agentloop's man pages, one per command, from the
// command tree's help:
//
//	go run ./internal/mangen man    # make man
//
// The date in each page is $SOURCE_DATE_EPOCH when set, so that a build
// can reproduce the pages; it is not linked into agentloop itself.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/agentloop/agentloop/cmd"
	"github.com/agentloop/agentloop/pkg/iostreams"
)

func main() {
	dir := "man"
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: mangen [DIR]")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		dir = os.Args[1]
	}
	if err := generate(dir); err != nil {
		fmt.Fprintln(os.Stderr, "mangen:", err)
		os.Exit(1)
	}
}

// generate writes agentloop.1, agentloop-run.1, ... into dir.
func generate(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ios, _, _, _ := iostreams.Test()
	root := cmd.NewRootCmd(ios)
	// The pages say nothing of how they were made, so a rebuild from the
	// same source gives the same files.
	var quiet func(c *cobra.Command)
	quiet = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, sub := range c.Commands() {
			quiet(sub)
		}
	}
	quiet(root)
	header := &doc.GenManHeader{Section: "1", Source: "agentloop " + cmd.Version(), Manual: "agentloop manual"}
	return doc.GenManTree(root, header, dir)
}
