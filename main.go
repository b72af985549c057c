// Command agentloop runs the ReAct tool-calling loop from a shell.
package main

import (
	"os"

	"github.com/agentloop/agentloop/cmd"
	// Answers --version and --help while the other packages initialise.
	_ "github.com/agentloop/agentloop/internal/early"
)

func main() { os.Exit(cmd.Main()) }
