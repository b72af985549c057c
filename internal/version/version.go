// Package version holds the version stamped into the binary at build time
// (make build does it). It imports nothing of the project, so that
// internal/early can read it while the program is still initialising.
package version

import "runtime/debug"

// stamped is set with
// -ldflags "-X github.com/agentloop/agentloop/internal/version.stamped=v1.2.3".
var stamped = ""

// Stamped returns the version set at build time, or "" when none was.
func Stamped() string { return stamped }

// Of returns the version of this build: the one stamped at build time,
// else the module's (go install ...@v1.2.3), else "dev".
func Of() string {
	if v := Stamped(); v != "" {
		return v
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
