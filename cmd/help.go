package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentloop/agentloop/internal/termtext"
)

// minHelpWidth keeps flag help readable on a very narrow terminal.
const minHelpWidth = 40

// wrapHelp makes --help wrap the commands' and flags' descriptions to the
// terminal width (80 columns when stdout is not a terminal): cobra's usage
// template, with each flag list written by pflag's FlagUsagesWrapped, and
// its help template with the description through wrapText.
func wrapHelp(root *cobra.Command, width int) {
	width = max(width, minHelpWidth)
	t := strings.ReplaceAll(root.UsageTemplate(), ".FlagUsages ", fmt.Sprintf(".FlagUsagesWrapped %d ", width))
	root.SetUsageTemplate(t)
	root.SetHelpTemplate(fmt.Sprintf(helpTemplate, width))
}

// helpTemplate is cobra's help template with the description wrapped by
// wrapText to the width given.
const helpTemplate = `{{with (or .Long .Short)}}{{wrapText %d . | trimTrailingWhitespaces}}

{{end}}{{if or .Runnable .HasSubCommands}}{{.UsageString}}{{end}}`

func init() { cobra.AddTemplateFunc("wrapText", termtext.Wrap) }
