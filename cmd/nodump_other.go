//go:build !linux

package cmd

// protectSecrets does nothing where there is no /proc to read another
// process's environment through; docs/tools.md says what other systems
// show of it.
func protectSecrets() error { return nil }
