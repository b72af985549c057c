package tools

import (
	"os/exec"
	"sync"
	"syscall"
)

// running holds the process groups of the tools this process has started
// and not yet ended, across all Registries.
var running struct {
	// starting is held for reading while a tool starts, until its group is
	// tracked, and for writing by KillRunning: a tool that has started
	// running cannot be missed by it.
	starting sync.RWMutex
	mu       sync.Mutex
	groups   map[int]struct{}
}

// startTracked starts a tool's process, the leader of a new process group,
// and tracks the group.
func startTracked(start func() (*exec.Cmd, error)) (*exec.Cmd, error) {
	running.starting.RLock()
	defer running.starting.RUnlock()
	cmd, err := start()
	if err == nil {
		trackGroup(cmd.Process.Pid)
	}
	return cmd, err
}

func trackGroup(pgid int) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.groups == nil {
		running.groups = map[int]struct{}{}
	}
	running.groups[pgid] = struct{}{}
}

func untrackGroup(pgid int) {
	running.mu.Lock()
	defer running.mu.Unlock()
	delete(running.groups, pgid)
}

// KillRunning sends SIGKILL to the process group of every tool still
// running and returns how many there were. It is for a process about to
// exit without the usual cleanup (a second Ctrl-C): tools run in process
// groups of their own, which a terminal's signals do not reach, so they
// would otherwise go on running with nobody left to stop them.
func KillRunning() int {
	running.starting.Lock()
	defer running.starting.Unlock()
	running.mu.Lock()
	defer running.mu.Unlock()
	for pgid := range running.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return len(running.groups)
}
