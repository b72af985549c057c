//go:build !linux

package sandbox

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

func unsupported() string { return "Landlock is Linux only; tools run unrestricted here" }
