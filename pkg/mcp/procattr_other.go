//go:build !linux

package mcp

import "syscall"

// serverProcAttr starts a stdio server in a process group of its own, to
// be stopped whole. Only Linux has a parent-death signal: elsewhere a
// server outlives an agentloop killed with SIGKILL.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
