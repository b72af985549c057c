package tools

import "github.com/agentloop/agentloop/internal/bytesize"

// parseSize reads a byte count such as "512", "16KiB", "1MB" or "1.5 MiB".
func parseSize(s string) (int64, error) { return bytesize.Parse(s) }

// formatSize renders n in the largest binary unit that divides it evenly.
func formatSize(n int64) string { return bytesize.Format(n) }
