package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// minHelpWidth keeps flag help readable on a very narrow terminal.
const minHelpWidth = 40

// wrapHelp makes --help wrap the flags' descriptions to the terminal width
// (80 columns when stdout is not a terminal): cobra's usage template, with
// each flag list written by pflag's FlagUsagesWrapped.
func wrapHelp(root *cobra.Command, width int) {
	width = max(width, minHelpWidth)
	t := strings.ReplaceAll(root.UsageTemplate(), ".FlagUsages ", fmt.Sprintf(".FlagUsagesWrapped %d ", width))
	root.SetUsageTemplate(t)
}
