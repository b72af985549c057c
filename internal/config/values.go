package config

import (
	"errors"
	"fmt"
	"math"
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
		// An empty entry is shown as one: [a, ""], not [a, ].
		shown := make([]string, len(v))
		for i, s := range v {
			shown[i] = s
			if s == "" {
				shown[i] = `""`
			}
		}
		return "[" + strings.Join(shown, ", ") + "]"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case []*mcp.Config:
		names := make([]string, len(v))
		for i, c := range v {
			names[i] = c.Name
		}
		return "[" + strings.Join(names, ", ") + "]"
	}
	return fmt.Sprint(v)
}

const numberHint = "not a number: write it in decimal, e.g. 0.50"

// parseNumber reads a decimal number: digits and a point, no sign of a
// currency, no exponent, nothing that is not finite.
func parseNumber(raw string) (float64, error) {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(raw, "eExXpP_") {
		return 0, errors.New(numberHint)
	}
	return f, nil
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
