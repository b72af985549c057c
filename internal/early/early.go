// Package early answers the command lines people time a command-line tool
// by, "agentloop --version" and "agentloop --help" (or "-h") alone, while
// the program is still initialising, and exits there. The SDKs of the model
// APIs, the MCP SDK and their dependencies spend 3 to 5 ms initialising
// their packages (GODEBUG=inittrace=1 shows it), more than a Go program
// takes to start; a command that only prints a line or the help need not
// wait for it.
//
// Go initialises packages in the order of their import paths, each one as
// soon as everything it imports is initialised (the language specification,
// "Package initialization"). This package imports only the lowest layers of
// the standard library, so its init runs right after package os's, before
// any of those; main imports it for that effect alone. It must stay so: an
// import of anything heavier makes it wait for the rest.
//
// What it prints is what the command tree prints, byte for byte: cmd's
// TestEarlyHelp compares the two at every width and regenerates help_gen.go
// (go test ./cmd -run TestEarlyHelp -update) when the help has changed.
// Whatever it does not answer, or cannot on this system, is left to the
// command tree, which gives the same answer.
package early

import (
	"os"
	"strconv"

	"github.com/agentloop/agentloop/internal/version"
)

func init() {
	out, ok := answer(os.Args[1:], buildVersion, width)
	if !ok {
		return
	}
	// As the command tree does, output that could not be written (a full
	// disk) exits 1 with the error (a closed pipe dies of SIGPIPE).
	if _, err := os.Stdout.WriteString(out); err != nil {
		_, _ = os.Stderr.WriteString("agentloop: " + err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// answer returns what agentloop prints on stdout for the command line
// args, if it is one answered here: --version when version can tell the
// version, --help or -h when width can tell the width.
func answer(args []string, version func() string, width func() (int, bool)) (string, bool) {
	if len(args) != 1 {
		return "", false
	}
	switch args[0] {
	case "--version":
		v := version()
		if v == "" {
			return "", false
		}
		return "agentloop " + v + "\n", true
	case "--help", "-h":
		w, ok := width()
		if !ok {
			return "", false
		}
		return Help(w), true
	}
	return "", false
}

// buildVersion is the version as cmd.Version gives it: the one stamped at
// build time, else the main module's, "dev" for a build the go command
// could not date; "" when it cannot be read here.
func buildVersion() string {
	if v := version.Stamped(); v != "" {
		return v
	}
	if v := exeVersion(); v != "(devel)" {
		return v
	}
	return "dev"
}

// Help returns the root command's help as the command tree prints it for a
// terminal width of w columns.
func Help(w int) string {
	flags := helpFlags[0].text
	for _, f := range helpFlags {
		if w >= f.from {
			flags = f.text
		}
	}
	return helpHead + flags + helpTail
}

// width is the width the command tree wraps help to (iostreams.System): that of
// the terminal stdout is on, else of the one stderr is on, else $COLUMNS,
// else 80. ok is false where this system's terminals cannot be asked here.
func width() (w int, ok bool) {
	for _, fd := range []int{1, 2} {
		w, tty, ok := terminalWidth(fd)
		if !ok {
			return 0, false
		}
		if tty && w > 0 {
			return w, true
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c, true
	}
	return 80, true
}
