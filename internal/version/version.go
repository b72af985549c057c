// Package version holds the version stamped into the binary at build time
// (make build does it). It imports nothing, so that internal/early can read
// it while the program is still initialising.
package version

// stamped is set with
// -ldflags "-X github.com/agentloop/agentloop/internal/version.stamped=v1.2.3".
var stamped = ""

// Stamped returns the version set at build time, or "" when none was.
func Stamped() string { return stamped }
