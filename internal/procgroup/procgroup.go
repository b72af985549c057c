// Package procgroup ends the programs agentloop starts, each the leader
// of a process group of its own: the program and whatever it started, on
// time, and all of them at once when agentloop must exit now.
package procgroup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Grace is how long a process group has between SIGTERM and SIGKILL.
const Grace = 500 * time.Millisecond

// running holds the process groups this process has started and not yet
// ended: tools' and MCP servers'.
var running struct {
	// starting is held for reading while a program starts, until its group
	// is tracked, and for writing by KillAll: a program that has started
	// running cannot be missed by it.
	starting sync.RWMutex
	mu       sync.Mutex
	groups   map[int]struct{}
}

// Start runs start, which starts a program as the leader of a new process
// group and returns its id, and tracks the group.
func Start(start func() (pgid int, err error)) error {
	running.starting.RLock()
	defer running.starting.RUnlock()
	pgid, err := start()
	if err == nil {
		Track(pgid)
	}
	return err
}

// Track records a group started.
func Track(pgid int) {
	running.mu.Lock()
	defer running.mu.Unlock()
	if running.groups == nil {
		running.groups = map[int]struct{}{}
	}
	running.groups[pgid] = struct{}{}
}

// Untrack forgets a group that has ended.
func Untrack(pgid int) {
	running.mu.Lock()
	defer running.mu.Unlock()
	delete(running.groups, pgid)
}

// KillAll sends SIGKILL to every group still running and returns how many
// there were. It is for a process about to exit without the usual cleanup
// (a second Ctrl-C): tools and servers run in process groups of their own,
// which a terminal's signals do not reach, so they would otherwise go on
// running with nobody left to stop them.
func KillAll() int {
	running.starting.Lock()
	defer running.starting.Unlock()
	running.mu.Lock()
	defer running.mu.Unlock()
	for pgid := range running.groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return len(running.groups)
}

// Stop ends a program that is still running: SIGTERM to its whole group,
// then, if the leader has not exited within Grace, SIGKILL to the group.
// It returns once waited is closed (the leader has been reaped); the rest
// of a group whose leader exited on SIGTERM is left to Sweep.
func Stop(leader *os.Process, pgid int, waited <-chan struct{}) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	_ = leader.Signal(syscall.SIGTERM) // in case it left its group
	grace := time.NewTimer(Grace)
	defer grace.Stop()
	select {
	case <-waited:
		return
	case <-grace.C:
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	_ = leader.Kill()
	<-waited
}

// Sweep ends whatever is left in a group whose leader has exited:
// SIGTERM, then SIGKILL after Grace.
func Sweep(pgid int) {
	if !Alive(pgid) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(Grace)
	for time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		if !Alive(pgid) {
			return
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Alive reports whether a process group has a live member. Zombies
// count as gone: they run nothing and are reaped by their new parent.
func Alive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	live, err := LiveMember(pgid)
	if err != nil {
		return true // no /proc: trust kill(2)
	}
	return live
}

// LiveMember reports from /proc whether a process group has a live (not
// zombie) process.
func LiveMember(pgid int) (bool, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue // not a process
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it exited meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parens.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid, pgrp int
		if _, err := fmt.Sscan(string(stat[i+1:]), &state, &ppid, &pgrp); err != nil {
			continue
		}
		if pgrp == pgid && state != "Z" && state != "X" {
			return true, nil
		}
	}
	return false, nil
}

// LookPath finds an executable file on a PATH list, for a tool or a
// server to be started. Relative entries are skipped: what runs must not be
// whatever a working directory happens to hold.
func LookPath(name, pathList string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if syscall.Access(p, 1 /* X_OK */) == nil {
			return p, nil
		}
	}
	return "", fs.ErrNotExist
}
