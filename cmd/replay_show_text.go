package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/agentloop/agentloop/pkg/transcript"
)

// usageText writes token counts for a reader.
func usageText(u transcript.Usage) string {
	s := fmt.Sprintf("%d in / %d out", u.InputTokens, u.OutputTokens)
	if u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
		s += fmt.Sprintf(" (cache %d read, %d written)", u.CacheReadInputTokens, u.CacheCreationInputTokens)
	}
	return s
}

// byteSize writes a size for a reader.
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// nonEmpty drops the empty strings.
func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// toolNames reads the names of wire-form tool definitions of either shape.
func toolNames(defs []json.RawMessage) []string {
	var names []string
	for _, raw := range defs {
		var t struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Name == "" {
			t.Name = t.Function.Name
		}
		names = append(names, t.Name)
	}
	return names
}
