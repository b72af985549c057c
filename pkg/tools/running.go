package tools

import (
	"sync"
	"syscall"
)

// running holds the process groups of the tools this process has started
// and not yet ended, across all Registries.
var running struct {
	mu     sync.Mutex
	groups map[int]struct{}
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
	running.mu.Lock()
	defer running.mu.Unlock()
	for pgid := range running.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return len(running.groups)
}
