//go:build !linux

package sandbox

// Prepare never returns a launch here (ABI is 0), so the launcher is
// never started.
