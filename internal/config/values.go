package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentloop/agentloop/pkg/mcp"
	"github.com/agentloop/agentloop/pkg/transcript"
)

// How values are written and read, wherever they come from.

const durationHint = "not a duration: write a number and a unit, e.g. 30s, 5m or 1h"

// shownValue writes a value as an error message quotes it.
func shownValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(transcript.RedactURL(v))
	case []string:
		return "[" + strings.Join(v, ", ") + "]"
	case []*mcp.Config:
		names := make([]string, len(v))
		for i, c := range v {
			names[i] = c.Name
		}
		return "[" + strings.Join(names, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// ExpandHome expands a leading ~ to the home folder.
func ExpandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// TildePath writes a path under home with ~.
func TildePath(p, home string) string {
	if home == "" || home == "/" {
		return p
	}
	home = filepath.Clean(home)
	if p == home {
		return "~"
	}
	if rest, ok := strings.CutPrefix(p, home+string(filepath.Separator)); ok {
		return "~/" + rest
	}
	return p
}
