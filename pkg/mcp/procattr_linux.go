package mcp

import "syscall"

// serverProcAttr starts a stdio server in a process group of its own, to
// be stopped whole, and has the kernel send it SIGTERM should agentloop
// die without stopping it (kill -9).
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
