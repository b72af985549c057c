package cmd

import "golang.org/x/sys/unix"

// protectSecrets makes this process non-dumpable, as ssh-agent and gpg-agent
// do: its /proc files (environ, mem, the fds) become readable only by
// root, and no process without CAP_SYS_PTRACE may trace it, so a tool
// running as the same user, or anything it starts, cannot read the API key
// from agentloop's environment or memory. Tools are not affected: exec
// makes a program dumpable again. Nor is this process's own reading of
// /proc/self. The price is no core dump on a crash, which would hold the
// key too.
func protectSecrets() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
