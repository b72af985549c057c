// Command agentloop runs the ReAct tool-calling loop from a shell.
package main

import (
	"os"

	"github.com/agentloop/agentloop/cmd"
)

func main() { os.Exit(cmd.Main()) }
