package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// launcherName is argv[0] of agentloop started as the launcher: the
// program that restricts itself and executes the tool (see init).
const launcherName = "agentloop-sandbox"

// reportFD is the launcher's descriptor of the pipe its caller reads to
// learn whether the program started (Launch.Report).
const reportFD = 3

// selfExe is agentloop's own binary as a child sees it: the file this
// process runs, even if it has since been replaced or removed.
const selfExe = "/proc/self/exe"

// spec is what the launcher is told, on its command line: the Landlock ABI
// to use, the policy with its paths made absolute, and the program.
type spec struct {
	abi     int
	mode    Mode
	dir     string // the working directory (workspace-write)
	tmp     string // the private TMPDIR
	write   []string
	readAll bool
	read    []string
	net     Network
	path    string   // the program
	argv    []string // its argv
	// report: descriptor 3 is the pipe to write the errno of a failed exec
	// to (Launch.Report).
	report bool
}

// args writes the spec as the launcher's arguments, after argv[0].
func (s *spec) args() []string {
	a := []string{"abi=" + strconv.Itoa(s.abi), "mode=" + string(s.mode), "dir=" + s.dir, "tmp=" + s.tmp}
	for _, w := range s.write {
		a = append(a, "write="+w)
	}
	if s.readAll {
		a = append(a, "read-all")
	}
	for _, r := range s.read {
		a = append(a, "read="+r)
	}
	switch {
	case s.net.Any:
		a = append(a, "net=any")
	default:
		ports := make([]string, len(s.net.Ports))
		for i, p := range s.net.Ports {
			ports[i] = strconv.Itoa(int(p))
		}
		a = append(a, "net="+strings.Join(ports, ","))
	}
	a = append(a, "--", s.path)
	return append(a, s.argv...)
}

// parseSpec reads the launcher's arguments back.
func parseSpec(args []string) (*spec, error) {
	s := &spec{}
	for i, a := range args {
		if a == "--" {
			rest := args[i+1:]
			if len(rest) < 2 {
				return nil, fmt.Errorf("no program to run")
			}
			s.path, s.argv = rest[0], rest[1:]
			return s, nil
		}
		if a == "read-all" {
			s.readAll = true
			continue
		}
		if a == "report" {
			s.report = true
			continue
		}
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("bad argument %q", a)
		}
		var err error
		switch k {
		case "abi":
			s.abi, err = strconv.Atoi(v)
		case "mode":
			s.mode, err = ParseMode(v)
		case "dir":
			s.dir = v
		case "tmp":
			s.tmp = v
		case "write":
			s.write = append(s.write, v)
		case "read":
			s.read = append(s.read, v)
		case "net":
			s.net, err = parsePorts(v)
		default:
			err = fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("no program to run")
}

func parsePorts(v string) (Network, error) {
	if v == "any" {
		return Network{Any: true}, nil
	}
	var n Network
	if v == "" {
		return n, nil
	}
	for p := range strings.SplitSeq(v, ",") {
		port, err := strconv.ParseUint(p, 10, 16)
		if err != nil {
			return n, fmt.Errorf("bad port %q", p)
		}
		n.Ports = append(n.Ports, uint16(port))
	}
	return n, nil
}

// Launch is how to start a program under a policy: the launcher, given
// the program, and the environment with the private TMPDIR.
type Launch struct {
	Path string
	Args []string
	Env  []string
	// Tmp is the private temporary folder of the process, removed by
	// Close.
	Tmp string
	// report and reportW are the pipe of Report.
	report, reportW *os.File
}

// Report makes the launcher say whether the program started: it returns
// the write end of a pipe to give the launcher as its descriptor 3
// (exec.Cmd.ExtraFiles); once the launcher is started, StartError tells.
// Without it, a launcher that cannot execute the program says so on
// stderr and exits 127 (or 126).
func (l *Launch) Report() (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	l.report, l.reportW = r, w
	l.Args = append([]string{l.Args[0], "report"}, l.Args[1:]...)
	return w, nil
}

// StartError waits until the launcher has executed the program, and
// returns why it could not (as exec.Cmd.Start would have), or nil.
func (l *Launch) StartError() error {
	_ = l.reportW.Close() // the launcher's copy is all that is left
	defer l.report.Close()
	b := make([]byte, 16)
	n, _ := l.report.Read(b)
	if n == 0 {
		return nil // closed by the exec
	}
	errno, err := strconv.Atoi(string(b[:n]))
	if err != nil {
		return fmt.Errorf("the sandbox launcher reported %q", b[:n])
	}
	return &os.PathError{Op: "exec", Path: "", Err: syscall.Errno(errno)}
}

// Close removes the private temporary folder and all it holds.
func (l *Launch) Close() error {
	if l == nil {
		return nil
	}
	for _, f := range []*os.File{l.reportW, l.report} {
		if f != nil {
			_ = f.Close()
		}
	}
	if l.Tmp == "" {
		return nil
	}
	return os.RemoveAll(l.Tmp)
}

// Prepare says how to start the program at path, with argv and env, in
// the working directory dir, under p: through the launcher, with a private
// TMPDIR made for it. It returns nil when there is nothing to enforce (the
// mode is off, or the kernel has no Landlock): the program is then started
// as it is.
func (s Settings) Prepare(p Policy, dir, path string, argv, env []string) (*Launch, error) {
	abi := s.abi()
	if p.Mode == Off || abi == 0 {
		return nil, nil
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("sandbox: working directory: %w", err)
		}
		dir = wd
	}
	tmp, err := os.MkdirTemp(tmpRoot(env), "agentloop-tool-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: private TMPDIR: %w", err)
	}
	sp := &spec{abi: abi, mode: p.Mode, dir: dir, tmp: tmp, write: p.Write, readAll: p.Read == nil, read: p.Read, net: p.Network, path: path, argv: argv}
	if sp.readAll {
		sp.read = nil
	} else {
		// The program itself and the folder it is in (a tools folder, with
		// the helpers its scripts source) are read, whatever read: says.
		sp.read = append(append([]string(nil), p.Read...), filepath.Dir(path))
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR="+tmp)
	return &Launch{Path: selfExe, Args: append([]string{launcherName}, sp.args()...), Env: out, Tmp: tmp}, nil
}

// tmpRoot is where private temporary folders are made: the TMPDIR the tool
// would have had, else the system's.
func tmpRoot(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && filepath.IsAbs(v) {
			return v
		}
	}
	return os.TempDir()
}
