//go:build !linux

package mcp

import "syscall"

// serverProcAttr starts a stdio server in a session of its own: a process
// group to be stopped whole, and no controlling terminal to write to or
// read from behind agentloop's back (as tools run). Only Linux has a
// parent-death signal: elsewhere a server outlives an agentloop killed
// with SIGKILL.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
