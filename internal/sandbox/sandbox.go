// Package sandbox restricts what a tool process may write and connect to,
// with Landlock: an unprivileged Linux security module that a process
// applies to itself and that every program it then runs inherits.
//
// Go cannot run code between fork and exec, so a tool is not started
// directly: agentloop starts itself as a small launcher (see Launch) that
// restricts itself and then executes the tool's program in its place.
// Enforcement is best effort by the kernel's Landlock ABI: Check says what
// a policy gets on this kernel, and a caller that requires the whole
// policy refuses to run a tool whose Enforcement is not Full.
package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Mode is how much a tool may change.
type Mode string

// The modes, named as Codex names them.
const (
	// Off runs tools with the user's full rights, as agentloop always did.
	Off Mode = "off"
	// ReadOnly lets a tool read anything but write only a private
	// temporary folder, its TMPDIR, made for the call; no TCP.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite is ReadOnly plus writes under the working directory,
	// whose .git stays read-only.
	WorkspaceWrite Mode = "workspace-write"
)

// Modes are the modes in the order of their rights.
var Modes = []Mode{Off, ReadOnly, WorkspaceWrite}

// ParseMode reads a mode as a flag or a setting gives it.
func ParseMode(s string) (Mode, error) {
	if m := Mode(s); slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("%q is not a sandbox mode; use off, read-only or workspace-write", s)
}

// Network says which TCP connections a tool may open.
type Network struct {
	// Any allows every connection and bind, as without a sandbox.
	Any bool
	// Ports are the ports a tool may connect to when not Any; none means
	// no TCP connect or bind at all.
	Ports []uint16
}

// String is the network as a declaration writes it.
func (n Network) String() string {
	switch {
	case n.Any:
		return "true"
	case len(n.Ports) == 0:
		return "false"
	}
	s := make([]string, len(n.Ports))
	for i, p := range n.Ports {
		s[i] = strconv.Itoa(int(p))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Block is a sandbox: block of a tool or MCP server declaration: it widens
// or narrows the run's mode for that tool.
type Block struct {
	// Mode replaces the run's mode when set.
	Mode Mode
	// Write are more paths the tool may write (absolute), beside its
	// TMPDIR and, in workspace-write, the working directory.
	Write []string
	// Read, when not nil, limits reads to these paths (absolute), the
	// paths written, and the system folders a program needs to start.
	Read []string
	// Network, when set, replaces the mode's "no TCP".
	Network *Network
}

// Policy is what one tool process may do.
type Policy struct {
	Mode    Mode
	Write   []string
	Read    []string // nil: everything may be read
	Network Network
}

// Policy is the policy of a tool that declares b under the run's mode.
// A nil block takes the run's mode as it is.
func (b *Block) Policy(run Mode) Policy {
	if run == "" {
		run = Off
	}
	if b == nil {
		return Policy{Mode: run}
	}
	p := Policy{Mode: run, Write: b.Write, Read: b.Read}
	if b.Mode != "" {
		p.Mode = b.Mode
	}
	if b.Network != nil {
		p.Network = *b.Network
	}
	if p.Mode == Off {
		return Policy{Mode: Off}
	}
	return p
}

// restrictsNet reports whether the policy limits TCP.
func (p Policy) restrictsNet() bool { return p.Mode != Off && !p.Network.Any }

// Enforcement says what of a policy this kernel enforces.
type Enforcement struct {
	Mode Mode
	// ABI is the Landlock ABI used; 0 when there is none.
	ABI int
	// FS and TCP say whether the file and the network rules are enforced
	// (TCP is false, and not needed, when the policy allows any).
	FS, TCP bool
	// Full is set when everything the policy asks is enforced (always
	// for Off).
	Full bool
	// Missing says what is not enforced, when not Full.
	Missing string
}

// Landlock ABI versions that brought what a policy needs.
const (
	abiTruncate = 3 // truncate(2) is a write
	abiTCP      = 4
	abiScoped   = 6 // signals and abstract UNIX sockets beyond the domain
)

// Check says what of p the kernel enforces under the settings.
func (s Settings) Check(p Policy) Enforcement {
	return check(p, s.abi())
}

// abi is the Landlock ABI tools are restricted with: the kernel's, or
// less when the settings cap it.
func (s Settings) abi() int {
	abi := ABI()
	if s.Limited && s.Limit < abi {
		abi = max(s.Limit, 0)
	}
	return abi
}

func check(p Policy, abi int) Enforcement {
	e := Enforcement{Mode: p.Mode, ABI: abi}
	if p.Mode == Off {
		e.Full = true
		return e
	}
	if abi <= 0 {
		e.ABI = 0
		e.Missing = unsupported()
		return e
	}
	e.FS = true
	var missing []string
	if abi < abiTruncate {
		missing = append(missing, fmt.Sprintf("truncate(2) is not restricted (needs landlock abi %d)", abiTruncate))
	}
	if p.restrictsNet() {
		if abi >= abiTCP {
			e.TCP = true
		} else {
			missing = append(missing, fmt.Sprintf("tcp not restricted (needs landlock abi %d)", abiTCP))
		}
	}
	e.Missing = strings.Join(missing, "; ")
	e.Full = e.Missing == ""
	return e
}

// String says what is enforced, as tools show, -v and a transcript's
// results say it: "landlock abi 7: fs+tcp", "not enforced: kernel has no
// Landlock", "off".
func (e Enforcement) String() string {
	switch {
	case e.Mode == Off:
		return "off"
	case e.ABI == 0:
		return "not enforced: " + e.Missing
	}
	s := fmt.Sprintf("landlock abi %d: fs", e.ABI)
	if e.TCP {
		s += "+tcp"
	}
	if e.Missing != "" {
		s += "; " + e.Missing
	}
	return s
}

// Describe is the mode with what is enforced of it, as a result records
// it: "read-only (landlock abi 7: fs+tcp)".
func (e Enforcement) Describe() string {
	if e.Mode == Off {
		return string(Off)
	}
	return string(e.Mode) + " (" + e.String() + ")"
}

// Settings are a run's: the mode every tool gets unless its block says
// otherwise, and whether a tool whose policy is not enforced in full is
// refused.
type Settings struct {
	Mode     Mode
	Required bool
	// Limited caps the Landlock ABI used at Limit, below the kernel's:
	// 0 is a kernel without Landlock. It is for tests of what happens on
	// older kernels, and it can only take enforcement away.
	Limited bool
	Limit   int
}

// Refusal says why a tool may not run under settings that require the
// sandbox, or "" when it may.
func (s Settings) Refusal(e Enforcement) string {
	if !s.Required || e.Full {
		return ""
	}
	return fmt.Sprintf("the sandbox is required and %s cannot be enforced in full: %s", e.Mode, e.Missing)
}
