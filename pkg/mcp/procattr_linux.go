package mcp

import "syscall"

// serverProcAttr starts a stdio server in a session of its own: a process
// group to be stopped whole, and no controlling terminal to write to or
// read from behind agentloop's back (as tools run). The kernel sends it
// SIGTERM should agentloop die without stopping it (kill -9).
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
}
