package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// init turns agentloop, started as the launcher, into the tool it is to
// run. It is here, not in the command tree, so that it runs as soon as
// this package is initialised, before the packages of the model APIs are,
// and in every binary that starts tools (a test binary too).
func init() {
	if len(os.Args) > 1 && os.Args[0] == launcherName {
		os.Exit(launch(os.Args[1:]))
	}
}

// launch restricts this process as the spec says and executes the program
// in its place; it returns only when it cannot, with the exit status.
func launch(args []string) int {
	s, err := parseSpec(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "agentloop: sandbox launcher: %v\n", err)
		return 126
	}
	if err := restrict(s); err != nil {
		fmt.Fprintf(os.Stderr, "agentloop: sandbox: %v\n", err)
		return 126
	}
	// The report pipe closes with the exec; if the exec fails, the errno
	// goes through it, for the caller to tell a program that could not
	// start from one that failed.
	if s.report {
		syscall.CloseOnExec(reportFD)
	}
	for attempt := range 5 {
		err = syscall.Exec(s.path, s.argv, os.Environ())
		if !errors.Is(err, syscall.ETXTBSY) {
			break
		}
		// Another process forked while the script was open for writing.
		time.Sleep(time.Duration(attempt+1) * 10 * time.Millisecond)
	}
	var errno syscall.Errno
	if s.report && errors.As(err, &errno) {
		if _, werr := syscall.Write(reportFD, []byte(strconv.Itoa(int(errno)))); werr == nil {
			return 127
		}
	}
	fmt.Fprintf(os.Stderr, "agentloop: cannot start the tool: %s: %v\n", s.path, err)
	if errors.Is(err, fs.ErrNotExist) {
		return 127
	}
	return 126
}

// presets are go-landlock's configurations of each ABI, 1 first. ABI 8
// and later add rights (pathname UNIX sockets, UDP) that this sandbox
// does not give out rules for, so its rights are the last used.
var presets = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8}

// systemDirs are read, and their programs run, even when a read: list
// limits reads: what a program needs to start and to run.
var systemDirs = []string{"/bin", "/sbin", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc", "/nix/store"}

// devices are written in every mode: programs open them for writing as a
// matter of course (2>/dev/null).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// restrict applies the spec's Landlock domain to the calling thread, which
// stays locked to the goroutine until the exec replaces the process: a
// domain applied to one thread before execve is the new program's, and
// applying it to all threads of a Go process is not needed for that.
func restrict(s *spec) error {
	if s.abi <= 0 {
		return nil
	}
	base := presets[min(s.abi, len(presets))-1]
	cfg := landlock.Config{HandledAccessFS: base.HandledAccessFS, Scoped: base.Scoped}
	if !s.net.Any {
		cfg.HandledAccessNet = base.HandledAccessNet
	}
	rules, err := s.rules()
	if err != nil {
		return err
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return errors.New("the kernel took no Landlock rules")
	}
	runtime.LockOSThread() // never unlocked: the exec follows
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return syscall.Close(fd)
}

// rules are the spec's grants.
func (s *spec) rules() ([]landlock.Rule, error) {
	var rules []landlock.Rule
	if s.readAll {
		rules = append(rules, landlock.RODirs("/"))
	} else {
		rules = append(rules, landlock.RODirs(systemDirs...).IgnoreIfMissing())
		for _, r := range s.read {
			if rule, ok := s.grant(r, false); ok {
				rules = append(rules, rule)
			}
		}
	}
	rules = append(rules, landlock.RWFiles(devices...).IgnoreIfMissing())
	write := append([]string{s.tmp}, s.write...)
	if s.mode == WorkspaceWrite {
		write = append(write, workspace(s.dir)...)
	}
	for _, w := range write {
		if rule, ok := s.grant(w, true); ok {
			rules = append(rules, rule)
		}
	}
	for _, p := range s.net.Ports {
		rules = append(rules, landlock.ConnectTCP(p))
	}
	return rules, nil
}

// grant is the rule for reading, or writing, a folder or a file; a path
// that does not exist gets none.
func (s *spec) grant(path string, write bool) (landlock.Rule, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false
	}
	switch {
	case fi.IsDir() && write:
		r := landlock.RWDirs(path)
		if s.abi >= 2 {
			// Moving files between folders of the workspace.
			r = r.WithRefer()
		}
		return r, true
	case fi.IsDir():
		return landlock.RODirs(path), true
	case write:
		return landlock.RWFiles(path), true
	}
	return landlock.ROFiles(path), true
}

// workspace is what workspace-write writes of the working directory dir:
// all of it, or, when it holds a .git, each of its entries but .git.
// Landlock grants a folder with everything under it and cannot take a
// subfolder back, so .git is kept read-only by not granting dir itself:
// new files go into its existing subfolders, and its own files are
// written in place, but nothing new is made directly in it. Symbolic links
// are not followed out of it.
func workspace(dir string) []string {
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return []string{dir}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Name() == ".git" || e.Type()&(fs.ModeSymlink|fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}
