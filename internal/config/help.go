package config

import (
	"fmt"
	"strings"
)

// fileOnly says what the keys without a variable or a flag hold.
var fileOnly = map[string]string{
	"models":             "model names offered by shell completion",
	"context_keep_tools": "tools whose results are never cleared",
	"mcp_servers":        "MCP servers whose tools are offered",
}

// KeysHelp lists the keys of the file with their variables and
// flags, from the table of keys, for config --help.
func KeysHelp() string {
	var b strings.Builder
	for _, k := range Keys {
		switch {
		case k.Env == "" && k.Flag == "":
			fmt.Fprintf(&b, "  %-22s (file only) %s\n", k.Name, fileOnly[k.Name])
		case k.Flag == "":
			fmt.Fprintf(&b, "  %-22s %s\n", k.Name, k.Env)
		default:
			fmt.Fprintf(&b, "  %-22s %-32s --%s\n", k.Name, k.Env, k.Flag)
		}
	}
	fmt.Fprintf(&b, "  %-22s (file only) prices of models, per million tokens\n", "prices")
	fmt.Fprintf(&b, "  %-22s (file only) named sets of the keys above", "profiles")
	return b.String()
}
